// The package as a user gets it, made once per `npm run selftest` and shared
// (selftest/shared.ts): `npm pack` (prepack compiles dist/), then in an empty
// directory `npm i --omit=dev <tarball>` (no tsx, no TypeScript), then one
// full run of the installed command against the embedded Azurite (every
// report written, seed RUN_SEED). That run is the suite's embedded run for
// every file that compares with one: cli/package.test.ts (the installed
// package gives the verdicts of a run from source), cli/runs.test.ts (an
// external emulator gives the embedded run's verdicts) and mutation.test.ts
// (the proxy changes no verdict); each compares it with the shared external
// run from source (cli/external-run.ts). One full run of each kind serves
// them all: a difference still names its rows and both runs' evidence.
// npm installs from its cache where it can (--prefer-offline): one install.
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { sharedOnce } from "../shared.ts";
import { cleanEnv, collect, ROOT, tmpDir, type CliResult } from "./cli-kit.ts";

/** The seed of the shared runs' model rows (a run to compare with them uses the same). */
export const RUN_SEED = "20261124";
export const PACKAGE_NAME = "azure-storage-concurrency-conformance";

/**
 * What npm needs to reach the registry from this machine (a proxy, the CA of a
 * TLS-inspecting one, the registry); the suite's variables and npm's run-script
 * ones (npm_config_local_prefix would install into this repository) stay out.
 */
const NETWORK =
  /^(https?_proxy|no_proxy|node_extra_ca_certs|ssl_cert_file|ssl_cert_dir|npm_config_(registry|cafile|ca|strict_ssl|https?_proxy|proxy|noproxy))$/i;
export const PATH = `${dirname(process.execPath)}:${process.env.PATH ?? "/usr/bin:/bin"}`;

/** Runs a command with only PATH, npm's network settings and `env`. */
export function sh(cmd: string, args: string[], cwd: string, timeoutMs: number, env: Record<string, string> = {}): Promise<CliResult> {
  const network = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => NETWORK.test(e[0]) && e[1] !== undefined),
  );
  return collect(spawn(cmd, args, { cwd, env: cleanEnv({ ...network, PATH, ...env }), stdio: ["ignore", "pipe", "pipe"] }), timeoutMs);
}

export interface Packed {
  filename: string;
  unpackedSize: number;
  files: { path: string; size: number }[];
}

export interface InstalledRun {
  /** npm pack's answer; undefined when it failed (see `pack`). */
  packed?: Packed;
  pack: CliResult;
  /** The directory the package is installed in. */
  app: string;
  install?: CliResult;
  /** The installed command's full run: its report directory and output. */
  dir?: string;
  cli?: CliResult;
}

/** The installed command (node_modules/.bin) of `app`. */
export const binIn = (app: string, name = PACKAGE_NAME): string => join(app, "node_modules", ".bin", name);

export function installedRun(): Promise<InstalledRun> {
  return sharedOnce("installed-run", async () => {
    const dir = tmpDir("pack");
    const pack = await sh("npm", ["pack", "--json", "--pack-destination", dir, "--loglevel", "error"], ROOT, 180_000);
    const app = tmpDir("app");
    if (pack.code !== 0) return { pack, app };
    const packed = (JSON.parse(pack.stdout.slice(pack.stdout.indexOf("["))) as Packed[])[0];
    const install = await sh(
      "npm",
      ["i", "--omit=dev", "--prefer-offline", "--no-audit", "--no-fund", join(dir, packed.filename)],
      app,
      360_000,
    );
    if (install.code !== 0) return { packed, pack, app, install };
    // Reports in the consumer's default place (./reports), as a user would find them.
    const cli = await sh(binIn(app), ["--seed", RUN_SEED], app, 300_000);
    return { packed, pack, app, install, dir: join(app, "reports"), cli };
  });
}

/** The installed run's report directory and output; throws when the package could not be made or installed. */
export async function embeddedRun(): Promise<{ dir: string; cli: CliResult }> {
  const r = await installedRun();
  if (r.pack.code !== 0) throw new Error(`npm pack failed: ${r.pack.stderr.slice(-2000)}`);
  if (!r.install || r.install.code !== 0) throw new Error(`npm i <tarball> failed: ${r.install?.stderr.slice(-2000)}`);
  return { dir: r.dir!, cli: r.cli! };
}
