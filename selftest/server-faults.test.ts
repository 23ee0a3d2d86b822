// A target that errs is not a target that is silent. Through the proxy:
// - four families of operations answered with a server error on every request
//   (Lease Blob change 500 InternalError, Put Block List 502 from a gateway,
//   Update Message 500, Merge Entity 502), while 2 % of the other reads at
//   random get a 500 that a retry gets past. Over the rows that send those
//   operations and one in twenty of the others: every row that met a family FAILs,
//   naming only its fault, every try in its evidence, in both runs; every
//   other row keeps its verdict; the run fails (exit 1), and with the
//   operations pinned under `faults` it does not.
// - through the CLI, Update Message never answered and Get Entity / Query
//   Entities answered past the client's timeout (the reads secondLater polls):
//   those rows are INCONCLUSIVE, never FAIL, and the run exits 4 (incomplete).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import { judge, loadExpectations } from "../fixtures/harness/expectations.ts";
import { loadAllSuites, runHeadless } from "./headless.ts";
import { registeredRows } from "../fixtures/harness/registry.ts";
import { changesState } from "../fixtures/wire/retry.ts";
import { exitCodeOf, INCOMPLETE_EXIT_CODE, operationFamily, summarise, type OperationPin, type RowResult } from "../model/result.ts";
import { serverVersions } from "../model/versions.ts";
import { sharedAzurite } from "./azurite-fixture.ts";
import { proxiedBaseline } from "./baseline.ts";
import { atOrAbove, changedVerdicts, metNoAnswer, readReport, runCli, tmpDir, toldIds } from "./cli/cli-kit.ts";
import { operation } from "./mutants/types.ts";
import { startProxy, type Fault, type ProxyStats } from "./proxy.ts";

interface Family {
  operation: string;
  status: number;
  /** None: a gateway's plain-text answer. */
  code?: string;
}

const FAMILIES: Family[] = [
  { operation: "Lease Blob (change)", status: 500, code: "InternalError" },
  { operation: "Put Block List", status: 502 },
  { operation: "Update Message", status: 500, code: "InternalError" },
  { operation: "Merge Entity", status: 502 },
];
const SPORADIC_SHARE = 0.02;
/** One row in this many of those that send no faulting operation runs too, beside the sporadic 500s. */
const OTHERS_ONE_IN = 20;
const MAX_TRIES = 4;

await loadAllSuites();

const inFamily = (op: string | undefined) => !!op && FAMILIES.some((f) => f.operation === op || f.operation === operationFamily(op));

/** Rows that met a faulting operation: their own exchanges did, or (a derived cell) a row it is computed from. */
function metIt(results: RowResult[]): Set<string> {
  const met = new Set(
    results.filter((r) => [...r.evidence, ...(r.retried?.evidence ?? [])].some((ex) => inFamily(ex.operation))).map((r) => r.id),
  );
  for (const { row } of registeredRows()) if (row.derivedFrom?.some((id) => met.has(id))) met.add(row.id);
  return met;
}

const SILENT_GREP = "queue/update-message/|validators-advance/(update|merge)-entity";
const SILENT_TIMEOUT_MS = 1500;
let silent: Promise<{ res: Awaited<ReturnType<typeof runCli>>; dir: string }> | undefined;
/**
 * Through the CLI, Update Message never answered and the entity reads answered
 * past the client's timeout; started once, beside the fault run (it needs no baseline).
 */
function silentRun() {
  silent ??= (async () => {
    const proxy = await startProxy({
      upstream: (await sharedAzurite()).ports,
      faults: [
        { kind: "stall", stallMs: 60_000, match: (req) => operation(req) === "Update Message" },
        { kind: "slow", stallMs: SILENT_TIMEOUT_MS + 1000, match: (req) => operation(req) === "Query Entities" },
      ],
    });
    try {
      const dir = tmpDir("silent");
      const res = await runCli([
        "-c",
        proxy.connectionString,
        "--grep",
        SILENT_GREP,
        "--report-dir",
        dir,
        "--request-timeout",
        String(SILENT_TIMEOUT_MS),
        "--max-tries",
        "2",
      ]);
      return { res, dir };
    } finally {
      await proxy.stop();
    }
  })();
  return silent;
}

