// What an error a row threw says (fixtures/harness/verdict-of-error.ts): any
// error that carries an answer's status, the SDKs' RestError or the suite's
// own AnswerRefusal for a raw answer, is that answer (a FAIL naming the
// operation and the step); an exception of the suite's own code is ERROR.
import { assert } from "chai";
import { verdictOfError } from "../../fixtures/harness/verdict-of-error.ts";
import { AnswerRefusal, succeeded } from "../../fixtures/wire/signals.ts";
import { currentEvidence, inStrand, strandStepOf, withEvidence } from "../../fixtures/wire/evidence.ts";
import type { Exchange } from "../../model/result.ts";

const copy: Exchange = {
  seq: 1,
  via: "raw",
  service: "blob",
  operation: "Copy Blob",
  method: "PUT",
  url: "/c/b",
  requestHeaders: {},
  status: 412,
  responseHeaders: { "x-ms-error-code": "LeaseIdMissing" },
  errorCode: "LeaseIdMissing",
  ms: 3,
};

describe("the verdict of an error a row threw", function () {
  it("a raw answer's refusal the suite raised (AnswerRefusal) is that answer: a FAIL naming the operation, the step and the answer", function () {
    let thrown: unknown;
    try {
      succeeded({ status: 412, errorCode: "LeaseIdMissing" });
    } catch (err) {
      thrown = err;
    }
    assert.instanceOf(thrown, AnswerRefusal);
    const v = verdictOfError(thrown, [copy], "start a copy (setup)");
    assert.equal(v.status, "FAIL");
    assert.equal(v.message, "start a copy (setup): Copy Blob answered 412 LeaseIdMissing");
    assert.deepEqual(v.failure, { step: "start a copy (setup)", expected: "success", got: "Copy Blob: 412 LeaseIdMissing" });
  });

  it("a success passes through succeeded() untouched", function () {
    const res = { status: 202, errorCode: undefined };
    assert.strictEqual(succeeded(res), res);
  });

  it("an exception of the suite's own code is ERROR (the check can tell the two apart)", function () {
    const v = verdictOfError(new TypeError("Cannot read properties of undefined (reading 'popReceipt')"), [copy], "a step");
    assert.equal(v.status, "ERROR");
  });

  it("an error leaving a strand names the strand's step, not the row's (inStrand, strandStepOf)", async function () {
    const store = { exchanges: [], seq: 0, secrets: [], step: "the row's step" };
    const err = await withEvidence(store, () =>
      inStrand(async () => {
        currentEvidence()!.step = "a strand's step";
        throw new Error("unreadable");
      }).catch((e: unknown) => e),
    );
    assert.equal(strandStepOf(err), "a strand's step");
    assert.equal(store.step, "the row's step");
    assert.equal(strandStepOf(new Error("raised outside any strand")), undefined);
  });
});
