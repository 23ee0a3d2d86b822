// The programmatic API: `import { run } from "azure-storage-concurrency-conformance"`.
// run(options) runs the suite as the command line does and resolves to its
// report (the object conformance.json holds). The run happens in a child
// process, by choice: the pipeline itself (fixtures/run/run.ts) keeps no
// process-wide state, but the command line's Ctrl-C handling (it cleans up a
// live account) and its .env have no place in the caller's process, and a
// crash or a hung target cannot take the caller down. A child can be run
// again, or beside another one (with its own report directory).
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { CODE_DIR, FROM_SOURCE } from "./fixtures/paths.ts";
import { argumentsOf, OPTIONS, type OptionValues } from "./fixtures/options.ts";
import { ConfigError } from "./fixtures/wire/target.ts";
import { INCOMPLETE_EXIT_CODE, INTERNAL_ERROR_EXIT_CODE, type Report } from "./model/result.ts";

export type { Exchange, Level, Pin, Report, RowResult, RunInfo, Service, ServiceProbe, Status, TargetKind } from "./model/result.ts";
export type { NotSentReason, SurfaceCoverage, SurfaceEntry, SurfaceKind } from "./model/surface.ts";
export { countsAsPassed, failsRun, SCHEMA, STATUSES } from "./model/result.ts";
export { ConfigError };

/**
 * The run's options (fixtures/options.ts declares each: its flag, variable,
 * default and range), each falling back to its environment variable and then
 * its default, as on the command line; and how the run is started.
 */
export interface RunOptions extends OptionValues {
  /** dotenv file the run reads (default `.env` in `cwd`; a missing file is ignored). */
  envFile?: string;
  /** Working directory of the run (default: this process's). */
  cwd?: string;
  /** Environment of the run (default: this process's). Unset options fall back to its variables, as on the command line. */
  env?: NodeJS.ProcessEnv;
  /** The console output of the run: "inherit" (default), "ignore", or a function receiving it as it comes. */
  output?: "inherit" | "ignore" | ((text: string, stream: "stdout" | "stderr") => void);
  /** Aborting stops the run as Ctrl-C does (its resources removed); run() then rejects. */
  signal?: AbortSignal;
}

/** The command line arguments a RunOptions stands for. */
/** The command line of a run with these options; reports go to `reportDir`. */
export function cliArguments(options: RunOptions, reportDir: string): string[] {
  return [...argumentsOf({ ...options, reportDir }), ...(options.envFile === undefined ? [] : ["--env-file", options.envFile])];
}

function cliCommand(): string[] {
  if (!FROM_SOURCE) return [join(CODE_DIR, "bin", "conformance.js")];
  return ["--import", import.meta.resolve("tsx"), join(CODE_DIR, "bin", "conformance.ts")];
}

/**
 * Runs the suite and resolves to its report, whatever the verdicts
 * (`report.summary.failed > 0` is the command line's exit code 1; an
 * INCONCLUSIVE row not pinned so, with none failing, its exit code 4; a row
 * the suite itself failed on, status ERROR, its exit code 3). Rejects with a
 * ConfigError on bad input (the command line's exit code 2), and with an
 * Error when the run was interrupted or the suite crashed before its report.
 */
export function run(options: RunOptions = {}): Promise<Report> {
  const env = options.env ?? process.env;
  const cwd = resolve(options.cwd ?? process.cwd());
  const reportDir = resolve(cwd, options.reportDir ?? (env[OPTIONS.reportDir.env] || OPTIONS.reportDir.default));
  const output = options.output ?? "inherit";
  const started = Date.now();
  const child = spawn(process.execPath, [...cliCommand(), ...cliArguments(options, reportDir)], {
    cwd,
    env,
    stdio: ["ignore", output === "inherit" ? "inherit" : "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    const text = chunk.toString();
    stderr += text;
    if (output === "inherit") process.stderr.write(text);
    else if (typeof output === "function") output(text, "stderr");
  });
  if (typeof output === "function") child.stdout!.on("data", (chunk: Buffer) => output(chunk.toString(), "stdout"));
  else child.stdout?.resume();
  const abort = () => child.kill("SIGTERM");
  options.signal?.addEventListener("abort", abort, { once: true });
  if (options.signal?.aborted) abort();
  return new Promise<Report>((done, fail) => {
    child.once("error", fail);
    child.once("close", (code) => {
      options.signal?.removeEventListener("abort", abort);
      const said = stderr.trim().split("\n").filter(Boolean).at(-1) ?? "";
      // 3 with a report: the suite failed on some rows (ERROR) but the run ended; without one, it crashed.
      const reported =
        code === INTERNAL_ERROR_EXIT_CODE &&
        existsSync(join(reportDir, "conformance.json")) &&
        statSync(join(reportDir, "conformance.json")).mtimeMs >= started;
      if (code === 0 || code === 1 || code === INCOMPLETE_EXIT_CODE || reported) {
        try {
          done(JSON.parse(readFileSync(join(reportDir, "conformance.json"), "utf8")) as Report);
        } catch (err) {
          fail(new Error(`the run ended (exit ${code}) but its report could not be read: ${(err as Error).message}`));
        }
      } else if (code === 2) fail(new ConfigError(said.replace(/^error: /, "")));
      else if (code === 130 || options.signal?.aborted) fail(new Error("the run was interrupted; its resources were removed"));
      else fail(new Error(said || `the run ended with exit code ${code}`));
    });
  });
}