interface FaultRun {
  results: RowResult[];
  versions: Record<string, string>;
  stats: ProxyStats;
}

describe("a target that errs: a server error on every try is an answer", function () {
  let run: FaultRun;
  let baseline = new Map<string, RowResult>();
  let met = new Set<string>();
  /** The rows of `met` whose runs got an answer to every try. */
  let told = new Set<string>();
  let tooLate: (id: string) => boolean = () => false;

  before(async function () {
    void silentRun().catch(() => undefined);
    const [a, base] = await Promise.all([sharedAzurite(), proxiedBaseline()]);
    baseline = new Map(base.map((x) => [x.id, x]));
    const selected = metIt(base);
    registeredRows().forEach(({ row }, i) => {
      if (i % OTHERS_ONE_IN === 2) selected.add(row.id);
    });
    const faults: Fault[] = [
      ...FAMILIES.map((f): Fault => ({ kind: "error", status: f.status, code: f.code, match: (req) => operation(req) === f.operation })),
      // Legal bad luck: a read now and then answered 500; its retry gets the real answer.
      {
        kind: "error",
        status: 500,
        code: "InternalError",
        match: (req) => !changesState(req) && !inFamily(operation(req)) && Math.random() < SPORADIC_SHARE,
      },
    ];
    const proxy = await startProxy({ upstream: a.ports, faults });
    try {
      const r = await runHeadless({
        connectionString: proxy.connectionString,
        expectations: "azurite",
        maxTries: MAX_TRIES,
        select: (id) => selected.has(id),
      });
      run = {
        results: r.results,
        versions: serverVersions(Object.fromEntries(r.probes.map((p) => [p.service, p.server]))),
        stats: proxy.stats,
      };
    } finally {
      await proxy.stop();
    }
    met = metIt(run.results);
    for (const id of [...met]) if (!run.results.some((r) => r.id === id)) met.delete(id);
    // This proxy answers every request it faults: a try with no answer at all (timed out, reset) is the loaded
    // machine's, and its row (and the cell above it) is too late to tell. A floor keeps most of them compared.
    tooLate = atOrAbove(run.results.filter(metNoAnswer).map((r) => r.id));
    told = new Set(toldIds("rows that met a faulting operation", [...met], tooLate));
    console.log(
      `    ${run.results.length} rows, ${met.size} met a faulting operation (${met.size - told.size} of them too late to tell); ${run.stats.faults.error} requests answered with a server error`,
    );
  });

  it("every family is met, and every row that met one FAILs naming only its fault, in both runs", function () {
    const families = new Set(run.results.flatMap((r) => r.faults ?? []).map((f) => f.operation));
    expect([...families].sort(), "faulting operations named by the rows").to.deep.equal(FAMILIES.map((f) => f.operation).sort());
    const wrong = run.results
      .filter((r) => told.has(r.id))
      // A row pinned as failing otherwise FAILs as differing from its pin; a derived cell names its rows' faults.
      .filter(
        (r) =>
          r.status !== "FAIL" ||
          r.observed !== "FAIL" ||
          !r.faults?.length ||
          r.faults.some((f) => !inFamily(f.operation)) ||
          !/server fault: /.test(r.message ?? ""),
      )
      .map((r) => `${r.id}: ${r.status} ${JSON.stringify(r.faults ?? [])} ${r.message ?? ""}`);
    expect(wrong, wrong.join("\n")).to.deep.equal([]);
  });

  it("the message names the operation, its answer and the tries, and the evidence holds every try of both runs", function () {
    const bad: string[] = [];
    for (const r of run.results.filter((x) => told.has(x.id) && !registeredRows().find((e) => e.row.id === x.id)?.row.derivedFrom)) {
      const f = r.faults![0];
      const family = FAMILIES.find((x) => x.operation === f.operation)!;
      const said = `${f.operation} answered ${family.status}${family.code ? " " + family.code : ""} to every try (${MAX_TRIES})`;
      if (!r.message?.includes(said)) bad.push(`${r.id}: message does not say "${said}": ${r.message}`);
      if (!r.retried) bad.push(`${r.id}: not run again`);
      for (const [which, evidence] of [
        ["first run", r.retried?.evidence ?? []],
        ["re-run", r.evidence],
      ] as const) {
        const tries = evidence.filter((ex) => ex.operation === f.operation && ex.status === family.status);
        if (tries.length < MAX_TRIES) bad.push(`${r.id}: the ${which}'s evidence holds ${tries.length} tries of ${f.operation}`);
      }
    }
    expect(bad, bad.join("\n")).to.deep.equal([]);
  });

  it("every other row keeps its verdict, the sporadic 500s retried away", function () {
    expect(run.stats.faults.error, "requests answered with a server error").to.be.greaterThan(0);
    const sporadic = run.results
      .filter((r) => !met.has(r.id))
      .flatMap((r) => r.evidence)
      .filter((ex) => ex.retried && ex.status === 500);
    expect(sporadic.length, "sporadic 500s retried in the rows' evidence").to.be.greaterThan(0);
    const changed = changedVerdicts("the faulty run and the baseline", run.results, [...baseline.values()], (id) => met.has(id));
    expect(changed, changed.join("\n")).to.deep.equal([]);
  });

  it("the run fails (exit 1); with the operations pinned under `faults` it passes (exit 0)", function () {
    expect(summarise(run.results.filter((r) => !tooLate(r.id))).failed, "rows failing the run").to.equal(told.size);
    expect(exitCodeOf(run.results)).to.equal(1);
    // Azurite's own pins, the operations it lacks among them, and the self-test's faults.
    const { pins, unsupported } = loadExpectations("azurite");
    const faultPins: Record<string, OperationPin> = Object.fromEntries(
      FAMILIES.map((f) => [f.operation, { reason: "the self-test's target crashes on it" }]),
    );
    const rejudged = run.results
      .filter((r) => !tooLate(r.id))
      .map((r) => judge({ ...r, status: r.observed, expectation: undefined }, pins[r.id], run.versions[r.service], unsupported, faultPins));
    const failing = rejudged.filter((r) => summarise([r]).failed > 0).map((r) => `${r.id}: ${r.status} ${r.message ?? ""}`);
    expect(failing, failing.join("\n")).to.deep.equal([]);
    expect(rejudged.filter((r) => r.status === "EXPECTED_FAIL" && r.expectation?.operations?.length).length).to.equal(told.size);
    expect(exitCodeOf(rejudged)).to.equal(0);
  });
});

