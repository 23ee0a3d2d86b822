// The suite can fail, and fails only for cause:
//  - no false alarms: the whole suite run directly against the embedded
//    Azurite (the installed package's shared run, cli/installed-run.ts) and
//    through the proxy with no mutant (the shared external run from source,
//    cli/external-run.ts, the baseline) gives the same result row by row;
//  - every mutant (selftest/mutants/*.ts) is killed by a test it names, and
//    that test does not fail without the mutant too (the no-mutant run is the
//    baseline); every T1 row is killed by some mutant; so is every other
//    row that passes or is pinned on Azurite (file/ rows aside: the file
//    double's mutants cover them), but for a short, reasoned exemption list;
//  - the pending-copy simulation some mutants build on changes no verdict by
//    itself (its control passes every Abort Copy Blob row);
//  - every mutant is well formed (unique name, its kills exist).
// The two full runs (made once for every self-test file) and the mutants run concurrently.
// Writes reports/mutation.json with the score and the self-test's wall time.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { ROOT } from "../fixtures/paths.ts";
import type { RowResult } from "../fixtures/harness/engine.ts";
import { loadAllSuites, runHeadless } from "./headless.ts";
import { readReport, toldIds, tooLateIn } from "./cli/cli-kit.ts";
import { embeddedRun } from "./cli/installed-run.ts";
import { registeredRows } from "../fixtures/harness/registry.ts";
import { sharedAzurite } from "./azurite-fixture.ts";
import {
  attribute,
  loadClaimTables,
  loadMutants,
  REPORT_PATH,
  retellRows,
  runMutant,
  runMutants,
  selector,
  type LoadedMutant,
} from "./mutate.ts";
import {
  buildReport,
  byTable,
  formatTable,
  formatTables,
  writeJson,
  writeReport,
  type MutantOutcome,
  type MutationReport,
} from "./mutation-report.ts";
import { startProxy } from "./proxy.ts";
import { proxiedBaseline } from "./baseline.ts";
import { PENDING_COPY_CONTROL } from "./mutants/lease-kit.ts";

/** Mutants at once, beside those whose rows mostly wait (mutate.ts, runMutants). */
const MUTANT_CONCURRENCY = 8;
const DIFF_PATH = join(ROOT, "tmp", "mutants", "no-mutant-differences.json");

/**
 * Rows that PASS or are pinned on Azurite and that no proxy mutant can make
 * fail, each with the reason. Keep it short: a row belongs here only if no
 * deviation of the target could fail it.
 */
const NOT_KILLABLE: Record<string, string> = {};

/** Statuses on Azurite for which a row must be killed by some mutant. */
const MUST_KILL = ["PASS", "EXPECTED_FAIL"];

await loadAllSuites();
// Stateful mutants of the model rows are judged by their kill rate over many seeds (models.test.ts).
const all: LoadedMutant[] = await loadMutants();
const mutants = all.filter((m) => !m.killRate);
const BY_KILL_RATE = new Set(all.filter((m) => m.killRate).flatMap((m) => m.kills));
const claimTables = await loadClaimTables();
/** The T1 rows, each of which some mutant must kill. */
const T1 = "blob/container-ops/";

/** Whether some mutant must kill the row (file/ rows aside: the file double's mutants cover them). */
function mustBeKilled(id: string, statusOnAzurite: string | undefined): boolean {
  return !id.startsWith("file/") && MUST_KILL.includes(statusOnAzurite ?? "") && !(id in NOT_KILLABLE) && !BY_KILL_RATE.has(id);
}

interface Work {
  direct: Promise<RowResult[]>;
  proxied: Promise<RowResult[]>;
  mutants: Promise<{ results: MutantOutcome[]; seconds: number }>;
  /** The rows PENDING_COPY_CONTROL names, run through it. */
  control: Promise<RowResult[]>;
}

/**
 * The mutants ordered slowest first (by their duration in the last report, else
 * the longest waitSeconds among the rows they name), so the long ones do not
 * start last and stretch the run. Order only: every mutant runs.
 */
function slowestFirst(all: LoadedMutant[]): LoadedMutant[] {
  let last = new Map<string, number>();
  try {
    if (existsSync(REPORT_PATH))
      last = new Map((JSON.parse(readFileSync(REPORT_PATH, "utf8")) as MutationReport).results.map((r) => [r.name, r.durationMs]));
  } catch {
    // No usable report: fall back to the rows' waits.
  }
  const rows = registeredRows();
  const cost = (m: LoadedMutant) =>
    last.get(m.name) ?? 1000 * Math.max(0, ...rows.filter(({ row }) => selector(m.kills)(row.id)).map(({ row }) => row.waitSeconds ?? 0));
  return [...all].sort((a, b) => cost(b) - cost(a));
}

