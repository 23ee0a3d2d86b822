// A cell computed from the rows beneath it (fixtures/harness/finer-rows.ts): the set of
// failing rows it reports is known only when every row beneath got an answer.
import { assert } from "chai";
import type { RowContext, Status } from "../../fixtures/harness/engine.ts";
import { judgeFinerRows } from "../../fixtures/harness/finer-rows.ts";
import { RowSignal } from "../../fixtures/wire/signals.ts";
import { result } from "./row-result.ts";

const label = (r: { id: string }) => r.id.slice(r.id.lastIndexOf("/") + 1);
const cell = (...observed: Status[]) =>
  ({ derived: observed.map((o, i) => result(`c/h${i}`, o, o === "PASS" ? undefined : `h${i} went ${o}`)) }) as unknown as RowContext;
function outcome(t: RowContext): string {
  try {
    judgeFinerRows(t, label);
    return "PASS";
  } catch (err) {
    if (err instanceof RowSignal) return `${err.status}: ${err.message}`;
    const failure = (err as { failure?: { failed?: string[] } }).failure;
    return `FAIL [${failure?.failed?.join(",")}]: ${(err as Error).message}`;
  }
}

describe("a cell computed from the rows beneath it", function () {
  it("holds when every row beneath holds", function () {
    assert.equal(outcome(cell("PASS", "PASS")), "PASS");
  });

  it("fails naming the set of rows beneath that fail, when each got an answer", function () {
    assert.match(outcome(cell("FAIL", "PASS", "FAIL")), /^FAIL \[h0,h2\]: h0: h0 went FAIL; h2: h2 went FAIL$/);
    assert.match(outcome(cell("FAIL", "PRECONDITION_FAILED")), /^FAIL \[h0\]/);
  });

  it("is INCONCLUSIVE when a row beneath got no answer, naming the failing ones (the set a pin holds is not known)", function () {
    assert.match(
      outcome(cell("FAIL", "INCONCLUSIVE")),
      /^INCONCLUSIVE: h1 got no answer, so which rows beneath fail is not known \(failing: h0: h0 went FAIL\)$/,
    );
  });

  it("takes the status of an undecided row beneath when none fails", function () {
    assert.match(outcome(cell("PASS", "PRECONDITION_FAILED")), /^PRECONDITION_FAILED: h1: h1 went PRECONDITION_FAILED$/);
    assert.match(outcome(cell("UNSUPPORTED", "PASS")), /^UNSUPPORTED/);
  });
});
