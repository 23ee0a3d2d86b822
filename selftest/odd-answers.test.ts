// Answers the suite cannot read (selftest/odd-answers.ts: a header dropped
// from every answer, no error code, a JSON error body, bodies cut short) make
// rows FAIL naming the operation and what its answer lacked, never end them
// in the suite's own exception. Each shape runs over its share of the rows
// (a fixed partition: every row meets one shape), through the proxy in front
// of the embedded Azurite: no row is ERROR or carries an exception's text,
// and every FAIL and UNSUPPORTED names a REST operation of its evidence.
import { createHash } from "node:crypto";
import { expect } from "chai";
import pLimit from "p-limit";
import { runHeadless } from "./headless.ts";
import { loadAllSuites, registeredRows } from "../fixtures/harness/registry.ts";
import { operationFamily, type RowResult } from "../model/result.ts";
import { sharedAzurite } from "./azurite-fixture.ts";
import { exceptionVerdicts } from "./exception-text.ts";
import { ODD_ANSWERS } from "./odd-answers.ts";
import { startProxy } from "./proxy.ts";

/** How many shapes each row meets. */
const SHAPES_PER_ROW = 1;

/** Whether `id` runs under the shape at `index` (a fixed partition by the ID's hash). */
function meets(id: string, index: number): boolean {
  const h = createHash("sha256").update(id).digest().readUInt32BE(0);
  return Array.from({ length: SHAPES_PER_ROW }, (_, k) => (h + k * 7) % ODD_ANSWERS.length).includes(index);
}

/** A non-PASS verdict that names no REST operation its row's evidence met. */
function namesNoOperation(r: RowResult): boolean {
  if (r.status !== "FAIL" && r.status !== "UNSUPPORTED" && r.status !== "EXPECTED_FAIL") return false;
  const ops = new Set(r.evidence.flatMap((x) => (x.operation ? [x.operation, operationFamily(x.operation)] : [])));
  return ops.size > 0 && ![...ops].some((op) => (r.message ?? "").includes(op));
}

await loadAllSuites();
const limit = pLimit(2);
let runs: Promise<{ results: RowResult[]; changed: number }>[] | undefined;
const start = () =>
  (runs ??= ODD_ANSWERS.map((shape, i) =>
    limit(async () => {
      const azurite = await sharedAzurite();
      const proxy = await startProxy({ upstream: azurite.ports, mutant: shape });
      try {
        const run = await runHeadless({ connectionString: proxy.connectionString, select: (id) => meets(id, i) });
        return { results: run.results, changed: proxy.stats.mutatedResponses };
      } finally {
        await proxy.stop();
      }
    }),
  ));

describe("answers the suite cannot read are FAILs naming the operation, never the suite's exception", function () {
  it(`every row meets ${SHAPES_PER_ROW} shapes`, function () {
    const unmet = registeredRows().filter(({ row }) => !ODD_ANSWERS.some((_, i) => meets(row.id, i)));
    expect(unmet.map((r) => r.row.id)).to.deep.equal([]);
  });
  ODD_ANSWERS.forEach((shape, i) => {
    it(`${shape.description}: no row is ERROR or carries an exception's text, every FAIL names an operation`, async function () {
      const { results, changed } = await start()[i];
      expect(results.length, "rows run").to.be.greaterThan(0);
      expect(changed, "answers the shape changed").to.be.greaterThan(0);
      expect(exceptionVerdicts(results), "rows with the suite's own exception").to.deep.equal([]);
      expect(
        results.filter(namesNoOperation).map((r) => `${r.id}: ${r.message}`),
        "non-PASS rows naming no operation",
      ).to.deep.equal([]);
    });
  });
});
