// Helpers for the command-line self-tests: spawn the CLI (or another bin/
// script) with a clean environment, start private Azurites, read reports.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startAzurite, type EmbeddedAzurite } from "../../fixtures/azurite/azurite.ts";
import { ROOT } from "../../fixtures/paths.ts";
import { exitCodeOf, type Report, type RowResult } from "../../model/result.ts";

export { ROOT };

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** A clean environment: only what node needs, plus `env`. */
export function cleanEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? tmpdir(), NO_COLOR: "1", ...env };
}

/** Builds the product (`npm run build`: nothing to do on a built, unchanged tree); what it printed when it failed. */
export function buildProduct(): string | undefined {
  const build = spawnSync("npm", ["run", "build", "--silent"], { cwd: ROOT, encoding: "utf8" });
  return build.status === 0 ? undefined : `${build.error?.message ?? ""}${build.stdout}${build.stderr}`;
}

/**
 * How node runs a product script of bin/: compiled (`dist/bin/<name>.js`) in
 * a self-test run that built the product first (selftest/run.ts sets
 * SELFTEST_BUILT), else from source through tsx (a file run on its own, whose
 * dist/ may be stale). tsx's loader costs about 1.5 CPU-seconds a process;
 * the self-tests start dozens. `fromSource`: always from source (a run whose
 * point is the source, as the one the installed package is compared with).
 */
export function scriptArgv(script: string, { fromSource = false } = {}): string[] {
  const built = join(ROOT, "dist", script.replace(/\.ts$/, ".js"));
  return !fromSource && process.env.SELFTEST_BUILT === "1" && script.startsWith("bin/") && existsSync(built)
    ? [built]
    : ["--import", "tsx", script];
}

