// UNSUPPORTED: an answer that the target does not implement an operation (a
// 501, or an error code saying so) is never a transport fault, never retried,
// and makes the row that needed it UNSUPPORTED (never INCONCLUSIVE or
// PRECONDITION_FAILED); per-operation pins keep it from failing the run; a
// row that passed using a pinned operation is UNEXPECTED_PASS.
import { assert } from "chai";
import { judge } from "../../fixtures/harness/expectations.ts";
import { operationOf } from "../../fixtures/wire/operations.ts";
import { isTransportFault, isUnsupportedAnswer } from "../../fixtures/wire/signals.ts";
import { isFaulted } from "../../fixtures/wire/evidence.ts";
import { failsRun, summarise, type Exchange, type RowResult, type Service } from "../../model/result.ts";
import { unsupportedOperations } from "../../model/lacking.ts";
import { result } from "./row-result.ts";

const ex = (operation: string, status: number, errorCode?: string): Exchange => ({
  seq: 1,
  via: "raw",
  service: "blob",
  operation,
  method: "PUT",
  url: "/x",
  requestHeaders: {},
  responseHeaders: {},
  status,
  errorCode,
  ms: 1,
});

function unsupported(id: string, operation: string): RowResult {
  return {
    ...result(id, "UNSUPPORTED", `the target does not implement ${operation} (501 NotImplemented)`),
    unsupported: [{ operation, status: 501, code: "NotImplemented" }],
  };
}

describe("UNSUPPORTED: answers that an operation is not implemented", function () {
  it("a 501, or an error code saying so, is an unsupported answer; a documented refusal is not", function () {
    assert.isTrue(isUnsupportedAnswer(501, undefined));
    assert.isTrue(isUnsupportedAnswer(501, "NotImplemented"));
    assert.isTrue(isUnsupportedAnswer(500, "FeatureNotSupported"), "Azurite answers unsupported features with 500 FeatureNotSupported");
    assert.isTrue(isUnsupportedAnswer(405, "UnsupportedHttpVerb"));
    assert.isFalse(isUnsupportedAnswer(400, "MultipleConditionHeadersNotSupported"), "a refusal catalogue C documents");
    assert.isFalse(isUnsupportedAnswer(412, "ConditionNotMet"));
    assert.isFalse(isUnsupportedAnswer(503, "ServerBusy"));
    assert.isFalse(isUnsupportedAnswer(500, "OperationTimedOut"));
  });

  it("is never a transport fault, on an SDK error or in the evidence", function () {
    assert.isFalse(isTransportFault({ name: "RestError", statusCode: 501, code: "NotImplemented" }));
    assert.isFalse(isTransportFault({ name: "RestError", statusCode: 500, code: "FeatureNotSupported" }));
    assert.isTrue(isTransportFault({ name: "RestError", statusCode: 500, code: "OperationTimedOut" }));
    assert.isFalse(isFaulted(ex("Put Page", 501, "NotImplemented")));
    assert.isTrue(isFaulted(ex("Put Page", 503, "ServerBusy")));
  });

  it("an unpinned UNSUPPORTED row fails the run; certification never counts it", function () {
    const r = judge(unsupported("a/b", "Put Page"), undefined, "1.0.0", undefined);
    assert.equal(r.status, "UNSUPPORTED");
    assert.isTrue(failsRun(r));
    const s = summarise([r, result("c/d", "PASS")]);
    assert.deepInclude(s, { UNSUPPORTED: 1, passed: 1, failed: 1, skipped: 0 });
  });

  it("a per-operation pin, by name or by family, keeps it from failing the run; a row pin does not", function () {
    const byName = judge(unsupported("a/b", "Put Page"), undefined, "1.0.0", {
      "Put Page": { reason: "no page blobs", link: "https://example.invalid/1" },
    });
    assert.equal(byName.status, "UNSUPPORTED");
    assert.isFalse(failsRun(byName));
    assert.deepEqual(byName.expectation?.operations, ["Put Page"]);
    const byFamily = judge(unsupported("a/b", "Lease Container (break)"), undefined, "1.0.0", {
      "Lease Container": { reason: "no container leases" },
    });
    assert.isFalse(failsRun(byFamily));
    const rowPin = judge(unsupported("a/b", "Put Page"), { status: "FAIL", reason: "r" }, "1.0.0", undefined);
    assert.equal(rowPin.status, "UNSUPPORTED");
    assert.isTrue(failsRun(rowPin), "a row's pin of a failure says nothing about a missing operation");
    assert.isUndefined(rowPin.expectation);
  });

  it("a row lacking two operations is pinned only when both are", function () {
    const two = {
      ...unsupported("a/b", "Put Page"),
      unsupported: [
        { operation: "Put Page", status: 501 },
        { operation: "Snapshot Blob", status: 501 },
      ],
    };
    assert.isTrue(failsRun(judge(two, undefined, "1.0.0", { "Put Page": { reason: "r" } })));
    assert.isFalse(failsRun(judge(two, undefined, "1.0.0", { "Put Page": { reason: "r" }, "Snapshot Blob": { reason: "s" } })));
  });

  it("an operation pin holds for its version range only", function () {
    const pins = { "Put Page": { reason: "added in 2.0", versions: "<2.0.0" } };
    assert.isFalse(failsRun(judge(unsupported("a/b", "Put Page"), undefined, "1.5.0", pins)));
    assert.isTrue(failsRun(judge(unsupported("a/b", "Put Page"), undefined, "2.1.0", pins)));
  });

  it("a row that passes using an operation pinned as unsupported is UNEXPECTED_PASS (the pin is stale)", function () {
    const passed = { ...result("a/b", "PASS"), evidence: [ex("Put Page", 201)] };
    const r = judge(passed, undefined, "1.0.0", { "Put Page": { reason: "no page blobs" } });
    assert.equal(r.status, "UNEXPECTED_PASS");
    assert.match(r.message!, /Put Page answered 201.*remove the pin/);
    const stillMissing = { ...result("a/b", "PASS"), evidence: [ex("Put Page", 501, "NotImplemented")] };
    assert.equal(judge(stillMissing, undefined, "1.0.0", { "Put Page": { reason: "no page blobs" } }).status, "PASS");
  });

  it("the summary lists each missing operation once, with the rows it takes down and its pin", function () {
    const rs = [unsupported("a/1", "Put Page"), unsupported("a/2", "Put Page"), unsupported("b/1", "Snapshot Blob")].map((r) =>
      judge(r, undefined, "1.0.0", { "Snapshot Blob": { reason: "none" } }),
    );
    const lacking = unsupportedOperations(rs, { "Snapshot Blob": { reason: "none" } });
    assert.deepEqual(
      lacking.map((l) => [l.operation, l.rows.length, l.pinned?.key ?? null]),
      [
        ["Put Page", 2, null],
        ["Snapshot Blob", 1, "Snapshot Blob"],
      ],
    );
  });
});

