// Server faults and waits, without a target: rows whose requests are recorded
// as a target would answer them (fixtures/wire/evidence.ts recordRequest), run by
// the engine. A server error on every try, in both runs of a row, is FAIL
// naming it; a fault a retry or the re-run gets past, throttling, a mix with
// transport errors, or a fault the row only records decide nothing. Per-operation
// `faults` pins, exit codes, and the waits: only answers decide.
import { assert } from "chai";
import { DEFAULT_RUN_OPTIONS, RowContext, RunContext, runRow, WaitTimeout, type RowDef } from "../../fixtures/harness/engine.ts";
import { persistentServerFaults, recordRequest } from "../../fixtures/wire/evidence.ts";
import { judge } from "../../fixtures/harness/expectations.ts";
import { isServerError, isThrottling, preconditionFailed, RowSignal } from "../../fixtures/wire/signals.ts";
import { resolveConnectionString } from "../../fixtures/wire/target.ts";
import { exitCodeOf, failsRun, type Exchange, type RowResult } from "../../model/result.ts";
import { faultingOperations, undecidedReasons } from "../../model/lacking.ts";
import { result } from "./row-result.ts";

const run = new RunContext(resolveConnectionString("UseDevelopmentStorage=true"), {
  ...DEFAULT_RUN_OPTIONS,
  runPrefix: "ccunit",
  services: ["blob"],
});
const SCOPE = { service: "blob" as const, accountPath: "/devstoreaccount1" };
const RENEW = "http://127.0.0.1:10000/devstoreaccount1/c/b?comp=lease";

/** Records one request's tries as answered (`status`, `code`) or broken off (`transportError`), as the transport would. */
function request(
  tries: ({ status: number; code?: string; retryAfter?: string } | { transportError: string })[],
  opts: { acceptFault?: boolean } = {},
): void {
  tries.forEach((t, i) => {
    const headers: Record<string, string> = { "x-ms-lease-action": "renew" };
    const done = recordRequest("raw", "PUT", RENEW, (n) => headers[n], i + 1, SCOPE);
    const ex =
      "transportError" in t
        ? done({ transportError: t.transportError })
        : done({ status: t.status, getRes: (n) => ({ "x-ms-error-code": t.code, "retry-after": t.retryAfter })[n] });
    if (ex && i < tries.length - 1) ex.retried = true;
    if (ex && opts.acceptFault) ex.faultAccepted = true;
  });
}

const row = (body: (t: RowContext, attempt: number) => Promise<void>): RowDef => {
  let attempt = 0;
  return { id: "unit/faults", title: "t", level: "doc", source: "s", service: "blob", run: (t) => body(t, ++attempt) };
};
const crash = () => {
  throw Object.assign(new Error("InternalError"), { name: "RestError", statusCode: 500, code: "InternalError" });
};
const fourTimes500 = [1, 2, 3, 4].map(() => ({ status: 500, code: "InternalError" }));

