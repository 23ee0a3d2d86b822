// The time to the first row, a figure of `npm run bench`: from spawning the
// CLI to its first row's line, with one quick row (loading, the embedded
// Azurite's start, the preflight, the row), compiled (dist/, as the installed
// package runs it with plain node) and from source through tsx, alternating.
// The product is built first (`npm run build`: nothing to do on a built tree).
import { spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../fixtures/paths.ts";
import { STATUSES } from "../model/result.ts";
import { buildProduct, cleanEnv, tmpDir } from "../selftest/cli/cli-kit.ts";

const ONE_ROW = "create-container/etag:";
const ROW_LINE = new RegExp(`^\\s+(${STATUSES.join("|")})\\s+\\S+ \\(\\d+ ms`, "m");

/** Milliseconds from spawning `node <args>` to its first row line. */
function timeToFirstRow(args: string[]): Promise<number> {
  const dir = tmpDir("bench-first-row");
  const started = Date.now();
  const child = spawn(process.execPath, [...args, "--env-file", "/dev/null", "--grep", ONE_ROW, "--report-dir", dir], {
    cwd: ROOT,
    env: cleanEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let first: number | undefined;
  child.stdout.on("data", (c: Buffer) => {
    out += c.toString();
    if (first === undefined && ROW_LINE.test(out)) first = Date.now() - started;
  });
  child.stderr.on("data", (c: Buffer) => (out += c.toString()));
  return new Promise((resolve, reject) =>
    child.on("close", (code) =>
      code === 0 && first !== undefined ? resolve(first) : reject(new Error(`exit ${code}, no row line:\n${out.slice(-2000)}`)),
    ),
  );
}

export interface FirstRow {
  compiledMs: number[];
  sourceMs: number[];
}

/** `runs` times each way, alternating. */
export async function firstRowTimes(runs: number): Promise<FirstRow> {
  const buildFailed = buildProduct();
  if (buildFailed !== undefined) throw new Error(`npm run build failed:\n${buildFailed}`);
  const times: FirstRow = { compiledMs: [], sourceMs: [] };
  for (let i = 0; i < runs; i++) {
    times.compiledMs.push(await timeToFirstRow([join(ROOT, "dist/bin/conformance.js")]));
    times.sourceMs.push(await timeToFirstRow(["--import", "tsx", join(ROOT, "bin/conformance.ts")]));
  }
  return times;
}