describe("REST operations of requests", function () {
  const CASES: [Service, string, string, Record<string, string>, string][] = [
    ["blob", "PUT", "/devstoreaccount1/c?restype=container&comp=lease", { "x-ms-lease-action": "break" }, "Lease Container (break)"],
    ["blob", "PUT", "/devstoreaccount1/c?restype=container", {}, "Create Container"],
    ["blob", "GET", "/devstoreaccount1/c?restype=container&comp=list", {}, "List Blobs"],
    ["blob", "PUT", "/devstoreaccount1/c/b", { "x-ms-blob-type": "PageBlob" }, "Put Blob (PageBlob)"],
    ["blob", "PUT", "/devstoreaccount1/c/b", { "x-ms-copy-source": "http://x/c/s" }, "Copy Blob"],
    ["blob", "PUT", "/devstoreaccount1/c/b?comp=page", {}, "Put Page"],
    ["blob", "PUT", "/devstoreaccount1/c/b", { "x-ms-copy-source": "http://x/c/s", "x-ms-requires-sync": "true" }, "Copy Blob From URL"],
    ["blob", "PUT", "/devstoreaccount1/c/b", { "x-ms-copy-source": "http://x/c/s", "x-ms-blob-type": "BlockBlob" }, "Put Blob From URL"],
    ["blob", "PUT", "/devstoreaccount1/c/b?comp=block&blockid=QQ==", { "x-ms-copy-source": "http://x/c/s" }, "Put Block From URL"],
    ["blob", "PUT", "/devstoreaccount1/c/b?comp=appendblock", { "x-ms-copy-source": "http://x/c/s" }, "Append Block From URL"],
    ["blob", "PUT", "/devstoreaccount1/c/b?comp=page", { "x-ms-copy-source": "http://x/c/s" }, "Put Page From URL"],
    ["blob", "PUT", "/devstoreaccount1/c/b?comp=seal", {}, "Append Blob Seal"],
    ["blob", "PUT", "/devstoreaccount1/c/b?comp=tags", {}, "Set Blob Tags"],
    ["blob", "GET", "/devstoreaccount1/c/b?comp=tags", {}, "Get Blob Tags"],
    ["blob", "GET", "/devstoreaccount1/?comp=blobs&where=x", {}, "Find Blobs by Tags"],
    ["blob", "POST", "/devstoreaccount1/?comp=batch", {}, "Blob Batch"],
    ["blob", "PUT", "/devstoreaccount1/c?restype=container&comp=undelete", {}, "Restore Container"],
    ["blob", "GET", "/devstoreaccount1/c/b?comp=pagelist", {}, "Get Page Ranges"],
    ["blob", "PUT", "/devstoreaccount1/c/b?comp=snapshot", {}, "Snapshot Blob"],
    ["blob", "HEAD", "/devstoreaccount1/c/b", {}, "Get Blob Properties"],
    ["blob", "PUT", "/c/b?comp=lease", { "x-ms-lease-action": "acquire" }, "Lease Blob (acquire)"],
    ["queue", "PUT", "/devstoreaccount1/q/messages/id?popreceipt=r&visibilitytimeout=0", {}, "Update Message"],
    ["queue", "GET", "/devstoreaccount1/q/messages?peekonly=true", {}, "Peek Messages"],
    ["queue", "GET", "/devstoreaccount1/q/messages?numofmessages=1", {}, "Get Messages"],
    ["table", "POST", "/devstoreaccount1/$batch", {}, "Entity Group Transaction"],
    ["table", "PUT", "/devstoreaccount1/t(PartitionKey='p',RowKey='r')", { "if-match": "*" }, "Update Entity"],
    ["table", "PUT", "/devstoreaccount1/t(PartitionKey='p',RowKey='r')", {}, "Insert Or Replace Entity"],
    ["table", "POST", "/devstoreaccount1/Tables", {}, "Create Table"],
  ];
  for (const [service, method, url, headers, expected] of CASES) {
    it(`${service} ${method} ${url} is ${expected}`, function () {
      const u = new URL(url, "http://x");
      const account = url.startsWith("/devstoreaccount1") ? "/devstoreaccount1" : "";
      assert.equal(operationOf({ service, method, path: u.pathname, query: u.searchParams, header: (n) => headers[n] }, account), expected);
    });
  }
});
