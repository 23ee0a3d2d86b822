// `npm run compat -- --azurite 3.15.0,3.29.0,3.35.0,3.37.0 [--node <path>]`:
// installs each Azurite version with npm into a cache directory, starts it
// (with this Node, or --node for versions whose engines need a newer one),
// runs the suite against it as an external emulator (`-e azurite`), one
// version at a time, and writes the compare matrix (compare.md, compare.html)
// and, with --doc, the compatibility page. Exit code: 0 every version ran
// (whatever its verdicts, an incomplete run too), 1 a version could not be installed, started or run,
// 2 bad input.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { ROOT } from "../fixtures/paths.ts";
import { INCOMPLETE_EXIT_CODE } from "../model/result.ts";
import { Command } from "commander";
import {
  DEFAULT_CACHE,
  installAzurite,
  isLegacy,
  LEGACY_EXPECTATIONS,
  nodeFor,
  runSuiteCli,
  startLegacy,
  startVersion,
  type StartedVersion,
} from "./compat/azurite-versions.ts";
import type { AzuritePackage } from "../fixtures/azurite/azurite.ts";
import { preflight } from "../fixtures/run/preflight.ts";
import { ConfigError, resolveConnectionString } from "../fixtures/wire/target.ts";
import { renderCompatDoc, type VersionRun } from "./compat/compat-doc.ts";
import { writeCompare } from "../reporters/compare.ts";
import { parseArgs, runMain, withOneLineErrors } from "./cli-kit.ts";
import { readRun } from "./compare.ts";

const program = withOneLineErrors(
  new Command()
    .name("compat")
    .description("Runs the suite against several Azurite versions (installed with npm into a cache) and writes the compare matrix.")
    .requiredOption("-a, --azurite <versions>", "comma-separated Azurite versions, oldest first, e.g. 3.15.0,3.29.0,3.35.0,3.37.0")
    .option("--node <path>", "Node binary for versions whose engines need a newer Node than this one (Azurite 3.36+ needs Node 22)")
    .option("-r, --report-dir <dir>", "reports: <dir>/<version>/ per version, compare.md and compare.html in <dir>", "reports/compat")
    .option("--cache-dir <dir>", "where versions are installed", DEFAULT_CACHE)
    .option("--doc <path>", "also write the compatibility page (e.g. docs/azurite-compatibility.md)")
    .option("-g, --grep <pattern>", "run only rows whose ID or title matches")
    .option("-s, --services <list>", "services to run"),
);

interface Opts {
  azurite: string;
  node?: string;
  reportDir: string;
  cacheDir: string;
  doc?: string;
  grep?: string;
  services?: string;
}

const API_REFUSED = /API version refused/;

async function runVersion(version: string, opts: Opts, say: (s: string) => void): Promise<VersionRun> {
  const pkg = await installAzurite(version, resolve(opts.cacheDir), say);
  if (isLegacy(version)) return runLegacy(pkg, opts, say);
  const { node, version: nodeVersion } = await nodeFor(pkg, opts.node);
  let started = await startVersion(pkg, node);
  try {
    // Old versions refuse the SDKs' x-ms-version: start them again with --skipApiVersionCheck.
    const refused = await preflight(resolveConnectionString(started.azurite.connectionString)).then(
      () => false,
      (err: Error) => {
        if (err instanceof ConfigError && API_REFUSED.test(err.message)) return true;
        throw err;
      },
    );
    if (refused) {
      await started.azurite.stop();
      say(`Azurite ${version} refuses x-ms-version 2025-11-05: starting it with --skipApiVersionCheck`);
      started = await startVersion(pkg, node, ["--skipApiVersionCheck"]);
    }
    return await report(version, nodeVersion, started, opts, say);
  } finally {
    await started.azurite.stop();
  }
}

/** One run against Azurite 2.x (the legacy code base), with its own expectation file. */
async function runLegacy(pkg: AzuritePackage, opts: Opts, say: (s: string) => void): Promise<VersionRun> {
  const started = await startLegacy(pkg.dir);
  try {
    return { ...(await report(pkg.version, process.version, started, opts, say, LEGACY_EXPECTATIONS)), legacy: true };
  } finally {
    await started.azurite.stop();
  }
}

/** Runs the suite's CLI against a started version and reads its report. */
async function report(
  version: string,
  nodeVersion: string,
  started: StartedVersion,
  opts: Opts,
  say: (s: string) => void,
  expectations?: string,
): Promise<VersionRun> {
  const dir = join(resolve(opts.reportDir), version);
  const extra = [...(opts.grep ? ["--grep", opts.grep] : []), ...(opts.services ? ["--services", opts.services] : [])];
  const { code, output } = await runSuiteCli(started.azurite.connectionString, dir, extra, ROOT, undefined, expectations);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "console.log"), output);
  const last = output.trim().split("\n").at(-1) ?? "";
  say(`Azurite ${version} on Node ${nodeVersion}: exit ${code}: ${last}`);
  // An incomplete run (rows no answer decided) has its report, its INCONCLUSIVE rows in the matrix.
  if (code !== 0 && code !== 1 && code !== INCOMPLETE_EXIT_CODE)
    return { version, node: nodeVersion, args: started.args, code, error: last };
  return { version, node: nodeVersion, args: started.args, code, run: readRun(join(dir, "conformance.json")) };
}

async function main(): Promise<number> {
  const stop = parseArgs(program);
  if (stop !== undefined) return stop;
  const opts = program.opts<Opts>();
  const versions = opts.azurite
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
  if (!versions.length) throw new ConfigError("--azurite names no version.");
  const say = (s: string) => console.log(s);
  const results: VersionRun[] = [];
  for (const v of versions) {
    try {
      results.push(await runVersion(v, opts, say));
    } catch (err) {
      if (err instanceof ConfigError && !/could not install/.test(err.message)) throw err;
      const msg = (err as Error).message.split("\n")[0];
      say(`Azurite ${v}: ${msg}`);
      results.push({ version: v, node: "", args: [], code: null, error: msg });
    }
  }
  const ran = results.filter((r) => r.run);
  if (ran.length) {
    const { comparison, files } = writeCompare(
      ran.map((r) => r.run!),
      { outDir: resolve(opts.reportDir), title: "Azurite versions side by side" },
    );
    say(
      `${comparison.rows.filter((r) => r.changed).length} of ${comparison.rows.length} IDs differ between the versions. Wrote ${files.map((f) => relative(process.cwd(), f)).join(", ")}`,
    );
  }
  if (opts.doc) {
    const narrowed = `${opts.grep ? ` --grep '${opts.grep}'` : ""}${opts.services ? ` --services ${opts.services}` : ""}`;
    const command = `npm run compat -- --azurite ${versions.join(",")}${opts.node ? " --node <node 22>" : ""}${narrowed} --doc ${opts.doc}`;
    const suite = ran[0]?.run?.report.run.suite;
    const text = renderCompatDoc(results, {
      date: new Date().toISOString().slice(0, 10),
      command,
      suite: `${suite?.version ?? "?"}${suite?.commit ? ` at ${suite.commit.slice(0, 10)}` : ""}`,
    });
    mkdirSync(dirname(resolve(opts.doc)), { recursive: true });
    writeFileSync(resolve(opts.doc), text);
    say(`Wrote ${opts.doc}`);
  }
  return results.every((r) => r.run) ? 0 : 1;
}

await runMain(import.meta.url, main);