let work: Work | undefined;
/** Starts everything at once on first use: both full runs and the mutants. */
function start(): Work {
  if (work) return work;
  const azurite = sharedAzurite();
  const proxied = proxiedBaseline();
  const mutantRuns = (async () => {
    const a = await azurite;
    const t0 = Date.now();
    const done = new Map((await runMutants(a, slowestFirst(mutants), { concurrency: MUTANT_CONCURRENCY })).map((r) => [r.name, r]));
    return { results: mutants.map((m) => done.get(m.name)!), seconds: (Date.now() - t0) / 1000 };
  })();
  const control = (async () => {
    const a = await azurite;
    const proxy = await startProxy({ upstream: a.ports, mutant: PENDING_COPY_CONTROL });
    try {
      return (
        await runHeadless({
          connectionString: proxy.connectionString,
          select: selector(PENDING_COPY_CONTROL.kills),
          expectations: "azurite",
        })
      ).results;
    } finally {
      await proxy.stop();
    }
  })();
  work = { direct: embeddedRun().then((run) => readReport(run.dir).results), proxied, mutants: mutantRuns, control };
  // Avoid unhandled-rejection noise; each describe awaits and reports its own.
  for (const p of Object.values(work)) (p as Promise<unknown>).catch(() => undefined);
  return work;
}

function outcome(r: RowResult): string {
  return `${r.status}${r.signature ? ` [${r.signature}]` : ""}`;
}

describe("no false alarms: the proxy without a mutant changes no verdict", function () {
  let direct: RowResult[] = [];
  let proxied: RowResult[] = [];
  before(async function () {
    [direct, proxied] = await Promise.all([start().direct, start().proxied]);
  });

  it("ran every registered row both ways", function () {
    const ids = registeredRows()
      .map((r) => r.row.id)
      .sort();
    expect(direct.map((r) => r.id).sort(), "direct run").to.deep.equal(ids);
    expect(proxied.map((r) => r.id).sort(), "proxied run").to.deep.equal(ids);
  });

  it("gives the same status and signature row by row", function () {
    const through = new Map(proxied.map((r) => [r.id, r]));
    // Two runs side by side with the others on a saturated machine: a row too late to tell in either is left out (cli-kit.ts).
    const compared = new Set(
      toldIds(
        "the direct and the proxied run",
        direct.map((d) => d.id),
        tooLateIn({ results: direct }, { results: proxied }),
      ),
    );
    const diffs: string[] = [];
    for (const d of direct) {
      const p = through.get(d.id);
      if (!p || !compared.has(d.id)) continue;
      if (outcome(d) !== outcome(p))
        diffs.push(`${d.id}: direct ${outcome(d)} (${d.message ?? ""}) but proxied ${outcome(p)} (${p.message ?? ""})`);
    }
    if (diffs.length) {
      // The evidence of both sides, for whoever investigates the difference.
      const ids = new Set(diffs.map((d) => d.slice(0, d.indexOf(":"))));
      const pick = (rs: RowResult[]) => rs.filter((r) => ids.has(r.id));
      writeJson(DIFF_PATH, { direct: pick(direct), proxied: pick(proxied) });
    }
    expect(diffs, `${diffs.join("\n")}\n(evidence: ${DIFF_PATH})`).to.deep.equal([]);
  });
});

describe("mutants are well formed", function () {
  it("have unique kebab-case names, a description and kills", function () {
    const seen = new Map<string, string>();
    const bad: string[] = [];
    for (const m of all) {
      if (seen.has(m.name)) bad.push(`${m.name}: defined in ${seen.get(m.name)} and ${m.topic}`);
      seen.set(m.name, m.topic);
      if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(m.name)) bad.push(`${m.name} (${m.topic}): not kebab-case`);
      if (!m.description?.trim()) bad.push(`${m.name} (${m.topic}): no description`);
      if (!m.kills?.length) bad.push(`${m.name} (${m.topic}): kills names no test`);
      if (!m.onRequest && !m.onResponse) bad.push(`${m.name} (${m.topic}): neither onRequest nor onResponse`);
    }
    expect(bad, bad.join("\n")).to.deep.equal([]);
  });

  it("name only registered test IDs (or prefixes of some) in kills", function () {
    const ids = registeredRows().map((r) => r.row.id);
    const bad: string[] = [];
    for (const m of all) {
      for (const k of m.kills ?? [])
        if (!ids.some(selector([k])))
          bad.push(`${m.name} (${m.topic}): ${k} is not a registered test ID${k.endsWith("/") ? " prefix" : ""}`);
    }
    expect(bad, bad.join("\n")).to.deep.equal([]);
  });
});

