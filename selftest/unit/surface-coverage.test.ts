// The report's `surface` from synthetic results: which pairs a run sent,
// which it saw refused on their own (no other parameter the request carried
// could explain the refusal), and why the others went unsent; and the
// figure each report states.
import { assert } from "chai";
import { SCHEMA, summarise, type Exchange, type Report, type RowResult, type ServiceProbe, type Status } from "../../model/result.ts";
import { couldRefuse, surfaceCoverage } from "../../model/surface-coverage.ts";
import type { ListedPair, SurfaceEntry } from "../../model/surface.ts";
import { renderHtml } from "../../reporters/html.ts";
import { renderMarkdown } from "../../reporters/markdown.ts";

const GUID = "0f8fad5b-d9cb-469f-a165-70867728950e";

function pair(
  service: ListedPair["service"],
  operation: string,
  parameter: string,
  kind: ListedPair["kind"],
  rows: string[] = [],
): ListedPair {
  return { service, operation, sdkOperation: "x.y", parameter, kind, rows };
}

const PAIRS: ListedPair[] = [
  pair("blob", "Put Blob (BlockBlob)", "if-match", "condition"),
  pair("blob", "Put Blob (BlockBlob)", "if-none-match", "condition"),
  pair("blob", "Put Blob (BlockBlob)", "x-ms-lease-id", "lease id"),
  pair("blob", "Put Page (clear)", "x-ms-if-sequence-number-le", "sequence number"),
  pair("blob", "Put Page (update)", "x-ms-if-sequence-number-le", "sequence number", ["blob/pages"]),
  pair("blob", "Snapshot Blob", "if-none-match", "condition"),
  pair("blob", "Lease Blob (acquire)", "x-ms-lease-duration", "lease parameter"),
  pair("blob", "Lease Blob (acquire)", "x-ms-proposed-lease-id", "lease parameter"),
  pair("blob", "Put Page From URL", "x-ms-source-if-match", "source condition", ["blob/from-url"]),
  pair("blob", "Incremental Copy Blob", "if-match", "condition", ["blob/setup-fails"]),
  pair("blob", "Query Blob Contents", "if-match", "condition", ["blob/not-selected"]),
  pair("queue", "Update Message", "popreceipt", "queue parameter"),
  pair("queue", "Update Message", "visibilitytimeout", "queue parameter"),
  pair("file", "Create File", "x-ms-lease-id", "lease id"),
];

function ex(
  operation: string,
  method: string,
  url: string,
  requestHeaders: Record<string, string>,
  status?: number,
  errorCode?: string,
): Exchange {
  return {
    seq: 1,
    via: "sdk",
    service: operation.includes("Message") ? "queue" : "blob",
    operation,
    method,
    url,
    requestHeaders,
    status,
    responseHeaders: {},
    errorCode,
    ms: 1,
  };
}

function row(id: string, evidence: Exchange[], status: Status = "PASS", extra: Partial<RowResult> = {}): RowResult {
  return {
    id,
    title: id,
    table: "T",
    service: "blob",
    level: "rest",
    source: "s",
    status,
    observed: status,
    notes: {},
    durationMs: 1,
    evidence,
    ...extra,
  };
}

const SERVICES: ServiceProbe[] = [
  { service: "blob", available: true },
  { service: "queue", available: true },
  { service: "file", available: false, reason: "no endpoint" },
];

