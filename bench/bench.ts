// `npm run bench`: runs the full suite against the embedded Azurite several
// times and prints, per run and as medians: wall time, the longest mandated
// wait in the run, the floor (that wait + Azurite's start), their ratio, the
// request count, the CPU it cost and peak memory (user + system CPU and RSS of
// the suite plus its Azurite child).
// Also compares the runs' verdicts (flakiness), and draws each run's timeline
// (timeline.ts: requests in flight, the rows that ended last and their
// chains). With --latency, runs through a proxy adding that latency to every
// request and at 0 ms, and gives the floor at that latency (the longest chain
// of waits and sequential requests) next to the wall time achieved. With --beside N, each
// run is made with N other full runs started at the same moment (a loaded
// machine), and every row of every such run that is not as expected (a FAIL,
// an UNEXPECTED_PASS, an INCONCLUSIVE) is listed. Then the time to the first
// row, compiled and from source (first-row.ts). Figures go to the README and
// docs/developing.md; no test asserts on them.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Command } from "commander";
import { startAzurite } from "../fixtures/azurite/azurite.ts";
import { SUITE_NODE_FLAGS } from "../fixtures/heap.ts";
import { ROOT } from "../fixtures/paths.ts";
import type { Report } from "../model/result.ts";
import { firstRowTimes } from "./first-row.ts";
import { chainAt, chainsOf, describeTimeline, floorAt, type Chain } from "./timeline.ts";

const program = new Command()
  .name("bench")
  .option("-n, --runs <n>", "full runs to make", "3")
  .option("--args <args>", 'extra arguments for each run (e.g. "--concurrency 16")', "")
  .option("--out <file>", "where to write the figures as JSON", "reports/bench.json")
  .option(
    "--latency <ms>",
    "also run through the self-test proxy with this much latency added per request, and compare with the proxy at 0 ms",
  )
  .option(
    "--beside <n>",
    "make each run with this many other full runs beside it (a loaded machine), and list every row not as expected in any of them",
    "0",
  )
  .parse();
const opts = program.opts<{ runs: string; args: string; out: string; latency?: string; beside: string }>();

/** The process and its descendants, by pid. */
function treeOf(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = Number(/PPid:\s+(\d+)/.exec(readFileSync(`/proc/${d}/status`, "utf8"))?.[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      /* process gone */
    }
  }
  const out: number[] = [];
  const stack = [rootPid];
  while (stack.length) {
    const p = stack.pop()!;
    out.push(p);
    stack.push(...(children.get(p) ?? []));
  }
  return out;
}

const TICKS_PER_S = 100;
/**
 * CPU seconds (user + system) each process of a tree has used so far, by pid:
 * sampled while the run lasts, the last sample of each process counts (the
 * run's own process and its Azurite child live the whole run).
 */
function sampleCpu(tree: number[], seen: Map<number, number>): void {
  for (const pid of tree) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
      seen.set(pid, (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S);
    } catch {
      /* process gone */
    }
  }
}

function rssOfTree(tree: number[]): number {
  let kb = 0;
  for (const pid of tree) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      /* process gone */
    }
  }
  return kb * 1024;
}

interface RunFigures {
  wallMs: number;
  longestWaitS: number;
  azuriteStartMs: number;
  ratio: number;
  requests: number;
  peakRssMb: number;
  /** CPU seconds, user + system, of the run and its embedded Azurite. */
  cpuS: number;
  exitCode: number;
  verdicts: Record<string, string>;
  /** Rows not as expected: FAIL, UNEXPECTED_PASS, INCONCLUSIVE, with their messages. */
  unexpected: string[];
  /** Per row: its mandated wait, its sequential requests outside the wait, when it ended, how long it took. */
  paths: Chain[];
  /** The timeline in words (requests in flight, the rows that ended last), at the run's latency. */
  timeline: (latencyMs: number) => string[];
}

function describePath(c: Chain, latencyMs: number): string {
  return `${c.id}: ${c.waitS} s of waits, ${c.sequential} sequential requests × ${latencyMs} ms: a chain of ${chainAt(c, latencyMs).toFixed(1)} s (it took ${c.durationS.toFixed(1)} s)`;
}

async function measureAzuriteStart(): Promise<number> {
  const t0 = Date.now();
  const a = await startAzurite();
  const ms = Date.now() - t0;
  await a.stop();
  return ms;
}