describe("every mutant is killed", function () {
  const byName = new Map<string, MutantOutcome>();
  let baseline = new Map<string, RowResult>();
  let report: MutationReport | undefined;

  before(async function () {
    const [{ results: raw, seconds }, proxied] = await Promise.all([start().mutants, start().proxied.catch(() => [] as RowResult[])]);
    baseline = new Map(proxied.map((r) => [r.id, r]));
    const statuses = new Map(proxied.map((r) => [r.id, r.status]));
    const judged = (r: MutantOutcome) => attribute([r], statuses)[0];
    const azurite = await sharedAzurite();
    const results = await retellRows(
      raw.map(judged),
      (id) => id.startsWith(T1) || mustBeKilled(id, statuses.get(id)),
      async (name, row) => judged(await runMutant(azurite, { ...mutants.find((m) => m.name === name)!, kills: [row] })),
    );
    for (const r of results) byName.set(r.name, r);
    for (const r of results.filter((x) => x.retold)) console.log(`  ${r.name}: row(s) run once more, alone: ${r.retold!.join("; ")}`);
    const killedRows = new Set(results.flatMap((r) => r.killers.map((k) => k.id)));
    const rowsNotKilled = registeredRows()
      .map(({ row }) => row.id)
      .filter((id) => !killedRows.has(id))
      .map((id) => ({ id, status: baseline.get(id)?.status ?? "not run" }));
    report = buildReport(results, {
      mutationWallTimeSeconds: Math.round(seconds * 10) / 10,
      wallTimeSeconds: Math.round(process.uptime()),
      rowsNotKilled,
      byTable: byTable(claimTables, results),
    });
    writeReport(REPORT_PATH, report);
    console.log("\n" + formatTable(results) + "\n\n" + formatTables(report.byTable!) + "\n");
    // The whole self-test's wall time is known only at exit: record it then.
    process.once("exit", () => {
      if (report) writeReport(REPORT_PATH, { ...report, wallTimeSeconds: Math.round(process.uptime()) });
    });
  });

  it("has mutants", function () {
    expect(mutants.length).to.be.greaterThan(0);
  });

  it("every claim of every table that generates mutants has a generated mutant its row kills", function () {
    expect(
      claimTables.map((t) => t.table),
      "tables",
    ).to.include.members([
      "T1 Container operations",
      "T2 Blob operations",
      "TB Table entities",
      "L Operations that honour a blob lease",
      "Q Queue settings (last writer wins)",
    ]);
    const missing = (report?.byTable ?? []).flatMap((t) => t.claimsNotKilled.map((c) => `${t.table} (${t.kind}): ${c}`));
    expect(missing, missing.join("\n")).to.deep.equal([]);
    const unknown = claimTables.flatMap((t) =>
      t.claims.flatMap((c) => c.mutants.filter((m) => !mutants.some((x) => x.name === m)).map((m) => `${t.table}: ${m}`)),
    );
    expect(unknown, `claims naming no loaded mutant: ${unknown.join(", ")}`).to.deep.equal([]);
  });

  it("kills every T1 container-operations row with some mutant", function () {
    const t1 = registeredRows()
      .map((r) => r.row.id)
      .filter((id) => id.startsWith(T1));
    const missing = (report?.rowsNotKilled ?? []).filter((r) => t1.includes(r.id)).map((r) => `${r.id} (${r.status} on Azurite)`);
    expect(t1.length, "T1 rows registered").to.be.greaterThan(0);
    expect(missing, `no mutant kills: ${missing.join(", ")}`).to.deep.equal([]);
  });

  it("kills every row that passes or is pinned on Azurite (file/ rows aside) with some mutant", function () {
    const missing = (report?.rowsNotKilled ?? [])
      .filter((r) => mustBeKilled(r.id, r.status))
      .map((r) => `${r.id} (${r.status} on Azurite)`);
    expect(missing, `no mutant kills: ${missing.join(", ")}`).to.deep.equal([]);
  });

  it("exempts only registered rows that no mutant kills", function () {
    const ids = new Set(registeredRows().map((r) => r.row.id));
    const notKilled = new Set((report?.rowsNotKilled ?? []).map((r) => r.id));
    const stale = Object.keys(NOT_KILLABLE).filter((id) => !ids.has(id) || !notKilled.has(id));
    expect(stale, `exemptions to remove (unregistered or killed after all): ${stale.join(", ")}`).to.deep.equal([]);
  });

  for (const m of mutants) {
    it(`${m.name} (${m.topic}) is killed`, function () {
      const r = byName.get(m.name);
      if (!r) throw new Error(`${m.name} was not run`);
      // Never fired, and every row it names is pinned as failing on the target: nothing to tell apart.
      if (r.verdict === "equivalent") this.skip();
      if (r.verdict !== "killed") {
        const ran = r.ran.map((t) => `${t.id} ${t.status}`).join(", ") || "none";
        throw new Error(`SURVIVED ${m.name}: ${m.description}. ${r.problem ?? `Named tests: ${ran}`}`);
      }
    });
  }
});

describe("the pending-copy simulation alone changes no verdict", function () {
  let results: RowResult[] = [];
  before(async function () {
    results = await start().control;
  });

  it("passes every Abort Copy Blob row it names through a correct pending copy", function () {
    expect(results.length, `rows matching ${JSON.stringify(PENDING_COPY_CONTROL.kills)}`).to.be.greaterThan(0);
    const bad = results.filter((r) => r.status !== "PASS").map((r) => `${r.id}: ${r.status} ${r.message ?? ""}`);
    expect(bad, bad.join("\n")).to.deep.equal([]);
  });
});