const RESULTS: RowResult[] = [
  // a failing If-Match with the holder's lease ID: the lease ID cannot explain ConditionNotMet
  row("blob/if-match", [ex("Put Blob (BlockBlob)", "PUT", "/c/b", { "if-match": '"0x1"', "x-ms-lease-id": GUID }, 412, "ConditionNotMet")]),
  // two conditions refused together: neither alone
  row("blob/both", [ex("Put Blob (BlockBlob)", "PUT", "/c/b", { "if-match": '"0x1"', "if-none-match": '"0x2"' }, 412, "ConditionNotMet")]),
  // Put Page clear, refused by its sequence number; the classifier names it "Put Page"
  row("blob/clear", [
    ex(
      "Put Page",
      "PUT",
      "/c/b?comp=page",
      { "x-ms-page-write": "clear", "x-ms-if-sequence-number-le": "4" },
      412,
      "SequenceNumberConditionNotMet",
    ),
  ]),
  // a write answered 304: not how a write's condition is refused
  row("blob/snapshot", [ex("Snapshot Blob", "PUT", "/c/b?comp=snapshot", { "if-none-match": '"0x1"' }, 304, "ConditionNotMet")]),
  // a duration out of range beside a well-formed proposed ID: the duration alone
  row("blob/duration", [
    ex(
      "Lease Blob (acquire)",
      "PUT",
      "/c/b?comp=lease",
      { "x-ms-lease-action": "acquire", "x-ms-lease-duration": "14", "x-ms-proposed-lease-id": GUID },
      400,
      "InvalidHeaderValue",
    ),
  ]),
  // a malformed proposed ID beside a duration out of range: either could explain the 400
  row("blob/both-bad", [
    ex(
      "Lease Blob (acquire)",
      "PUT",
      "/c/b?comp=lease",
      { "x-ms-lease-action": "acquire", "x-ms-lease-duration": "61", "x-ms-proposed-lease-id": "nope" },
      400,
      "InvalidHeaderValue",
    ),
  ]),
  // a stale receipt: 404 MessageNotFound, which a valid visibility timeout cannot explain
  row(
    "queue/stale",
    [ex("Update Message", "PUT", "/q/messages/m?popreceipt=AAA&visibilitytimeout=30", {}, 404, "MessageNotFound")],
    "PASS",
    { service: "queue" },
  ),
  row(
    "blob/from-url",
    // the parameter went out on a request the target does not implement: nothing exercised, UNSUPPORTED
    [
      ex(
        "Put Page From URL",
        "PUT",
        "/c/b?comp=page",
        { "x-ms-copy-source": "http://x", "x-ms-source-if-match": '"0x1"' },
        501,
        "NotImplemented",
      ),
    ],
    "UNSUPPORTED",
    {
      unsupported: [{ operation: "Put Page From URL", status: 501, code: "NotImplemented" }],
    },
  ),
  row("blob/setup-fails", [], "PRECONDITION_FAILED"),
];

const coverage = () => surfaceCoverage(PAIRS, RESULTS, { services: SERVICES, notRun: ["blob/not-selected"] });
const entry = (operation: string, parameter: string): SurfaceEntry =>
  coverage().entries.find((e) => e.operation === operation && e.parameter === parameter)!;

