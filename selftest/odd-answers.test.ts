// Answers the suite cannot read (selftest/odd-answers.ts: a header dropped
// from every answer, no error code, a JSON error body, bodies cut short) and
// answers at steps a row does not expect them (a refusal, an empty answer, at
// its setup, its claim's request or its read-back) make rows FAIL naming the
// operation and what its answer said, never end them in the suite's own
// exception. Each shape runs over its share of the rows (a fixed partition:
// every row meets one shape; within each family, the table that registers
// it, the first rows take the steps' shapes in turn, so every family of two
// rows meets a refusal and an empty answer and one of seven meets each step;
// the other rows an unreadable answer by their ID's hash), through the proxy in front of the embedded Azurite: no row is ERROR
// or carries an exception's text, and every FAIL and UNSUPPORTED names a
// REST operation of its evidence.
import { createHash } from "node:crypto";
import { expect } from "chai";
import pLimit from "p-limit";
import { runHeadless } from "./headless.ts";
import { loadAllSuites, registeredRows } from "../fixtures/harness/registry.ts";
import { operationFamily, type RowResult } from "../model/result.ts";
import { sharedAzurite } from "./azurite-fixture.ts";
import { exceptionVerdicts } from "./exception-text.ts";
import { LISTS_EMPTY, ODD_ANSWERS, STEP_SHAPES } from "./odd-answers.ts";
import { startProxy } from "./proxy.ts";

await loadAllSuites();
const STEPS = STEP_SHAPES.map((m) => ODD_ANSWERS.indexOf(m));
const UNREADABLE = [...ODD_ANSWERS.keys()].filter((i) => !STEPS.includes(i));
/** Row ID → the index of the shape it meets: a family's first rows take the steps' shapes in turn, the others an unreadable answer by the ID's hash. */
const ASSIGNED = new Map<string, number>();
const taken = new Map<string, number>();
for (const { row, table } of registeredRows()) {
  const i = taken.get(table) ?? 0;
  taken.set(table, i + 1);
  const h = createHash("sha256").update(row.id).digest().readUInt32BE(0);
  ASSIGNED.set(row.id, i < STEPS.length ? STEPS[i] : UNREADABLE[h % UNREADABLE.length]);
}
const meets = (id: string, index: number) => ASSIGNED.get(id) === index;

/** A non-PASS verdict that names no REST operation its row's evidence met. */
function namesNoOperation(r: RowResult): boolean {
  if (r.status !== "FAIL" && r.status !== "UNSUPPORTED" && r.status !== "EXPECTED_FAIL") return false;
  const ops = new Set(r.evidence.flatMap((x) => (x.operation ? [x.operation, operationFamily(x.operation)] : [])));
  return ops.size > 0 && ![...ops].some((op) => (r.message ?? "").includes(op));
}

const limit = pLimit(2);
let runs: Promise<{ results: RowResult[]; changed: number }>[] | undefined;
const start = () =>
  (runs ??= ODD_ANSWERS.map((shape, i) =>
    limit(async () => {
      const azurite = await sharedAzurite();
      const proxy = await startProxy({ upstream: azurite.ports, mutant: shape });
      try {
        const run = await runHeadless({ connectionString: proxy.connectionString, select: (id) => meets(id, i) });
        return { results: run.results, changed: proxy.stats.mutatedResponses + proxy.stats.mutatedRequests };
      } finally {
        await proxy.stop();
      }
    }),
  ));

/** The queue rows (and the peek path), whose claims stand on the messages Get Messages hands out, against a queue that hands out none. */
let queueRun: Promise<RowResult[]> | undefined;
const emptyQueue = () =>
  (queueRun ??= (async () => {
    const azurite = await sharedAzurite();
    const proxy = await startProxy({ upstream: azurite.ports, mutant: LISTS_EMPTY });
    try {
      const select = (id: string) => (id.startsWith("queue/") && id !== "queue/delivery-model") || id === "general/paths/peek";
      return (await runHeadless({ connectionString: proxy.connectionString, select })).results;
    } finally {
      await proxy.stop();
    }
  })());

describe("answers the suite cannot read are FAILs naming the operation, never the suite's exception", function () {
  it("the queue rows, against a queue that hands out no message: no row is ERROR or carries an exception's text, every FAIL names an operation", async function () {
    const results = await emptyQueue();
    expect(results.length, "rows run").to.be.greaterThan(20);
    expect(exceptionVerdicts(results), "rows with the suite's own exception").to.deep.equal([]);
    expect(
      results.filter(namesNoOperation).map((r) => `${r.id}: ${r.message}`),
      "non-PASS rows naming no operation",
    ).to.deep.equal([]);
    expect(results.filter((r) => r.status === "FAIL").length, "rows the empty queue fails").to.be.greaterThan(5);
  });
  it("every row meets a shape; every family of two rows meets a refusal and an empty answer, every family of as many rows as the steps' shapes meets each", function () {
    const unmet = registeredRows().filter(({ row }) => !ODD_ANSWERS.some((_, i) => meets(row.id, i)));
    expect(unmet.map((r) => r.row.id)).to.deep.equal([]);
    const families = new Map<string, Set<number>>();
    for (const { row, table } of registeredRows()) families.set(table, (families.get(table) ?? new Set()).add(ASSIGNED.get(row.id)!));
    const steps = STEPS;
    const kinds = (met: Set<number>) =>
      new Set([...met].filter((i) => steps.includes(i)).map((i) => (ODD_ANSWERS[i].name.includes("refused") ? "refused" : "empty")));
    for (const [table, met] of families) {
      const size = [...ASSIGNED].filter(([id]) => registeredRows().some((r) => r.row.id === id && r.table === table)).length;
      if (size >= 2) expect([...kinds(met)].sort(), `${table}: the unexpected answers it meets`).to.deep.equal(["empty", "refused"]);
      if (size >= steps.length)
        expect(
          steps.every((i) => met.has(i)),
          `${table}: every step's shape`,
        ).to.equal(true);
    }
  });
  ODD_ANSWERS.forEach((shape, i) => {
    it(`${shape.description}: no row is ERROR or carries an exception's text, every FAIL names an operation`, async function () {
      const { results, changed } = await start()[i];
      expect(results.length, "rows run").to.be.greaterThan(0);
      expect(changed, "answers or requests the shape changed").to.be.greaterThan(0);
      expect(exceptionVerdicts(results), "rows with the suite's own exception").to.deep.equal([]);
      expect(
        results.filter(namesNoOperation).map((r) => `${r.id}: ${r.message}`),
        "non-PASS rows naming no operation",
      ).to.deep.equal([]);
    });
  });
});