describe("a target that is silent: no answer decides nothing, and the run says it is incomplete", function () {
  it("rows that met them are INCONCLUSIVE, never FAIL; the run exits 4, says why, and JUnit marks them as errors", async function () {
    const { res, dir } = await silentRun();
    expect(res.code, res.stderr + res.stdout.slice(-3000)).to.equal(INCOMPLETE_EXIT_CODE);
    const report = readReport(dir);
    const failed = report.results
      .filter((r) => ["FAIL", "UNEXPECTED_PASS"].includes(r.status))
      .map((r) => `${r.id}: ${r.status} ${r.message}`);
    expect(failed, failed.join("\n")).to.deep.equal([]);
    const undecided = report.results.filter((r) => r.status === "INCONCLUSIVE");
    expect(undecided.map((r) => r.id)).to.include.members([
      "general/validators-advance/update-entity",
      "general/validators-advance/merge-entity",
    ]);
    expect(
      undecided.some((r) => r.id.startsWith("queue/update-message/")),
      "an Update Message row",
    ).to.equal(true);
    expect(res.stdout).to.match(/No verdict: \d+ row\(s\) could not be decided \([^)]*a request timed out/);
    const junit = readFileSync(join(dir, "junit.xml"), "utf8");
    expect((junit.match(/<error /g) ?? []).length, "JUnit errors").to.equal(undecided.length);
    expect(readFileSync(join(dir, "conformance.md"), "utf8")).to.include("## Rows no answer decided");
  });
});