describe("surface coverage from a run's evidence", function () {
  it("a condition refused beside the holder's lease ID is refused on its own; the lease ID is sent, not refused", function () {
    assert.deepInclude(entry("Put Blob (BlockBlob)", "if-match"), {
      sent: true,
      rows: ["blob/both", "blob/if-match"],
      refusedAlone: true,
      refusedBy: ["blob/if-match"],
    });
    assert.deepInclude(entry("Put Blob (BlockBlob)", "x-ms-lease-id"), { sent: true, rows: ["blob/if-match"], refusedAlone: false });
  });

  it("two conditions refused together are sent, neither refused on its own", function () {
    assert.deepInclude(entry("Put Blob (BlockBlob)", "if-none-match"), { sent: true, refusedAlone: false });
  });

  it("Put Page counts under its variant by x-ms-page-write", function () {
    assert.deepInclude(entry("Put Page (clear)", "x-ms-if-sequence-number-le"), { sent: true, refusedAlone: true });
    assert.deepInclude(entry("Put Page (update)", "x-ms-if-sequence-number-le"), { sent: false, notSentBecause: "NO_ROW" });
  });

  it("a 304 to a write is not a condition's refusal", function () {
    assert.deepInclude(entry("Snapshot Blob", "if-none-match"), { sent: true, refusedAlone: false });
  });

  it("a 400 is a lease parameter's refusal only when its value is out of range, and no other out-of-range value explains it", function () {
    assert.deepInclude(entry("Lease Blob (acquire)", "x-ms-lease-duration"), { refusedAlone: true, refusedBy: ["blob/duration"] });
    assert.deepInclude(entry("Lease Blob (acquire)", "x-ms-proposed-lease-id"), { sent: true, refusedAlone: false });
  });

  it("a queue parameter in the query: a stale receipt refused on its own", function () {
    assert.deepInclude(entry("Update Message", "popreceipt"), { sent: true, refusedAlone: true });
    assert.deepInclude(entry("Update Message", "visibilitytimeout"), { sent: true, refusedAlone: false });
  });

  it("a pair sent and not refused on its own names the rows that sent it and did not pass", function () {
    const snapshot = ex("Snapshot Blob", "PUT", "/c/b?comp=snapshot", { "if-none-match": '"0x1"' }, 304, "ConditionNotMet");
    const results = [row("blob/snapshot-pinned", [snapshot], "EXPECTED_FAIL"), row("blob/snapshot-other", [snapshot], "PASS")];
    const got = surfaceCoverage(PAIRS, results, { services: SERVICES, notRun: [] }).entries.find((e) => e.operation === "Snapshot Blob")!;
    assert.deepInclude(got, { sent: true, refusedAlone: false, notRefusedIn: { "blob/snapshot-pinned": "EXPECTED_FAIL" } });
    assert.notProperty(entry("Put Blob (BlockBlob)", "if-match"), "notRefusedIn");
  });

  it("a queue timeout out of range is refused on its own beside a receipt: the codes tell them apart", function () {
    const update = (code: string) => ex("Update Message", "PUT", "/q/messages/m?popreceipt=AAA&visibilitytimeout=604801", {}, 400, code);
    const of = (code: string) =>
      surfaceCoverage(PAIRS, [row("queue/range", [update(code)], "PASS", { service: "queue" })], { services: SERVICES, notRun: [] })
        .entries.filter((e) => e.operation === "Update Message")
        .map((e) => [e.parameter, e.refusedAlone]);
    assert.deepEqual(of("OutOfRangeQueryParameterValue"), [
      ["popreceipt", false],
      ["visibilitytimeout", true],
    ]);
    assert.deepEqual(of("PopReceiptMismatch"), [
      ["popreceipt", true],
      ["visibilitytimeout", false],
    ]);
  });

  it("why a pair went unsent: its service, its operation, its rows' statuses, its rows not selected, else no row", function () {
    assert.equal(entry("Create File", "x-ms-lease-id").notSentBecause, "NOT_AVAILABLE");
    assert.equal(entry("Put Page From URL", "x-ms-source-if-match").notSentBecause, "UNSUPPORTED");
    assert.equal(entry("Incremental Copy Blob", "if-match").notSentBecause, "PRECONDITION_FAILED");
    assert.equal(entry("Query Blob Contents", "if-match").notSentBecause, "NOT_RUN");
  });

  it("the totals count the pairs, those sent and those refused on their own", function () {
    const c = coverage();
    assert.deepEqual([c.pairs, c.sent, c.refusedAlone], [14, 9, 4]);
  });

  it("the refusals each kind can cause", function () {
    const a = (status: number, code?: string, method = "PUT", operation = "Put Blob (BlockBlob)") => ({ status, code, method, operation });
    assert.isTrue(couldRefuse("if-modified-since", "d", a(304, undefined, "GET")));
    assert.isFalse(couldRefuse("if-match", "e", a(304, undefined, "GET")));
    assert.isTrue(couldRefuse("if-none-match", "*", a(409, "BlobAlreadyExists")));
    assert.isFalse(couldRefuse("if-none-match", '"0x1"', a(409, "BlobAlreadyExists")));
    assert.isFalse(couldRefuse("if-match", "e", a(412, "LeaseIdMissing")));
    assert.isTrue(couldRefuse("x-ms-lease-id", GUID, a(409, "LeaseIdMismatchWithLeaseOperation")));
    assert.isFalse(couldRefuse("x-ms-lease-id", GUID, a(409, "LeaseAlreadyPresent")));
    assert.isTrue(couldRefuse("x-ms-proposed-lease-id", GUID, a(409, "LeaseAlreadyPresent")));
    assert.isTrue(couldRefuse("x-ms-source-if-modified-since", "d", a(304, "CannotVerifyCopySource")));
    assert.isFalse(couldRefuse("x-ms-source-if-match", "e", a(412, "ConditionNotMet")));
    assert.isTrue(couldRefuse("x-ms-source-if-tags", "t", a(412, "ConditionNotMet")));
    assert.isTrue(couldRefuse("x-ms-lease-duration", "30", a(400, undefined, "PUT", "Lease File (acquire)")));
    assert.isFalse(couldRefuse("x-ms-lease-duration", "-1", a(400, undefined, "PUT", "Lease File (acquire)")));
    assert.isTrue(couldRefuse("visibilitytimeout", "0", a(400, undefined, "GET", "Get Messages")));
    assert.isFalse(couldRefuse("visibilitytimeout", "0", a(400, undefined, "PUT", "Update Message")));
  });
});

describe("surface coverage in the reports", function () {
  const report = (): Report => ({
    schema: SCHEMA,
    run: {
      suite: { name: "s", version: "0" },
      startedAt: "2026-01-01T00:00:00Z",
      finishedAt: "2026-01-01T00:00:10Z",
      durationMs: 10_000,
      target: { kind: "embedded-azurite", name: "azurite", account: "a", endpoints: {}, server: {}, services: SERVICES },
      apiVersionsSent: {},
      expectations: "none",
      runPrefix: "cc",
      concurrency: 1,
      node: "v20",
      platform: "linux-x64",
    },
    summary: summarise(RESULTS),
    surface: coverage(),
    results: RESULTS,
    notRun: ["blob/not-selected"],
  });

  it("the HTML and Markdown reports state the figure", function () {
    const line = "concurrency surface exercised: 9 of 14 (operation, parameter) pairs sent, 4 seen refused on their own";
    assert.include(renderHtml(report(), []), line);
    assert.include(renderMarkdown(report(), []), `C${line.slice(1)}`);
  });

  it("a report without `surface` (made before it) states none", function () {
    const { surface: _, ...older } = report();
    assert.notInclude(renderHtml(older, []), "concurrency surface");
    assert.notInclude(renderMarkdown(older, []), "concurrency surface");
  });
});