describe("server faults: an error on every try, in both runs, is an answer", function () {
  it("classifies throttling apart from server errors, and 501 apart from both", function () {
    assert.isTrue(isServerError(500, "InternalError"));
    assert.isTrue(isServerError(502, undefined));
    assert.isTrue(isServerError(500, "OperationTimedOut"));
    assert.isTrue(isServerError(503, undefined), "a 503 that is no throttling");
    assert.isFalse(isServerError(501, undefined));
    assert.isFalse(isServerError(500, "FeatureNotSupported"));
    assert.isFalse(isServerError(503, "ServerBusy"));
    assert.isTrue(isThrottling(503, undefined, "1"));
    assert.isTrue(isThrottling(429, undefined));
  });

  it("a request is faulted on every try only when each of its tries was a server error", async function () {
    const seen = await runRow(
      run,
      row(async (t, n) => {
        if (n === 1) request([{ transportError: "ECONNRESET" }, { status: 500, code: "InternalError" }]);
        else
          request([
            { status: 503, code: "ServerBusy", retryAfter: "1" },
            { status: 503, code: "ServerBusy", retryAfter: "1" },
          ]);
        crash();
      }),
      "T",
    );
    assert.equal(seen.status, "INCONCLUSIVE", "a reset among the tries, then throttling: no answer");
    assert.isUndefined(seen.faults);
  });

  it("FAILs a row whose two runs met a server error on every try, naming the operation, the answer and the tries", async function () {
    const r = await runRow(
      run,
      row(async () => {
        request(fourTimes500);
        crash();
      }),
      "T",
    );
    assert.equal(r.status, "FAIL");
    assert.equal(r.message, "server fault: Lease Blob (renew) answered 500 InternalError to every try (4), and again on the re-run");
    assert.equal(r.signature, "server fault: Lease Blob (renew) answered 500 InternalError");
    assert.deepEqual(r.faults, [{ operation: "Lease Blob (renew)", status: 500, code: "InternalError", tries: 4 }]);
    assert.equal(r.evidence.length + (r.retried?.evidence.length ?? 0), 8, "every try of both runs in the evidence");
  });

  it("a state the target crashed while building is no PRECONDITION_FAILED", async function () {
    const r = await runRow(
      run,
      row(async () => {
        request(fourTimes500);
        preconditionFailed("could not build the state");
      }),
      "T",
    );
    assert.equal(r.status, "FAIL");
    assert.equal(r.notes["outcome after the server fault"], "PRECONDITION_FAILED: could not build the state");
  });

  it("a fault the re-run gets past decides nothing; nor does one the row only records", async function () {
    const passes = await runRow(
      run,
      row(async (t, n) => {
        request(n === 1 ? fourTimes500 : [{ status: 200 }]);
        if (n === 1) crash();
      }),
      "T",
    );
    assert.equal(passes.status, "PASS");
    assert.isDefined(passes.retried);
    const recorded = await runRow(
      run,
      row(async () => {
        request(fourTimes500, { acceptFault: true });
        preconditionFailed("no pending copy");
      }),
      "T",
    );
    assert.equal(recorded.status, "PRECONDITION_FAILED");
  });

  it("finds the earlier tries of the same request among other requests' exchanges", function () {
    const ex = (seq: number, url: string, status: number, t?: number, retried?: boolean): Exchange => ({
      seq,
      via: "sdk",
      method: "PUT",
      url,
      requestHeaders: {},
      responseHeaders: {},
      status,
      ms: 1,
      ...(t ? { try: t } : {}),
      ...(retried ? { retried } : {}),
    });
    const mixed = [ex(1, "/a", 500, undefined, true), ex(2, "/b", 200), ex(3, "/a", 500, 2)];
    assert.deepEqual(persistentServerFaults(mixed), [{ operation: "PUT /a", status: 500, tries: 2 }]);
    assert.deepEqual(persistentServerFaults([ex(1, "/a", 408, undefined, true), ex(2, "/a", 500, 2)]), [], "a 408 among the tries");
  });

  it("`faults` pins make such a row EXPECTED_FAIL (by operation or family, within a version range); a stale pin is UNEXPECTED_PASS", function () {
    const fault = {
      ...result("a/b", "FAIL", "server fault: Put Block List answered 502 to every try (4), and again on the re-run"),
      faults: [{ operation: "Put Block List", status: 502, tries: 4 }],
    };
    assert.equal(judge(fault, undefined, "1.0.0").status, "FAIL");
    const pinned = judge(fault, undefined, "1.0.0", undefined, { "Put Block List": { reason: "crashes", versions: "<2.0.0" } });
    assert.equal(pinned.status, "EXPECTED_FAIL");
    assert.deepEqual(pinned.expectation?.operations, ["Put Block List"]);
    assert.isFalse(failsRun(pinned));
    assert.equal(
      judge(fault, undefined, "2.0.0", undefined, { "Put Block List": { reason: "crashes", versions: "<2.0.0" } }).status,
      "FAIL",
    );
    const lease = { ...fault, faults: [{ operation: "Lease Blob (renew)", status: 500, tries: 4 }] };
    assert.equal(
      judge(lease, undefined, "1.0.0", undefined, { "Lease Blob": { reason: "every lease action crashes" } }).status,
      "EXPECTED_FAIL",
    );
    const answered: Exchange = {
      seq: 1,
      via: "sdk",
      service: "blob",
      operation: "Put Block List",
      method: "PUT",
      url: "/c/b?comp=blocklist",
      requestHeaders: {},
      responseHeaders: {},
      status: 201,
      ms: 1,
    };
    const stale = judge({ ...result("c/d", "PASS"), evidence: [answered] }, undefined, "1.0.0", undefined, {
      "Put Block List": { reason: "crashes" },
    });
    assert.equal(stale.status, "UNEXPECTED_PASS");
    assert.match(stale.message ?? "", /pinned as a server fault \(crashes\): remove the pin/);
    assert.deepEqual(
      faultingOperations([pinned], { "Put Block List": { reason: "crashes" } }).map((o) => [o.operation, o.rows, o.pinned?.key]),
      [["Put Block List", ["a/b"], "Put Block List"]],
    );
  });

  it("exit codes: 1 when a result fails the run, 4 when rows are left INCONCLUSIVE (unless pinned so), else 0", function () {
    const undecided: RowResult = result("a/b", "INCONCLUSIVE", "the target did not answer");
    assert.equal(exitCodeOf([result("c/d", "PASS")]), 0);
    assert.equal(exitCodeOf([result("c/d", "PASS"), undecided]), 4);
    assert.equal(exitCodeOf([result("c/d", "FAIL", "x"), undecided]), 1);
    const pinned = { ...undecided, expectation: { status: "INCONCLUSIVE" as const, reason: "never decidable here" } };
    assert.equal(exitCodeOf([pinned]), 0);
    assert.deepEqual(undecidedReasons([pinned]), [], "a pinned INCONCLUSIVE row leaves the run complete");
    assert.deepEqual(undecidedReasons([undecided]), [{ reason: "a transport error (refused, reset, no answer)", rows: ["a/b"] }]);
  });
});

