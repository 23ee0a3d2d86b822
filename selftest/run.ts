// `npm run selftest [grep]`: the suite's own tests (selftest/**/*.test.ts),
// each file in a process of its own (but the quick ones: QUICK), several
// side by side (much of their time is spent waiting on leases, visibility
// timeouts and child processes). The costly runs several files compare with
// (the installed package's full run, a run of the CLI from source against an
// external emulator) are made once, in a scratch directory they share
// (selftest/shared.ts, SELFTEST_SHARED_DIR): in a full run by a process of
// their own started first (shared-runs.ts), else by the first file that
// asks. Longest first, by the times of the last full run (selftest/times.json,
// committed: a fresh clone starts the long ones first too, and the figures
// quoted in the docs come from it). Each process's output is printed whole
// when it ends; at the end, the wall and CPU time of each (its process and
// the children it waited for: on two cores the CPU, not the waits, sets the
// total), slowest first, the failing tests again with the head of each error,
// then the line `N passed, N failed, N skipped`.
//
// The model rows' kill rates (models.test.ts) are measured as if nothing else
// ran: a lease model sequence runs within a time budget, so a loaded machine
// cuts sequences short and lowers the rates it measures (even light files
// beside it did). That file runs at the normal priority and every other one
// at a lower one (BACKGROUND_NICE, inherited by their Azurites and CLI runs):
// the scheduler gives the kill rates most of the CPU they ask for, and the
// others the rest of the two cores, which the kill rates alone left idle. It
// starts once the shared runs are made (at the normal priority too): a run
// starved beside it met client timeouts, a poorer baseline for the files
// that compare with it.
//
// The product is built first (`npm run build`: nothing to do on a built,
// unchanged tree), and the CLI runs the self-tests start use it compiled
// (cli/cli-kit.ts, scriptArgv): tsx's loader would cost each of them about
// 1.5 CPU-seconds. The run the installed package is compared with stays a
// run from source.
//   SELFTEST_JOBS: processes at once beside those (default 4).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { setPriority, tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { filesEndingWith } from "../fixtures/paths.ts";
import { ROOT } from "../fixtures/paths.ts";
import type { Tally } from "./tally.ts";
import { buildProduct } from "./cli/cli-kit.ts";

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
/** Files whose measurements depend on the load: they run at the normal priority, every other file at BACKGROUND_NICE. */
const AS_IF_ALONE = ["models.test.ts"];
/**
 * The others' niceness: at 5 a process weighs about a third of one at 0 for
 * the scheduler (Linux), so the kill rates get most of what they ask for and
 * the others keep a share when they take both cores (at 10, a tenth: their
 * requests waited over 10 s for an answer in the kill rates' first seconds).
 * Raising one's niceness needs no privilege.
 */
const BACKGROUND_NICE = 5;

interface Job {
  name: string;
  /** Test files, run by worker.ts; none for the shared runs' process. */
  files: string[];
}
/** The process that makes the shared runs in a full run. */
const SHARED_RUNS: Job = { name: "shared runs (shared-runs.ts: the installed package's, the external emulator's)", files: [] };

/** Directories of quick files (a second or two each), which share one process: its start would cost more than they do. */
const QUICK = ["unit/", "report/"];

/** One job per file, but the quick ones together. */
function jobs(): Job[] {
  const files = filesEndingWith(here, ".test.ts");
  const quick = files.filter((f) => QUICK.some((d) => relative(here, f).startsWith(d)));
  const rest = files.filter((f) => !quick.includes(f));
  return [
    ...(quick.length ? [{ name: `${QUICK.join(", ")} (one process)`, files: quick }] : []),
    ...rest.map((f) => ({ name: relative(here, f), files: [f] })),
  ];
}

/** Wall seconds per file in the last full run. */
function lastTimes(): Record<string, number> {
  try {
    return existsSync(TIMES) ? (JSON.parse(readFileSync(TIMES, "utf8")) as { seconds: Record<string, number> }).seconds : {};
  } catch {
    return {};
  }
}

