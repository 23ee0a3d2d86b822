// Half-featured targets. The proxy answers one family of operations with 501
// NotImplemented, as a young emulator does (selftest/unsupported-modes.ts).
// For each mode, over the rows that need the operation and a fifth of the
// others (every row runs in one mode or another): every row that met the
// operation is UNSUPPORTED and names only that family; every other row keeps
// the verdict it has through the proxy on a complete target; the run fails
// (exit 1), and with the mode's per-operation pins it does not (exit 0).
// Through the CLI, for one mode: exit codes 1 and 0, and the reports name the
// operation.
import { join } from "node:path";
import { readFileSync, writeFileSync } from "node:fs";
import { expect } from "chai";
import { judge, loadExpectations } from "../fixtures/harness/expectations.ts";
import { runHeadless } from "./headless.ts";
import { registeredRows } from "../fixtures/harness/registry.ts";
import { summarise, type OperationPin, type RowResult } from "../model/result.ts";
import { serverVersions } from "../model/versions.ts";
import { sharedAzurite } from "./azurite-fixture.ts";
import { proxiedBaseline } from "./baseline.ts";
import { changedVerdicts, readReport, runCli, tmpDir, toldIds, tooLateToTell } from "./cli/cli-kit.ts";
import { RUN_SEED } from "./cli/installed-run.ts";
import { startProxy } from "./proxy.ts";
import { lacks, UNSUPPORTED_MODES, unsupportedBy, type UnsupportedMode } from "./unsupported-modes.ts";

interface ModeRun {
  results: RowResult[];
  versions: Record<string, string>;
  answered501: number;
}

/**
 * The rows a mode runs: those that sent one of its operations through the
 * proxy on a complete target (and the cells derived from them), and one in
 * five of the others, a different fifth per mode, so that across the modes
 * every row meets a half-featured target once. The others would meet nothing
 * new: five full runs would cost five times one.
 */
function rowsFor(mode: UnsupportedMode, baseline: RowResult[]): Set<string> {
  const index = UNSUPPORTED_MODES.indexOf(mode);
  const ids = metIt(mode, baseline);
  registeredRows().forEach(({ row }, i) => {
    if (i % UNSUPPORTED_MODES.length === index) ids.add(row.id);
  });
  return ids;
}

let runs: Map<string, Promise<ModeRun>> | undefined;
/** Every mode's run, started together once the baseline has told which rows send what (their waits overlap). */
function modeRuns(): Map<string, Promise<ModeRun>> {
  runs ??= new Map(
    UNSUPPORTED_MODES.map((mode) => [
      mode.name,
      (async () => {
        const [a, baseline] = await Promise.all([sharedAzurite(), proxiedBaseline()]);
        const selected = rowsFor(mode, baseline);
        const proxy = await startProxy({ upstream: a.ports, unsupported: unsupportedBy(mode) });
        try {
          // The baseline's seed: a model row that met the operation there draws the same sequences here, and so meets it again.
          const run = await runHeadless({
            connectionString: proxy.connectionString,
            expectations: "azurite",
            select: (id) => selected.has(id),
            seed: Number(RUN_SEED),
          });
          const versions = serverVersions(Object.fromEntries(run.probes.map((p) => [p.service, p.server])));
          return { results: run.results, versions, answered501: proxy.stats.unsupported };
        } finally {
          await proxy.stop();
        }
      })(),
    ]),
  );
  return runs;
}

const pinsOf = (mode: UnsupportedMode): Record<string, OperationPin> =>
  Object.fromEntries(mode.operations.map((o) => [o, { reason: `the self-test's target has ${mode.description}` }]));

/** Rows that met the operation: their own exchanges did, or (a derived cell) one of the rows it is computed from. */
function metIt(mode: UnsupportedMode, results: RowResult[]): Set<string> {
  const met = new Set(results.filter((r) => r.evidence.some((ex) => ex.operation && lacks(mode, ex.operation))).map((r) => r.id));
  for (const { row } of registeredRows()) if (row.derivedFrom?.some((id) => met.has(id))) met.add(row.id);
  return met;
}

