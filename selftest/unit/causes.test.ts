// Causes (model/causes.ts): the non-PASS rows grouped by the answer that
// decided them, most rows first. An operation the target lacks is one cause
// whatever the rows; a shape that recurs across operations (no error code, a
// header missing whatever value was wanted, a refusal answered with success,
// the services not served) is one cause naming the operations; a cell
// computed from finer rows takes its finer rows' cause; a PASS has none.
import { assert } from "chai";
import { causesOf, showCause } from "../../model/causes.ts";
import type { Exchange, RowResult } from "../../model/result.ts";
import { result } from "./row-result.ts";

const ex = (operation: string, status: number, step?: string, errorCode?: string): Exchange => ({
  seq: 1,
  via: "raw",
  operation,
  method: "PUT",
  url: "/c/b",
  requestHeaders: {},
  responseHeaders: {},
  status,
  errorCode,
  ms: 1,
  ...(step ? { step } : {}),
});
const row = (id: string, over: Partial<RowResult>): RowResult => ({
  ...result(id, over.observed ?? "FAIL"),
  ...over,
  status: over.observed ?? "FAIL",
});

describe("causes", function () {
  it("groups the rows an operation the target lacks took down, most rows first, and leaves PASS out", function () {
    const lacking = ["a", "b", "c"].map((id) =>
      row(`x/${id}`, { observed: "UNSUPPORTED", unsupported: [{ operation: "Get Blob Properties", status: 405 }] }),
    );
    const refused = row("x/d", { failure: { step: "setup", expected: "success", got: "Set Blob Tags: 409 InvalidBlobType" } });
    const causes = causesOf([...lacking, refused, row("x/e", { observed: "PASS" })]);
    assert.deepEqual(
      causes.map((c) => [c.rank, c.rows.length]),
      [
        [1, 3],
        [2, 1],
      ],
    );
    assert.equal(showCause(causes[0]), "Get Blob Properties answered 405 (no error code): not implemented");
    assert.equal(showCause(causes[1]), "Set Blob Tags answered 409 InvalidBlobType: refused where the row needed it to succeed (setup)");
  });

  it("one cause for a shape that recurs across operations: an error code missing, a header missing", function () {
    const noCode = [
      row("y/a", {
        failure: { step: "Put Blob", expected: "412 LeaseIdMissing", got: "412" },
        evidence: [ex("Put Blob (BlockBlob)", 412, "Put Blob")],
      }),
      row("y/b", {
        failure: { step: "Delete Blob", expected: "412 ConditionNotMet", got: "412" },
        evidence: [ex("Delete Blob", 412, "Delete Blob")],
      }),
    ];
    const noHeader = [
      row("y/c", {
        failure: { step: "read the lease back", expected: "lease state leased", got: "none" },
        evidence: [ex("Get Blob Properties", 200, "read the lease back")],
      }),
      row("y/d", {
        failure: { step: "read back", expected: "lease state broken", got: "none" },
        evidence: [ex("Get Container Properties", 200, "read back")],
      }),
    ];
    const causes = causesOf([...noCode, ...noHeader]);
    assert.equal(causes.length, 2);
    assert.deepEqual(
      causes.map((c) => c.operation).sort(),
      ["Get Blob Properties, Get Container Properties", "Put Blob (BlockBlob), Delete Blob"].sort(),
    );
  });

  it("a cell computed from finer rows takes the cause of the first finer row that failed", function () {
    const finer = row("z/cell/if-match", {
      observed: "UNSUPPORTED",
      unsupported: [{ operation: "Lease Container (acquire)", status: 501 }],
    });
    const cell = row("z/cell", { failure: { failed: ["if-match"] } });
    const [cause] = causesOf([finer, cell]);
    assert.deepEqual(cause.rows, ["z/cell/if-match", "z/cell"]);
    assert.equal(cause.operation, "Lease Container (acquire)");
  });

  it("one cause for a refusal answered with success, whichever code it needed and whichever success code it got", function () {
    const rows = [
      row("w/a", {
        failure: { step: "Put Blob with a failing if-match", expected: "412 ConditionNotMet", got: "201" },
        evidence: [ex("Put Blob (BlockBlob)", 201, "Put Blob with a failing if-match")],
      }),
      row("w/b", {
        failure: { step: "Delete Blob with another lease ID", expected: "412 LeaseIdMismatchWithBlobOperation", got: "success" },
        evidence: [ex("Delete Blob", 202, "Delete Blob with another lease ID")],
      }),
      row("w/c", {
        failure: { step: "Copy Blob", expected: "409 BlobAlreadyExists", got: "202" },
        evidence: [ex("Copy Blob", 202, "Copy Blob")],
      }),
    ];
    const causes = causesOf(rows);
    assert.deepEqual(
      causes.map((c) => c.rows),
      [["w/a", "w/b"], ["w/c"]],
      "a 409 needed is another cause than a 412 needed",
    );
    assert.equal(
      causes[0].problem,
      "expected 412, got success (refusals expected: 412 ConditionNotMet, 412 LeaseIdMismatchWithBlobOperation)",
    );
  });

  it("a missing header is one cause whatever value was wanted and in whichever step", function () {
    const rows = [
      row("v/a", {
        failure: { step: "Set Blob Metadata (setup)", expected: "a new ETag", got: "none" },
        evidence: [ex("Set Blob Metadata", 200, "Set Blob Metadata (setup)")],
      }),
      row("v/b", {
        failure: { step: "read it back", expected: "ETag", got: "none" },
        evidence: [ex("Create Container", 201, "read it back")],
      }),
      row("v/c", {
        failure: { step: "read it back", expected: "lease state leased", got: "none" },
        evidence: [ex("Get Blob Properties", 200, "read it back")],
      }),
    ];
    const causes = causesOf(rows);
    assert.deepEqual(
      causes.map((c) => c.rows),
      [["v/a", "v/b"], ["v/c"]],
    );
    assert.equal(causes[0].step, "any", "rows in setup and in a read-back");
  });

  it("the services a target does not serve are one cause, naming each", function () {
    const rows = ["queue", "table", "table"].map((s, i) =>
      row(`u/${i}`, { observed: "NOT_AVAILABLE", message: `the target does not serve the ${s} service` }),
    );
    const [cause, ...others] = causesOf(rows);
    assert.deepEqual(others, []);
    assert.equal(showCause(cause), "the target does not serve the table and queue services (setup)");
  });
});
