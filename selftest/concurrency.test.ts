// Concurrency changes nothing: the rows run one at a time give the same IDs,
// verdicts and evidence as the rows run concurrently (the shared baseline,
// baseline.ts: the whole suite at its usual concurrency, with the same seed).
// Rows that must wait (lease expiry, visibility timeouts) are left out:
// serially they would cost minutes, and they run outside the pool in every
// mode anyway.
import { expect } from "chai";
import type { RowResult } from "../fixtures/harness/engine.ts";
import { loadAllSuites, runHeadless } from "./headless.ts";
import { registeredRows } from "../fixtures/harness/registry.ts";
import { sharedAzurite } from "./azurite-fixture.ts";
import { proxiedBaseline } from "./baseline.ts";
import { toldIds, tooLateIn } from "./cli/cli-kit.ts";
import { RUN_SEED } from "./cli/installed-run.ts";

/**
 * What a row's evidence says, independent of names, ETags, timing and poll
 * counts, and of a connection the loaded machine reset (the try is retried: a
 * legal variation, not a result).
 */
function evidenceShape(r: RowResult): string[] {
  const kinds = new Set(
    r.evidence.filter((e) => !e.transportError).map((e) => `${e.via} ${e.method} ${e.status} ${e.errorCode ?? ""}`.trim()),
  );
  return [...kinds].sort();
}

describe("concurrency changes no result", function () {
  let serial: RowResult[] = [];
  let concurrent: RowResult[] = [];
  let ids: string[] = [];
  let told: (id: string) => boolean = () => true;

  before(async function () {
    await loadAllSuites();
    const waiting = new Set(
      registeredRows()
        .filter((r) => r.row.waitSeconds)
        .map((r) => r.row.id),
    );
    const select = (id: string) => !waiting.has(id) && !id.startsWith("file/");
    ids = registeredRows()
      .map((r) => r.row.id)
      .filter(select)
      .sort();
    const { connectionString } = await sharedAzurite();
    // One seed for both: the model rows draw the same histories.
    const run = runHeadless({ connectionString, select, concurrency: 1, expectations: "azurite", seed: Number(RUN_SEED) }).then(
      (r) => r.results,
    );
    const all = await proxiedBaseline();
    [serial, concurrent] = [await run, all.filter((r) => select(r.id))];
    // Runs side by side with the others on a saturated machine: a row too late to tell in either is left out (cli-kit.ts).
    const late = tooLateIn({ results: serial }, { results: all });
    const compared = new Set(
      toldIds(
        "the serial and the concurrent run",
        serial.map((s) => s.id),
        late,
      ),
    );
    told = (id) => compared.has(id);
  });

  it("runs the same IDs", function () {
    expect(serial.map((r) => r.id).sort()).to.deep.equal(ids);
    expect(concurrent.map((r) => r.id).sort()).to.deep.equal(ids);
  });

  it("reaches the same verdict and failure signature for every row", function () {
    const other = new Map(concurrent.map((r) => [r.id, r]));
    const diffs = serial
      .filter((s) => told(s.id))
      .filter((s) => s.status !== other.get(s.id)?.status || s.signature !== other.get(s.id)?.signature)
      .map(
        (s) =>
          `${s.id}: serial ${s.status} ${s.signature ?? ""} / concurrent ${other.get(s.id)?.status} ${other.get(s.id)?.signature ?? ""}`,
      );
    expect(diffs).to.deep.equal([]);
  });

  it("records the same kinds of exchange for every row (method, status, error code)", function () {
    const other = new Map(concurrent.map((r) => [r.id, r]));
    // A model row's clients race each other by design: which answers a history meets (a 412 where the
    // other client's write came first) is its interleaving's, in either mode; its verdict is compared above.
    const models = new Set(
      registeredRows()
        .filter((r) => r.table === "M Models")
        .map((r) => r.row.id),
    );
    // A try the loaded machine made necessary is retried (a legal variation), and its retry may meet what the
    // first try did after all (a create timed out on the client, applied on the server: 409 AlreadyExists).
    const retried = (r: RowResult | undefined) => !!r?.evidence.some((e) => e.retried);
    const diffs = serial
      .filter((s) => !models.has(s.id) && told(s.id) && !retried(s) && !retried(other.get(s.id)))
      .filter((s) => JSON.stringify(evidenceShape(s)) !== JSON.stringify(evidenceShape(other.get(s.id)!)))
      .map((s) => `${s.id}: serial ${evidenceShape(s).join("; ")} / concurrent ${evidenceShape(other.get(s.id)!).join("; ")}`);
    expect(diffs).to.deep.equal([]);
  });
});