describe("waits: only answers decide", function () {
  const ctx = () =>
    new RowContext(
      run,
      row(async () => undefined),
    );

  it("waitForServerTime returns the answer dated at its end", async function () {
    let now = 1_000_000;
    const v = await ctx().waitForServerTime(
      "w",
      async () => (now += 1000),
      (d) => d,
      1_002_500,
      { timeoutMs: 5_000, intervalMs: 1 },
    );
    assert.isAtLeast(v, 1_002_500);
  });

  it("FAILs when the server's clock stops, or an answer carries no Date", async function () {
    const stuck = ctx().waitForServerTime(
      "w",
      async () => 1_000_000,
      (d) => d,
      1_002_000,
      { timeoutMs: 5_000, intervalMs: 20, stuckMs: 100 },
    );
    await stuck.then(
      () => assert.fail("returned"),
      (err) => assert.match((err as Error).message, /the server's clock stopped/),
    );
    assert.instanceOf(await stuck.catch((e) => e), WaitTimeout);
    const none = await ctx()
      .waitForServerTime(
        "w",
        async () => NaN,
        (d) => d,
        1,
        { timeoutMs: 5_000 },
      )
      .catch((e) => e);
    assert.match((none as Error).message, /carries no Date/);
  });

  it("is INCONCLUSIVE when the wait runs out with the clock still advancing (answers too slow)", async function () {
    let now = 1_000_000;
    const err = await ctx()
      .waitForServerTime(
        "w",
        async () => (now += 10),
        (d) => d,
        2_000_000,
        { timeoutMs: 150, intervalMs: 20, stuckMs: 100 },
      )
      .catch((e) => e);
    assert.instanceOf(err, RowSignal);
    assert.equal((err as RowSignal).status, "INCONCLUSIVE");
    assert.match((err as Error).message, /the wait ran out .* still advancing/);
  });

  it("waitFor: a probe answered after the wait's end, but sent before it, does not end the wait", async function () {
    let probes = 0;
    const slow = async () => {
      probes++;
      await new Promise((r) => setTimeout(r, 120));
      return undefined;
    };
    const err = await ctx()
      .waitFor("seen", slow, { timeoutMs: 50, intervalMs: 1 })
      .catch((e) => e);
    assert.instanceOf(err, WaitTimeout);
    assert.equal(probes, 2, "the second probe, sent after the end, decides");
  });
});