async function oneRun(i: number, azuriteStartMs: number, connectionString?: string): Promise<RunFigures> {
  const dir = mkdtempSync(join(tmpdir(), `bench-${i}-`));
  const target = connectionString ? ["--connection-string", connectionString] : [];
  // As `npm test` runs it (package.json), with the same V8 flags (fixtures/heap.ts).
  const args = [
    ...SUITE_NODE_FLAGS,
    "--import",
    "tsx",
    join(ROOT, "bin/conformance.ts"),
    "--report-dir",
    dir,
    ...target,
    ...opts.args.split(" ").filter(Boolean),
  ];
  const env = { ...process.env };
  delete env.AZURE_STORAGE_CONNECTION_STRING;
  const t0 = Date.now();
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "ignore", "inherit"] });
  let peak = 0;
  const cpu = new Map<number, number>();
  const sampler = setInterval(() => {
    const tree = treeOf(child.pid!);
    peak = Math.max(peak, rssOfTree(tree));
    sampleCpu(tree, cpu);
  }, 200);
  const exitCode = await new Promise<number>((r) => child.on("exit", (c) => r(c ?? 1)));
  clearInterval(sampler);
  const wallMs = Date.now() - t0;
  const report = JSON.parse(readFileSync(join(dir, "conformance.json"), "utf8")) as Report & {
    results: { waitSeconds?: number }[];
  };
  const { registeredRows } = await import("../fixtures/harness/registry.ts");
  const { loadAllSuites } = await import("../fixtures/harness/registry.ts");
  await loadAllSuites();
  const waits = new Map(registeredRows().map((r) => [r.row.id, r.row.waitSeconds ?? 0]));
  const longestWaitS = Math.max(0, ...report.results.map((r) => waits.get(r.id) ?? 0));
  const requests = report.results.reduce((n, r) => n + r.evidence.length, 0);
  const floorMs = longestWaitS * 1000 + azuriteStartMs;
  const paths = chainsOf(report.results, (id) => waits.get(id) ?? 0);
  return {
    wallMs,
    longestWaitS,
    azuriteStartMs,
    ratio: Math.round((wallMs / floorMs) * 100) / 100,
    requests,
    peakRssMb: Math.round(peak / 1024 / 1024),
    cpuS: Math.round([...cpu.values()].reduce((a, b) => a + b, 0) * 10) / 10,
    exitCode,
    verdicts: Object.fromEntries(report.results.map((r) => [r.id, `${r.status} ${r.signature ?? ""}`.trim()])),
    unexpected: report.results
      .filter((r) => ["FAIL", "UNEXPECTED_PASS", "INCONCLUSIVE"].includes(r.status))
      .map((r) => `${r.id}: ${r.status}: ${(r.message ?? "").split("\n")[0].slice(0, 200)}`),
    paths,
    timeline: (latencyMs) => describeTimeline(report.results, paths, latencyMs),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const runs: RunFigures[] = [];
const azuriteStartMs = await measureAzuriteStart();
const beside = Number(opts.beside) || 0;
const besideUnexpected: string[] = [];
for (let i = 1; i <= Number(opts.runs); i++) {
  const [r, ...others] = await Promise.all(Array.from({ length: 1 + beside }, (_, k) => oneRun(i * 10 + k, azuriteStartMs)));
  runs.push(r);
  for (const [k, o] of others.entries()) {
    console.log(`  beside run ${i}.${k + 1}: wall ${(o.wallMs / 1000).toFixed(1)} s, exit ${o.exitCode}`);
    besideUnexpected.push(...o.unexpected.map((u) => `run ${i}.${k + 1}: ${u}`));
  }
  console.log(
    `run ${i}: wall ${(r.wallMs / 1000).toFixed(1)} s, longest wait ${r.longestWaitS} s, floor ${((r.longestWaitS * 1000 + azuriteStartMs) / 1000).toFixed(1)} s, ratio ${r.ratio}, ${r.requests} requests, CPU ${r.cpuS} s, peak RSS ${r.peakRssMb} MB, exit ${r.exitCode}`,
  );
  for (const line of r.timeline(0)) console.log(`  ${line}`);
}
let latency:
  | {
      latencyMs: number;
      baselineWallS: number;
      withLatencyWallS: number;
      ratio: number;
      floorS: number;
      ratioToFloor: number;
      criticalPath?: string;
    }
  | undefined;
if (opts.latency) {
  // Same Azurite and proxy for both, so the only difference is the added latency.
  const { startProxy } = await import("../selftest/proxy.ts");
  const azurite = await startAzurite();
  const walls: Record<string, number[]> = { base: [], slow: [] };
  const floors: number[] = [];
  let slowest: RunFigures | undefined;
  try {
    for (let i = 1; i <= Number(opts.runs); i++) {
      for (const [key, ms] of [
        ["base", 0],
        ["slow", Number(opts.latency)],
      ] as const) {
        const proxy = await startProxy({ upstream: azurite.ports, latencyMs: ms });
        const r = await oneRun(100 + i, 0, proxy.connectionString);
        await proxy.stop();
        walls[key].push(r.wallMs);
        if (ms > 0 && (!slowest || r.wallMs > slowest.wallMs)) slowest = r;
        const floor = floorAt(r.paths, ms);
        if (ms > 0) floors.push(floor.s);
        console.log(
          `proxy run ${i}, ${ms} ms added per request: wall ${(r.wallMs / 1000).toFixed(1)} s, floor ${floor.s.toFixed(1)} s (ratio ${(r.wallMs / 1000 / floor.s).toFixed(2)}), ${r.requests} requests, exit ${r.exitCode}`,
        );
        console.log(`  critical path: ${describePath(floor.row, ms)}`);
        for (const line of r.timeline(ms)) console.log(`  ${line}`);
      }
    }
  } finally {
    await azurite.stop();
  }
  const base = median(walls.base) / 1000;
  const slow = median(walls.slow) / 1000;
  const path = describePath(floorAt(slowest!.paths, Number(opts.latency)).row, Number(opts.latency));
  const floorS = median(floors);
  latency = {
    latencyMs: Number(opts.latency),
    baselineWallS: base,
    withLatencyWallS: slow,
    ratio: Math.round((slow / base) * 100) / 100,
    floorS,
    ratioToFloor: Math.round((slow / floorS) * 100) / 100,
    criticalPath: path,
  };
  console.log(
    `latency: median ${base.toFixed(1)} s at 0 ms, ${slow.toFixed(1)} s at ${opts.latency} ms per request: ratio ${latency.ratio}; floor at ${opts.latency} ms ${floorS.toFixed(1)} s (the longest chain of waits and sequential requests): ratio to it ${latency.ratioToFloor}`,
  );
  console.log(`  critical path at ${opts.latency} ms (slowest run, wall ${(slowest!.wallMs / 1000).toFixed(1)} s): ${path}`);
}

const firstRow = await firstRowTimes(Number(opts.runs));
const firstRowMedians = { compiledMs: median(firstRow.compiledMs), sourceMs: median(firstRow.sourceMs) };
console.log(
  `time to the first row: compiled (as installed) ${firstRow.compiledMs.join(", ")} ms (median ${firstRowMedians.compiledMs}), from source through tsx ${firstRow.sourceMs.join(", ")} ms (median ${firstRowMedians.sourceMs})`,
);

const first = JSON.stringify(runs[0].verdicts);
const identical = runs.filter((r) => JSON.stringify(r.verdicts) === first).length;
const summary = {
  machine: { cores: (await import("node:os")).cpus().length, node: process.version },
  runs: runs.length,
  medianWallS: median(runs.map((r) => r.wallMs)) / 1000,
  longestWaitS: runs[0].longestWaitS,
  azuriteStartS: azuriteStartMs / 1000,
  medianRatio: median(runs.map((r) => r.ratio)),
  medianRequests: median(runs.map((r) => r.requests)),
  peakRssMb: Math.max(...runs.map((r) => r.peakRssMb)),
  medianCpuS: median(runs.map((r) => r.cpuS)),
  identicalVerdicts: `${identical}/${runs.length}`,
  beside,
  notAsExpected: [...runs.flatMap((r, i) => r.unexpected.map((u) => `run ${i + 1}: ${u}`)), ...besideUnexpected],
  latency,
  firstRow: { ...firstRow, medians: firstRowMedians },
};
if (summary.notAsExpected.length) for (const u of summary.notAsExpected) console.log(`  not as expected: ${u}`);
if (identical !== runs.length) {
  for (const [i, r] of runs.entries()) {
    for (const [id, v] of Object.entries(r.verdicts))
      if (runs[0].verdicts[id] !== v) console.log(`  run ${i + 1} differs on ${id}: ${v} (run 1: ${runs[0].verdicts[id]})`);
  }
}
console.log(
  `median: wall ${summary.medianWallS.toFixed(1)} s, longest wait ${summary.longestWaitS} s + Azurite start ${summary.azuriteStartS.toFixed(1)} s, ratio ${summary.medianRatio}, ${summary.medianRequests} requests, CPU ${summary.medianCpuS} s, peak RSS ${summary.peakRssMb} MB, identical verdicts ${summary.identicalVerdicts}${beside ? `, ${beside} full run(s) beside each` : ""}, ${summary.notAsExpected.length} row(s) not as expected`,
);
mkdirSync(join(ROOT, "reports"), { recursive: true });
writeFileSync(
  resolve(ROOT, opts.out),
  JSON.stringify({ summary, runs: runs.map(({ verdicts: _v, paths: _p, unexpected: _u, timeline: _t, ...r }) => r) }, null, 2) + "\n",
);