async function runJob(
  job: Job,
  scratch: string,
  nice: number,
): Promise<{ job: Job; tally: Tally; seconds: number; output: string; code: number | null }> {
  const tallyPath = join(scratch, `${job.name.replace(/[^a-z0-9]+/gi, "-")}.json`);
  const started = Date.now();
  const script =
    job === SHARED_RUNS
      ? ["shared-runs.ts", "--tally", tallyPath]
      : ["worker.ts", "--tally", tallyPath, ...(grep ? ["--grep", grep] : []), ...job.files];
  const child = spawn(process.execPath, ["--import", "tsx", join(here, script[0]), ...script.slice(1)], {
    cwd: ROOT,
    env: { ...process.env, SELFTEST_SHARED_DIR: scratch },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // Before it has loaded anything, so every process it starts inherits the priority.
  if (nice && child.pid !== undefined) {
    try {
      setPriority(child.pid, nice);
    } catch {
      // gone already (its exit is reported below), or a platform that refuses: it runs at the normal priority
    }
  }
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
const buildFailed = buildProduct();
if (buildFailed !== undefined) {
  console.log(`The product does not build (npm run build):\n${buildFailed}`);
  console.log("0 passed, 1 failed, 0 skipped");
  process.exit(1);
}
process.env.SELFTEST_BUILT = "1";
const times = lastTimes();
const seconds = (j: Job) => times[j.name] ?? 0;
const scratch = mkdtempSync(join(tmpdir(), "selftest-"));
const ran = (t: Tally) => t.passes + t.failures + t.pending > 0;
/** A process that ran tests, ended badly or made the shared runs. */
const shown = (r: { job: Job; tally: Tally; code: number | null }) => ran(r.tally) || r.code !== 0 || r.job === SHARED_RUNS;
const report = async (job: Job, nice = 0) => {
  const r = await runJob(job, scratch, nice);
  // Whole, so the outputs of processes side by side do not interleave; a file the grep left empty says nothing.
  if (shown(r)) process.stdout.write(`\n===== ${job.name} (${Math.round(r.seconds)} s) =====\n${r.output}`);
  return r;
};
// The shared runs (in a full run), then the files measured as if alone, at
// the normal priority; beside them every other file, JOBS at once at the
// lower one, the longest first.
const all = jobs();
const asIfAlone = all.filter((j) => AS_IF_ALONE.includes(j.name));
const left = all.filter((j) => !asIfAlone.includes(j)).sort((a, b) => seconds(b) - seconds(a));
const done: Awaited<ReturnType<typeof report>>[] = [];
await Promise.all([
  (async () => {
    for (const job of [...(grep ? [] : [SHARED_RUNS]), ...asIfAlone]) done.push(await report(job));
  })(),
  ...Array.from({ length: JOBS }, async () => {
    for (let job = left.shift(); job; job = left.shift()) done.push(await report(job, BACKGROUND_NICE));
  }),
]);

const total = done.reduce(
  (t, r) => ({ passes: t.passes + r.tally.passes, failures: t.failures + r.tally.failures, pending: t.pending + r.tally.pending }),
  { passes: 0, failures: 0, pending: 0 },
);
const wall = Math.round((Date.now() - started) / 1000);
if (!grep) {
  const record = {
    date: new Date().toISOString().slice(0, 10),
    node: process.version,
    jobs: JOBS,
    wallSeconds: wall,
    tests: total,
    seconds: Object.fromEntries([...done].sort((a, b) => b.seconds - a.seconds).map((r) => [r.job.name, Math.round(r.seconds)])),
    cpuSeconds: Object.fromEntries(
      [...done]
        .sort((a, b) => (b.tally.cpuSeconds ?? 0) - (a.tally.cpuSeconds ?? 0))
        .map((r) => [r.job.name, Math.round(r.tally.cpuSeconds ?? 0)]),
    ),
  };
  writeFileSync(TIMES, JSON.stringify(record, null, 2) + "\n");
}
console.log(`\nself-test wall time per file (${JOBS} at once), slowest first, with CPU time:`);
for (const r of [...done].sort((a, b) => b.seconds - a.seconds).filter(shown)) {
  const cpu = r.tally.cpuSeconds === undefined ? "" : `${Math.round(r.tally.cpuSeconds)} s CPU`;
  console.log(
    `  ${String(Math.round(r.seconds)).padStart(4)} s ${cpu.padStart(10)}  ${r.job.name}  (${r.tally.passes} passed, ${r.tally.failures} failed, ${r.tally.pending} skipped)`,
  );
  if (r.job.files.length < 2) continue;
  for (const [f, sec] of Object.entries(r.tally.perFile ?? {}).sort((a, b) => b[1] - a[1]))
    console.log(`  ${sec.toFixed(1).padStart(16)} s  ${relative(here, f)}`);
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
