// `npm run selftest [grep]`: the suite's own tests (selftest/**/*.test.ts),
// each file in a process of its own (but the quick ones: QUICK), several
// side by side (much of their time is spent waiting on leases, visibility
// timeouts and child processes). A
// costly run several files use (the whole suite through the proxy with no
// mutant, a run of the CLI from source) is made once, by the first process
// that asks, in a scratch directory they share (selftest/shared.ts,
// SELFTEST_SHARED_DIR). Longest first, by the times of the last full run
// (selftest/times.json, committed: a fresh clone starts the long ones first
// too, and the figures quoted in the docs come from it). Each process's
// output is printed whole when it ends; at the end, the wall and CPU time of
// each (its process and the children it waited for: on two cores the CPU,
// not the waits, sets the total), slowest first, the failing tests again
// with the head of each error, then the line
// `N passed, N failed, N skipped`. The model rows' kill rates
// (models.test.ts) are measured with nothing else running: a lease model
// sequence runs within a time budget, so a loaded machine cuts sequences
// short and lowers the rates it measures (even light files beside it do);
// that file runs first, alone, then the others side by side.
//   SELFTEST_JOBS: processes at once (default 4).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { filesEndingWith } from "../fixtures/mocha-load.ts";
import { ROOT } from "../fixtures/paths.ts";

if (process.argv[2] === "--help" || process.argv[2] === "-h") {
  console.log(
    "Usage: npm run selftest [-- <grep>]\n\nRuns the suite's own tests (selftest/**/*.test.ts), or those whose title matches <grep> (a regular expression), each file in a process of its own (the quick ones in unit/ and report/ share one), SELFTEST_JOBS at once (default 4).\nSELFTEST_CHAOS=1 adds the busy-target runs. Ends with `N passed, N failed, N skipped`.",
  );
  process.exit(0);
}
const here = dirname(fileURLToPath(import.meta.url));
const TIMES = join(here, "times.json");
const JOBS = Math.max(1, Number(process.env.SELFTEST_JOBS ?? 4) || 4);
const grep = process.argv[2];
/** Files that run with no other self-test beside them (their measurements depend on the load). */
const ALONE = ["models.test.ts"];

interface Tally {
  passes: number;
  failures: number;
  pending: number;
  /** CPU seconds of the file's process and the children it waited for (see worker.ts). */
  cpuSeconds?: number;
  /** Seconds per file, where a process ran several. */
  perFile?: Record<string, number>;
  /** The failing tests and the head of each error (see worker.ts). */
  failing?: { title: string; error: string }[];
}
interface Job {
  name: string;
  files: string[];
}

/** Directories of quick files (a second or two each), which share one process: its start would cost more than they do. */
const QUICK = ["unit/", "report/"];

/** One job per file, but the quick ones together. */
function jobs(): Job[] {
  const files = filesEndingWith(here, ".test.ts");
  const quick = files.filter((f) => QUICK.some((d) => relative(here, f).startsWith(d)));
  const rest = files.filter((f) => !quick.includes(f));
  return [...(quick.length ? [{ name: `${QUICK.join(", ")} (one process)`, files: quick }] : []), ...rest.map((f) => ({ name: relative(here, f), files: [f] }))];
}

/** Wall seconds per file in the last full run. */
function lastTimes(): Record<string, number> {
  try {
    return existsSync(TIMES) ? (JSON.parse(readFileSync(TIMES, "utf8")) as { seconds: Record<string, number> }).seconds : {};
  } catch {
    return {};
  }
}