/** Spawns a product script (scriptArgv) in the repository (no .env read unless asked). */
export function spawnScript(script: string, args: string[], env: Record<string, string> = {}, fromSource = false): ChildProcess {
  const withEnvFile =
    args.includes("--env-file") || script.endsWith("expectations-update.ts") ? args : [...args, "--env-file", "/dev/null"];
  return spawn(process.execPath, [...scriptArgv(script, { fromSource }), ...withEnvFile], {
    cwd: ROOT,
    env: cleanEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
}

export function collect(child: ChildProcess, timeoutMs = 170_000): Promise<CliResult> {
  const started = Date.now();
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

export function runScript(script: string, args: string[], env: Record<string, string> = {}, timeoutMs?: number): Promise<CliResult> {
  return collect(spawnScript(script, args, env), timeoutMs);
}

export function runCli(args: string[], env: Record<string, string> = {}, timeoutMs?: number): Promise<CliResult> {
  return runScript("bin/conformance.ts", args, env, timeoutMs);
}

/** The CLI run from source through tsx, whatever was built. */
export function runCliFromSource(args: string[], env: Record<string, string> = {}, timeoutMs?: number): Promise<CliResult> {
  return collect(spawnScript("bin/conformance.ts", args, env, true), timeoutMs);
}

/**
 * A row the environment left without a verdict because an answer came too late
 * to tell (a window's late probe answered in its last second, a renewed lease
 * or a break period run out before the check was answered, concurrent reads
 * that did not overlap the writes: PRECONDITION_FAILED;
 * a request that got no answer within its timeout or had its connection reset,
 * a row that reached no verdict within its time: INCONCLUSIVE), on a machine
 * the self-tests saturate. Runs compared for equal verdicts leave such a row
 * out on both sides; any other difference still counts.
 */
export const tooLateToTell = (r: { status: string; message?: string } | undefined): boolean =>
  (r?.status === "PRECONDITION_FAILED" &&
    /too slow a target to tell|no time left to tell|ran out before the (state|holder)|reads did not overlap the writes/.test(
      r.message ?? "",
    )) ||
  (r?.status === "INCONCLUSIVE" &&
    /ETIMEDOUT: no answer within \d+ ms|ECONNRESET|no verdict within \d+ s|did not finish within its time limit/.test(r.message ?? ""));

/**
 * The rows of these reports too late to tell (above) in any of them, and the
 * cells computed from them (`<cell>/…`: a cell's finer rows sit beneath its ID).
 */
export function tooLateIn(...reports: Pick<Report, "results">[]): (id: string) => boolean {
  return atOrAbove(reports.flatMap((r) => r.results.filter((x) => tooLateToTell(x)).map((x) => x.id)));
}

/** Whether an ID is one of `ids` or a cell above one of them (`<cell>/…`: a cell's finer rows sit beneath its ID). */
export const atOrAbove =
  (ids: string[]) =>
  (id: string): boolean =>
    ids.some((l) => l === id || l.startsWith(id + "/"));

/** A try of the row's run or of its re-run got no answer at all (timed out, reset, refused). */
export const metNoAnswer = (r: RowResult): boolean =>
  [...r.evidence, ...(r.retried?.evidence ?? [])].some((x) => x.transportError !== undefined);

/** Of the rows two runs are compared on, the share that must be compared: at most a tenth may have been too late to tell. */
export const COMPARED_FLOOR = 0.9;

/**
 * The IDs a comparison of runs looks at: `ids` without those too late to tell
 * (`late`). Throws when fewer than `floor` of them are left, so a loaded machine
 * cannot make a comparison pass with little or nothing compared.
 */
export function toldIds(what: string, ids: string[], late: (id: string) => boolean, floor = COMPARED_FLOOR): string[] {
  const told = ids.filter((id) => !late(id));
  if (!ids.length || told.length < Math.ceil(floor * ids.length))
    throw new Error(
      `${what}: ${told.length} of ${ids.length} rows compared, the others too late to tell; at least ${Math.round(floor * 100)} % must be (${ids.filter(late).slice(0, 10).join(", ")}${ids.filter(late).length > 10 ? ", …" : ""})`,
    );
  return told;
}

/** A row's verdict as runs are compared on it: its status and failure signature. */
export const verdictOf = (r: RowResult | undefined): string => (r ? `${r.status}${r.signature ? ` [${r.signature}]` : ""}` : "not run");

/**
 * The rows of `results` (but those `skip` names) whose verdict differs from the
 * baseline's, each as "ID: before → after message"; rows too late to tell in
 * either run are left out, within the comparison's floor (toldIds).
 */
export function changedVerdicts(
  what: string,
  results: RowResult[],
  baseline: RowResult[],
  skip: (id: string) => boolean = () => false,
  floor?: number,
): string[] {
  const before = new Map(baseline.map((r) => [r.id, r]));
  const told = new Set(
    toldIds(
      what,
      results.filter((r) => !skip(r.id)).map((r) => r.id),
      tooLateIn({ results }, { results: baseline }),
      floor,
    ),
  );
  return results
    .filter((r) => told.has(r.id) && verdictOf(r) !== verdictOf(before.get(r.id)))
    .map((r) => `${r.id}: ${verdictOf(before.get(r.id))} → ${verdictOf(r)} ${r.message ?? ""}`);
}

/**
 * A run's exit code as the rows that told decide it: a row too late to tell
 * (above), and a cell computed from one (its finer rows left it undecided),
 * make a run incomplete (exit 4) by the machine's load alone; a 4 with any
 * other row left undecided stays 4.
 */
export function toldExitCode(code: number | null, report: Report): number | null {
  if (code !== 4) return code;
  const late = tooLateIn(report);
  return exitCodeOf(report.results.filter((r) => !late(r.id)));
}

export function tmpDir(tag: string): string {
  return mkdtempSync(join(tmpdir(), `conformance-${tag}-`));
}

/**
 * A private Azurite (not the shared one: these tests look at everything on
 * the account). `accounts` sets AZURITE_ACCOUNTS ("name:key") for the child only.
 */
export function privateAzurite(accounts?: string): Promise<EmbeddedAzurite> {
  // For the child only: a variable set on this process would reach an Azurite another test starts meanwhile.
  return startAzurite(accounts ? { env: { AZURITE_ACCOUNTS: accounts } } : {});
}

/** The connection string of an Azurite for another account (path-style endpoints). */
export function accountConnectionString(
  a: Pick<EmbeddedAzurite, "ports">,
  account: string,
  credential: { key: string } | { sas: string },
): string {
  const parts = ["DefaultEndpointsProtocol=http", `AccountName=${account}`];
  if ("key" in credential) parts.push(`AccountKey=${credential.key}`);
  for (const [svc, port] of Object.entries(a.ports))
    parts.push(`${svc[0].toUpperCase()}${svc.slice(1)}Endpoint=http://127.0.0.1:${port}/${account}`);
  if ("sas" in credential) parts.push(`SharedAccessSignature=${credential.sas}`);
  return parts.join(";");
}

/** Throws unless the run ended with a report: 0, 1, or 4 (rows left INCONCLUSIVE still have one; the comparisons name the rows). */
export function endedWithReport(cli: CliResult, what: string): void {
  if (cli.code !== 0 && cli.code !== 1 && cli.code !== 4) throw new Error(`${what} ended with ${cli.code}: ${cli.stderr.slice(0, 1000)}`);
}

export function readReport(dir: string): Report {
  return JSON.parse(readFileSync(join(dir, "conformance.json"), "utf8")) as Report;
}

/** Every file under a directory, recursively, with its text. */
export function artefacts(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  for (const f of readdirSync(dir, { recursive: true }) as string[]) {
    const p = join(dir, f);
    if (statSync(p).isFile()) out.push({ path: p, text: readFileSync(p).toString("latin1") });
  }
  return out;
}

/** The one line a bad input must produce: no stack, no blank lines. */
export function oneLine(stderr: string): string {
  const lines = stderr.split("\n").filter((l) => l.trim() !== "");
  if (lines.length !== 1) throw new Error(`expected one line on stderr, got ${lines.length}:\n${stderr.slice(0, 2000)}`);
  return lines[0];
}