describe("half-featured targets: a 501 is an answer, not bad luck", function () {
  for (const mode of UNSUPPORTED_MODES) {
    describe(`a target with ${mode.description} (${mode.operations.join(", ")} answered 501)`, function () {
      let run: ModeRun;
      let baseline = new Map<string, RowResult>();
      let met = new Set<string>();
      let late = new Set<string>();
      before(async function () {
        const [r, b] = await Promise.all([modeRuns().get(mode.name)!, proxiedBaseline()]);
        run = r;
        baseline = new Map(b.map((x) => [x.id, x]));
        met = metIt(mode, run.results);
        late = new Set(run.results.filter((r) => tooLateToTell(r)).map((r) => r.id));
      });
      /** The rows that met the operation, but those the loaded machine then left without an answer. */
      const toldMet = () => toldIds("the rows that met the operation", [...met], (id) => late.has(id));

      it("rows need the operation, and every one that met it is UNSUPPORTED, naming only it", function () {
        expect(run.answered501, "requests the proxy answered 501").to.be.greaterThan(0);
        expect(met.size, "rows that met the operation").to.be.greaterThan(0);
        const missed = [...metIt(mode, [...baseline.values()])].filter((id) => !met.has(id) && !late.has(id));
        expect(missed, "rows that sent the operation in the baseline run (same seed) but did not meet it here").to.deep.equal([]);
        const told = new Set(toldMet());
        const wrong = run.results
          .filter((r) => told.has(r.id))
          .filter((r) => r.status !== "UNSUPPORTED" || !r.unsupported?.length || r.unsupported.some((u) => !lacks(mode, u.operation)))
          .map((r) => `${r.id}: ${r.status} ${JSON.stringify(r.unsupported ?? [])} ${r.message ?? ""}`);
        expect(wrong, wrong.join("\n")).to.deep.equal([]);
      });

      it("every other row keeps its verdict (as through the proxy on a complete target)", function () {
        const changed = changedVerdicts("the half-featured run and the baseline", run.results, [...baseline.values()], (id) => met.has(id));
        expect(changed, changed.join("\n")).to.deep.equal([]);
        // A 501 is an answer: no row is left INCONCLUSIVE by it, only (on a saturated machine) by no answer in time.
        expect(
          run.results.filter((r) => r.status === "INCONCLUSIVE" && !tooLateToTell(r)).map((r) => `${r.id}: ${r.message}`),
          "rows INCONCLUSIVE",
        ).to.deep.equal([]);
        // A row the engine ran again after its first run got no answer (five proxied runs share the
        // machine with other self-tests) counts by its final verdict, checked above; it is shown here.
        for (const r of run.results.filter((x) => x.retried))
          console.log(`      re-run ${r.id}: ${(r.retried!.message ?? "").split("\n")[0].slice(0, 200)}`);
      });

      it("the run fails (exit 1); with the operations pinned it passes (exit 0)", function () {
        // A row that met the operation and was then left without an answer by the loaded machine fails nothing.
        const told = toldMet();
        expect(summarise(run.results).failed, "rows failing the run").to.equal(told.length);
        // Azurite's own pins (the operations it lacks among them) beside the self-test's.
        const { pins, unsupported } = loadExpectations("azurite");
        const rejudged = run.results.map((r) =>
          judge({ ...r, status: r.observed, expectation: undefined }, pins[r.id], run.versions[r.service], {
            ...unsupported,
            ...pinsOf(mode),
          }),
        );
        const failing = rejudged.filter((r) => summarise([r]).failed > 0).map((r) => `${r.id}: ${r.status} ${r.message ?? ""}`);
        expect(failing, failing.join("\n")).to.deep.equal([]);
        expect(rejudged.filter((r) => r.status === "UNSUPPORTED" && r.unsupported?.some((u) => lacks(mode, u.operation))).length).to.equal(
          told.length,
        );
      });
    });
  }

  it("every row ran on one half-featured target or another", async function () {
    const ran = new Set((await Promise.all([...modeRuns().values()])).flatMap((r) => r.results.map((x) => x.id)));
    expect(
      registeredRows()
        .map(({ row }) => row.id)
        .filter((id) => !ran.has(id)),
    ).to.deep.equal([]);
  });

  describe("through the CLI: a target with no page blobs", function () {
    const mode = UNSUPPORTED_MODES.find((m) => m.name === "page-blobs")!;
    // The rows that need page blobs, beside rows of the same tables that do not.
    const GREP = "put-page|get-page-ranges|lease-ops/put-blob/|blob-ops/put-blob/etag";
    let proxy: Awaited<ReturnType<typeof startProxy>>;
    before(async function () {
      proxy = await startProxy({ upstream: (await sharedAzurite()).ports, unsupported: unsupportedBy(mode) });
    });
    after(async function () {
      await proxy?.stop();
    });

    it("exits 1 and names the missing operation once, in the console and the reports", async function () {
      const dir = tmpDir("unsupported");
      const res = await runCli(["-c", proxy.connectionString, "--grep", GREP, "--report-dir", dir]);
      expect(res.code, res.stderr + res.stdout.slice(-2000)).to.equal(1);
      expect(res.stdout).to.match(
        /Operations the target does not implement[^\n]*\n\s+Put Blob \(PageBlob\): 501 NotImplemented, \d+ row\(s\); not pinned/,
      );
      expect(res.stdout, "no row is INCONCLUSIVE").to.not.match(/INCONCLUSIVE/);
      const report = readReport(dir);
      expect(report.summary.UNSUPPORTED).to.be.greaterThan(0);
      expect(report.results.filter((r) => r.status === "PASS").length, "rows that do not need page blobs still pass").to.be.greaterThan(0);
      const md = readFileSync(join(dir, "conformance.md"), "utf8");
      expect(md).to.include("## Operations the target does not implement").and.include("| Put Blob (PageBlob) | 501 NotImplemented |");
    });

    it("exits 0 once the expectation file pins the operations", async function () {
      const dir = tmpDir("unsupported-pinned");
      const file = join(dir, "half-featured.json");
      writeFileSync(
        file,
        JSON.stringify({ target: "half-featured", pins: loadExpectations("azurite").pins, unsupported: pinsOf(mode) }, null, 2),
      );
      const res = await runCli(["-c", proxy.connectionString, "--grep", GREP, "--report-dir", dir, "-e", file]);
      expect(res.code, res.stderr + res.stdout.slice(-2000)).to.equal(0);
      expect(res.stdout).to.match(/Put Blob \(PageBlob\): 501 NotImplemented, \d+ row\(s\); pinned as "Put Blob \(PageBlob\)"/);
      expect(
        readReport(dir)
          .results.filter((r) => r.status === "UNSUPPORTED")
          .every((r) => r.expectation?.status === "UNSUPPORTED"),
      ).to.equal(true);
    });
  });
});