async function runJob(job: Job, scratch: string): Promise<{ job: Job; tally: Tally; seconds: number; output: string; code: number | null }> {
  const tallyPath = join(scratch, `${job.name.replace(/[^a-z0-9]+/gi, "-")}.json`);
  const started = Date.now();
  const child = spawn(process.execPath, ["--import", "tsx", join(here, "worker.ts"), "--tally", tallyPath, ...(grep ? ["--grep", grep] : []), ...job.files], {
    cwd: ROOT,
    env: { ...process.env, SELFTEST_SHARED_DIR: scratch },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr.on("data", (c: Buffer) => (output += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const seconds = (Date.now() - started) / 1000;
  let tally: Tally = { passes: 0, failures: 1, pending: 0 };
  try {
    tally = JSON.parse(readFileSync(tallyPath, "utf8")) as Tally;
  } catch {
    output += `\n${job.name}: the process ended (exit ${code}) without a result\n`;
  }
  return { job, tally, seconds, output, code };
}

const started = Date.now();
const times = lastTimes();
const seconds = (j: Job) => times[j.name] ?? 0;
const scratch = mkdtempSync(join(tmpdir(), "selftest-"));
const ran = (t: Tally) => t.passes + t.failures + t.pending > 0;
const report = async (job: Job) => {
  const r = await runJob(job, scratch);
  // Whole, so the outputs of processes side by side do not interleave; a file the grep left empty says nothing.
  if (ran(r.tally) || r.code !== 0) process.stdout.write(`\n===== ${job.name} (${Math.round(r.seconds)} s) =====\n${r.output}`);
  return r;
};
// The files measured alone run first, then every file left, JOBS at once,
// the longest first.
const all = jobs();
const alone = all.filter((j) => ALONE.includes(j.name));
const left = all.filter((j) => !alone.includes(j)).sort((a, b) => seconds(b) - seconds(a));
const done: Awaited<ReturnType<typeof report>>[] = [];
for (const job of alone) done.push(await report(job));
await Promise.all(
  Array.from({ length: JOBS }, async () => {
    for (let job = left.shift(); job; job = left.shift()) done.push(await report(job));
  }),
);

const total = done.reduce((t, r) => ({ passes: t.passes + r.tally.passes, failures: t.failures + r.tally.failures, pending: t.pending + r.tally.pending }), { passes: 0, failures: 0, pending: 0 });
const wall = Math.round((Date.now() - started) / 1000);
if (!grep) {
  const record = {
    date: new Date().toISOString().slice(0, 10),
    node: process.version,
    jobs: JOBS,
    wallSeconds: wall,
    tests: total,
    seconds: Object.fromEntries([...done].sort((a, b) => b.seconds - a.seconds).map((r) => [r.job.name, Math.round(r.seconds)])),
    cpuSeconds: Object.fromEntries([...done].sort((a, b) => (b.tally.cpuSeconds ?? 0) - (a.tally.cpuSeconds ?? 0)).map((r) => [r.job.name, Math.round(r.tally.cpuSeconds ?? 0)])),
  };
  writeFileSync(TIMES, JSON.stringify(record, null, 2) + "\n");
}
console.log(`\nself-test wall time per file (${JOBS} at once), slowest first, with CPU time:`);
for (const r of [...done].sort((a, b) => b.seconds - a.seconds).filter((r) => ran(r.tally) || r.code !== 0)) {
  const cpu = r.tally.cpuSeconds === undefined ? "" : `${Math.round(r.tally.cpuSeconds)} s CPU`;
  console.log(`  ${String(Math.round(r.seconds)).padStart(4)} s ${cpu.padStart(10)}  ${r.job.name}  (${r.tally.passes} passed, ${r.tally.failures} failed, ${r.tally.pending} skipped)`);
  if (r.job.files.length < 2) continue;
  for (const [f, sec] of Object.entries(r.tally.perFile ?? {}).sort((a, b) => b[1] - a[1])) console.log(`  ${sec.toFixed(1).padStart(16)} s  ${relative(here, f)}`);
}
const failing = done.flatMap((r) => (r.tally.failing ?? []).map((f) => ({ ...f, file: r.job.name })));
if (failing.length) {
  // Again here, whole outputs above may be long: the failures are the first thing to read.
  console.log(`\nfailing self-tests (${failing.length}):`);
  for (const f of failing) console.log(`  ${f.file}: ${f.title}\n${f.error.replace(/^/gm, "      ")}`);
}
console.log(`\nselftest wall time: ${wall} s`);
console.log(`${total.passes} passed, ${total.failures} failed, ${total.pending} skipped`);
process.exit(total.failures > 0 || done.some((r) => r.code !== 0 && r.tally.failures === 0) ? 1 : 0);
