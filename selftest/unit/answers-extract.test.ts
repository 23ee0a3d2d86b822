// The corpus of Azure's recorded answers (bin/answers/): each recording
// format's parser, and the normaliser's reading of an exchange against the
// state the recording established (ETags, dates, leases, pop receipts).
import { assert } from "chai";
import type { RecordedAnswer } from "../../model/answers.ts";
import { answersOf, type Origin } from "../../bin/answers/normalise.ts";
import { parseEntries } from "../../bin/answers/parse-entries.ts";
import { parseCpp, parseJava } from "../../bin/answers/parse-network-calls.ts";
import { parseNock } from "../../bin/answers/parse-nock.ts";
import { parseVcr } from "../../bin/answers/parse-vcr.ts";
import { parseManifest } from "../../bin/answers/corpus.ts";
import { predicateHolds } from "../../bin/answers/values.ts";

const origin = (sdk: string): Origin => ({ sdk, repo: "Azure/x", path: "r.json", commit: "c".repeat(40) });
const brief = (r: RecordedAnswer) => ({ operation: r.operation, params: r.params, state: r.state, status: r.status, code: r.code });

const E1 = '"0x8D6D416EEEF3A58"';
const E2 = '"0x8D6D416EEFD478F"';

// A cassette: a blob created, then conditional reads against its ETag and Last-Modified (09 May 2019 00:40:28).
const VCR = `interactions:
- request:
    body: null
    headers:
      x-ms-blob-type: [BlockBlob]
      x-ms-version: ['2018-11-09']
    method: PUT
    uri: https://storagename.blob.core.windows.net/c/b
  response:
    body: {string: ''}
    headers:
      Date: ['Thu, 09 May 2019 00:40:27 GMT']
      ETag: ['${E1}']
      Last-Modified: ['Thu, 09 May 2019 00:40:28 GMT']
    status: {code: 201, message: Created}
- request:
    body: null
    headers:
      If-None-Match: ['${E1}']
      x-ms-version: ['2018-11-09']
    method: GET
    uri: https://storagename.blob.core.windows.net/c/b
  response:
    body: {string: ''}
    headers:
      x-ms-error-code: [ConditionNotMet]
    status: {code: 304, message: The condition specified using HTTP conditional header(s) is not met.}
- request:
    body: null
    headers:
      If-Match: ['"0x111111111111111"']
      x-ms-version: ['2018-11-09']
    method: HEAD
    uri: https://storagename.blob.core.windows.net/c/b
  response:
    body: {string: ''}
    headers: {}
    status: {code: 412, message: Precondition Failed}
- request:
    body: null
    headers:
      If-Modified-Since: ['Thu, 09 May 2019 00:40:28 GMT']
      If-Unmodified-Since: ['Thu, 09 May 2019 00:25:28 GMT']
      x-ms-version: ['2018-11-09']
    method: GET
    uri: https://storagename.blob.core.windows.net/c/b
  response:
    body: {string: "\\uFEFF<?xml version=\\"1.0\\" encoding=\\"utf-8\\"?><Error><Code>ConditionNotMet</Code></Error>"}
    headers: {}
    status: {code: 412, message: Precondition Failed}
- request:
    body: null
    headers:
      x-ms-blob-type: [BlockBlob]
      If-Match: ['${E1}']
    method: PUT
    uri: https://storagename.blob.core.windows.net/c/b
  response:
    body: {string: ''}
    headers:
      ETag: ['${E2}']
      Last-Modified: ['Thu, 09 May 2019 00:41:00 GMT']
    status: {code: 201, message: Created}
- request:
    body: null
    headers:
      If-Match: ['${E1}']
      If-Modified-Since: ['Thu, 09 May 2019 00:42:00 GMT']
    method: GET
    uri: https://storagename.blob.core.windows.net/c/b
  response:
    body: {string: ''}
    headers: {}
    status: {code: 412, message: Precondition Failed}
- request:
    body: null
    headers:
      If-Match: ['${E2}']
    method: GET
    uri: http://127.0.0.1:10000/devstoreaccount1/c/b
  response:
    body: {string: ''}
    headers: {}
    status: {code: 412, message: Precondition Failed}
version: 1
`;

/** A .NET SessionRecords entry. */
const entry = (
  method: string,
  uri: string,
  headers: Record<string, string>,
  status: number,
  response: Record<string, string>,
  body: unknown = [],
) => ({
  RequestUri: uri,
  RequestMethod: method,
  RequestHeaders: { Authorization: "Sanitized", "x-ms-version": "2020-04-08", ...headers },
  RequestBody: null,
  StatusCode: status,
  ResponseHeaders: response,
  ResponseBody: body,
});

const CONTAINER = "https://acct.blob.core.windows.net/test-container?restype=container";
const LEASE = `${CONTAINER}&comp=lease`;
const A = "f7dc08cc-766d-5f38-e902-a6056847f3b3";
const B = "55dd3de4-b813-8c22-0ddc-682c5f0792c4";
const at = (s: number) => `Thu, 02 Apr 2020 23:41:${String(s).padStart(2, "0")} GMT`;

// A container leased for 15 s, its lease broken with a 10 s period, then broken for good; another acquired and released.
const ENTRIES = JSON.stringify({
  Entries: [
    entry("PUT", CONTAINER, {}, 201, { Date: at(0), ETag: E1, "Last-Modified": at(0) }),
    entry("PUT", LEASE, { "x-ms-lease-action": "acquire", "x-ms-lease-duration": "15", "x-ms-proposed-lease-id": A }, 201, {
      Date: at(1),
      "x-ms-lease-id": A,
    }),
    entry("GET", CONTAINER, { "x-ms-lease-id": A }, 200, { Date: at(2), ETag: E1 }),
    entry("DELETE", CONTAINER, { "x-ms-lease-id": B }, 412, { Date: at(3), "x-ms-error-code": "LeaseIdMismatchWithContainerOperation" }),
    entry("PUT", LEASE, { "x-ms-lease-action": "break", "x-ms-lease-break-period": "10" }, 202, { Date: at(4), "x-ms-lease-time": "10" }),
    entry("PUT", LEASE, { "x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1", "x-ms-proposed-lease-id": B }, 409, {
      Date: at(5),
      "x-ms-error-code": "LeaseAlreadyPresent",
    }),
    entry("DELETE", CONTAINER, { "x-ms-lease-id": A }, 412, { Date: at(20), "x-ms-error-code": "LeaseLost" }),
    entry("PUT", LEASE, { "x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1", "x-ms-proposed-lease-id": B }, 201, {
      Date: at(21),
      "x-ms-lease-id": B,
    }),
    entry("PUT", LEASE, { "x-ms-lease-action": "release", "x-ms-lease-id": B }, 200, { Date: at(22) }),
    entry("PUT", LEASE, { "x-ms-lease-action": "renew", "x-ms-lease-id": A }, 409, {
      Date: at(23),
      "x-ms-error-code": "LeaseIdMismatchWithLeaseOperation",
    }),
  ],
});

const QUEUE = "https://acct.queue.core.windows.net/q";
const message = (id: string, receipt: string) =>
  `\uFEFF<?xml version="1.0" encoding="utf-8"?><QueueMessagesList><QueueMessage><MessageId>${id}</MessageId><PopReceipt>${receipt}</PopReceipt></QueueMessage></QueueMessagesList>`;
const call = (Method: string, Uri: string, StatusCode: number, response: Record<string, string> = {}) => ({
  Method,
  Uri,
  Headers: { "x-ms-version": "2018-03-28", "User-Agent": "azsdk-java-azure-storage-queue/12.0.0" },
  Response: { StatusCode: String(StatusCode), Date: "Fri, 09 Aug 2019 22:05:14 GMT", ...response },
});

// A message put, dequeued (its Put receipt goes stale), then updated with each kind of receipt.
const JAVA = JSON.stringify({
  networkCallRecords: [
    call("PUT", QUEUE, 201),
    call("POST", `${QUEUE}/messages?visibilitytimeout=0&messagettl=-1`, 201, { Body: message("m1", "AgAAAAMAAAAAAAAAJ3lihf5O1QE=") }),
    call("GET", `${QUEUE}/messages?visibilitytimeout=30`, 200, { Body: message("m1", "AgAAAAMAAAAAAAAAPjdVl/5O1QE=") }),
    call("PUT", `${QUEUE}/messages/m1?popreceipt=AgAAAAMAAAAAAAAAJ3lihf5O1QE%3D&visibilitytimeout=0`, 400, {
      "x-ms-error-code": "PopReceiptMismatch",
    }),
    call("PUT", `${QUEUE}/messages/m1?popreceipt=not-a-receipt!&visibilitytimeout=0`, 400, {
      "x-ms-error-code": "InvalidQueryParameterValue",
    }),
    call("PUT", `${QUEUE}/messages/m1?popreceipt=AgAAAAMAAAAAAAAAPjdVl/5O1QE%3D&visibilitytimeout=10`, 204, {
      "x-ms-popreceipt": "AwAAAAMAAAAAAAAAPSt2JZEC2AEAAAAA",
    }),
    call("DELETE", `${QUEUE}/messages/m1?popreceipt=AgAAAAMAAAAAAAAAPjdVl/5O1QE%3D`, 400, { "x-ms-error-code": "PopReceiptMismatch" }),
    call("PUT", "https://acct.blob.core.windows.net/c?restype=container&comp=lease", 409),
  ],
});

// The C++ recorder's: a message ID sanitised in the URL, not in the answer; the receipt still tells.
const CPP = JSON.stringify({
  networkCallRecords: [
    {
      Headers: { "user-agent": "azsdk-cpp-storage-queues/12.0.0", "x-ms-version": "2018-03-28" },
      Method: "POST",
      Response: { BODY: message("49379d49", "AgAAAAMAAAAAAAAAOS1PJpEC2AE="), STATUS_CODE: "201", date: "Thu, 06 Jan 2022 00:05:44 GMT" },
      Url: "https://REDACTED.queue.core.windows.net/q/messages",
    },
    {
      Headers: { "user-agent": "azsdk-cpp-storage-queues/12.0.0", "x-ms-version": "2018-03-28" },
      Method: "DELETE",
      Response: { BODY: "", STATUS_CODE: "204", date: "Thu, 06 Jan 2022 00:05:44 GMT" },
      Url: "https://REDACTED.queue.core.windows.net/q/messages/33333333-3333-3333-3333-333333333333?popreceipt=AgAAAAMAAAAAAAAAOS1PJpEC2AE%3D",
    },
  ],
});

/** One exchange as the legacy Node recorder wrote it (twice: http: and https:). */
const scope = (origin: string, method: string, path: string, status: number, body: string, id: string) => `function (nock) { 
var result = 
nock('${origin}')
  .${method}('${path}')
  .reply(${status}, ${JSON.stringify(body)}, { 'content-length': '0',
  'x-ms-request-id': '${id}',
  'x-ms-version': '2016-05-31',
  date: 'Thu, 05 Jan 2017 03:23:38 GMT' });
 return result; }`;

const NOCK = `// This file has been autogenerated.

exports.scopes = [[${[
  scope("http://xplat.queue.core.windows.net:443", "delete", "/q/messages/m1?popreceipt=AgAAAAMAAAAAAAAA5%2B0NLwNn0gE%3D", 204, "", "r1"),
  scope("https://xplat.queue.core.windows.net:443", "delete", "/q/messages/m1?popreceipt=AgAAAAMAAAAAAAAA5%2B0NLwNn0gE%3D", 204, "", "r1"),
  scope(
    "https://xplat.blob.core.windows.net:443",
    "put",
    "/c/b?comp=lease",
    409,
    '\uFEFF<?xml version="1.0" encoding="utf-8"?><Error><Code>LeaseAlreadyPresent</Code></Error>',
    "r2",
  ),
].join(",\n")}]];
`;

describe("Azure's recorded answers: the recording formats", function () {
  it("reads a vcrpy cassette: headers in lower case, bodies as text", function () {
    const x = parseVcr(VCR);
    assert.lengthOf(x, 7);
    assert.deepInclude(x[1], { index: 1, method: "GET", status: 304, requestHeadersRecorded: true });
    assert.equal(x[1].requestHeaders["if-none-match"], E1);
    assert.include(x[3].responseBody, "<Code>ConditionNotMet</Code>");
  });

  it("reads .NET SessionRecords, and joins a header's list of values", function () {
    const x = parseEntries(JSON.stringify({ Entries: [entry("GET", CONTAINER, { "User-Agent": ["a", "b"] } as never, 200, {})] }));
    assert.equal(x[0].requestHeaders["user-agent"], "a, b");
    assert.equal(x[0].responseBody, "");
  });

  it("reads Java and C++ networkCallRecords, marking their request headers as not recorded", function () {
    const java = parseJava(JAVA);
    assert.equal(java[1].status, 201);
    assert.include(java[1].responseBody, "<PopReceipt>");
    assert.notProperty(java[1].responseHeaders, "statuscode");
    assert.isFalse(java[1].requestHeadersRecorded);
    const cpp = parseCpp(CPP);
    assert.deepInclude(cpp[1], { method: "DELETE", status: 204, requestHeadersRecorded: false });
    assert.notProperty(cpp[1].responseHeaders, "body");
  });

  it("reads nock recordings as text, dropping the recorder's second copy of an exchange", function () {
    const x = parseNock(NOCK);
    assert.deepEqual(
      x.map((e) => [e.index, e.method, e.url, e.status]),
      [
        [0, "DELETE", "http://xplat.queue.core.windows.net/q/messages/m1?popreceipt=AgAAAAMAAAAAAAAA5%2B0NLwNn0gE%3D", 204],
        [2, "PUT", "https://xplat.blob.core.windows.net/c/b?comp=lease", 409],
      ],
    );
    assert.deepEqual(x[0].requestHeaders, {});
    assert.equal(x[0].responseHeaders["x-ms-request-id"], "r1");
    assert.include(x[1].responseBody, "LeaseAlreadyPresent");
  });

  it("refuses a manifest without its column line or with an unknown format", function () {
    assert.throws(() => parseManifest("Azure/x\tp\tc\tnet\tentries-json\n", "SOURCES.tsv"), /columns/);
    assert.throws(() => parseManifest("repo\tpath\tcommit\tsdk\tformat\nAzure/x\tp\tc\tnet\twhat\n", "SOURCES.tsv"), /line 2/);
    assert.lengthOf(parseManifest("repo\tpath\tcommit\tsdk\tformat\nAzure/x\tp\tc\tnet\tentries-json\n", "SOURCES.tsv"), 1);
  });
});

describe("Azure's recorded answers: the records", function () {
  it("a cassette's conditional requests: current and other ETags, dates before, equal and after; an emulator's answer left out", function () {
    const got = answersOf(parseVcr(VCR), origin("python"));
    assert.equal(got.notAzure, 1);
    assert.deepEqual(got.records[0], {
      service: "blob",
      operation: "Get Blob",
      params: { "if-none-match": "current" },
      state: { lease: "available", exists: true },
      status: 304,
      code: "ConditionNotMet",
      version: "2018-11-09",
      source: { sdk: "python", repo: "Azure/x", path: "r.json", commit: "c".repeat(40), date: "2019-05-09", index: 1 },
    });
    assert.deepEqual(
      got.records.map((r) => [r.operation, r.params, r.status, r.code]),
      [
        ["Get Blob", { "if-none-match": "current" }, 304, "ConditionNotMet"],
        ["Get Blob Properties", { "if-match": "other" }, 412, undefined],
        ["Get Blob", { "if-modified-since": "equal", "if-unmodified-since": "before" }, 412, "ConditionNotMet"],
        ["Put Blob (BlockBlob)", { "if-match": "current" }, 201, undefined],
        // The write moved the ETag and Last-Modified on: the first ETag is another now, and 00:42 is after.
        ["Get Blob", { "if-match": "other", "if-modified-since": "after" }, 412, undefined],
      ],
    );
  });

  it("a lease through acquire, break and release: holder and other IDs, fixed, breaking, broken, released", function () {
    const got = answersOf(parseEntries(ENTRIES), origin("net")).records.map(brief);
    assert.deepEqual(got, [
      {
        operation: "Lease Container (acquire)",
        params: { "x-ms-lease-duration": "in-range", "x-ms-proposed-lease-id": "other" },
        state: { lease: "available", exists: true },
        status: 201,
        code: undefined,
      },
      {
        operation: "Get Container Properties",
        params: { "x-ms-lease-id": "holder" },
        state: { lease: "leased", leaseDuration: "fixed", exists: true },
        status: 200,
        code: undefined,
      },
      {
        operation: "Delete Container",
        params: { "x-ms-lease-id": "other" },
        state: { lease: "leased", leaseDuration: "fixed", exists: true },
        status: 412,
        code: "LeaseIdMismatchWithContainerOperation",
      },
      {
        operation: "Lease Container (break)",
        params: { "x-ms-lease-break-period": "in-range" },
        state: { lease: "leased", leaseDuration: "fixed", exists: true },
        status: 202,
        code: undefined,
      },
      {
        operation: "Lease Container (acquire)",
        params: { "x-ms-lease-duration": "infinite", "x-ms-proposed-lease-id": "other" },
        state: { lease: "breaking", exists: true },
        status: 409,
        code: "LeaseAlreadyPresent",
      },
      // Sixteen seconds after a ten-second break: broken; the ID is still the last lease's.
      {
        operation: "Delete Container",
        params: { "x-ms-lease-id": "holder" },
        state: { lease: "broken", exists: true },
        status: 412,
        code: "LeaseLost",
      },
      {
        operation: "Lease Container (acquire)",
        params: { "x-ms-lease-duration": "infinite", "x-ms-proposed-lease-id": "other" },
        state: { lease: "broken", exists: true },
        status: 201,
        code: undefined,
      },
      {
        operation: "Lease Container (release)",
        params: { "x-ms-lease-id": "holder" },
        state: { lease: "leased", leaseDuration: "infinite", exists: true },
        status: 200,
        code: undefined,
      },
      {
        operation: "Lease Container (renew)",
        params: { "x-ms-lease-id": "other" },
        state: { lease: "released", exists: true },
        status: 409,
        code: "LeaseIdMismatchWithLeaseOperation",
      },
    ]);
  });

  it("a fixed lease past its end has expired; within a second of it, the state is not known", function () {
    const records = (seconds: number) =>
      answersOf(
        parseEntries(
          JSON.stringify({
            Entries: [
              entry("PUT", CONTAINER, {}, 201, { Date: at(0) }),
              entry("PUT", LEASE, { "x-ms-lease-action": "acquire", "x-ms-lease-duration": "15", "x-ms-proposed-lease-id": A }, 201, {
                Date: at(1),
              }),
              entry("DELETE", CONTAINER, { "x-ms-lease-id": A }, 412, { Date: at(1 + seconds), "x-ms-error-code": "LeaseLost" }),
            ],
          }),
        ),
        origin("net"),
      ).records;
    assert.equal(records(10)[1].state.lease, "leased");
    assert.isUndefined(records(15)[1].state.lease);
    assert.equal(records(17)[1].state.lease, "expired");
  });

  it("pop receipts: current, stale after a dequeue, malformed; seconds in their ranges", function () {
    const got = answersOf(parseJava(JAVA), origin("java"));
    assert.deepEqual(
      got.records.map((r) => [r.operation, r.params, r.status]),
      [
        ["Put Message", { messagettl: "infinite", visibilitytimeout: "zero" }, 201],
        ["Get Messages", { visibilitytimeout: "in-range" }, 200],
        ["Update Message", { popreceipt: "stale", visibilitytimeout: "zero" }, 400],
        ["Update Message", { popreceipt: "malformed", visibilitytimeout: "zero" }, 400],
        ["Update Message", { popreceipt: "current", visibilitytimeout: "in-range" }, 204],
        // The update superseded the receipt it was given.
        ["Delete Message", { popreceipt: "stale" }, 400],
      ],
    );
    // The Java recorder keeps no request header: the blob's lease 409 cannot be placed.
    assert.equal(got.headerless, 1);
  });

  it("a receipt found by its value where the recorder sanitised the message ID", function () {
    const got = answersOf(parseCpp(CPP), origin("cpp")).records;
    assert.deepEqual(got[0].params, { popreceipt: "current" });
    assert.equal(got[0].source.date, "2022-01-06");
  });

  it("nock: the queue's parameters are in the URL; a blob's refusal without its headers is left out", function () {
    const got = answersOf(parseNock(NOCK), origin("js"));
    assert.deepEqual(
      got.records.map((r) => [r.service, r.operation, r.params, r.version]),
      [["queue", "Delete Message", { popreceipt: "unknown" }, "2016-05-31"]],
    );
    assert.equal(got.headerless, 1);
  });

  it("tag predicates against the tags the recording set", function () {
    const tags = { project: "alpha", rank: "5" };
    assert.isTrue(predicateHolds(`"project" = 'alpha' AND "rank" >= '3'`, tags));
    assert.isFalse(predicateHolds(`"project" = 'beta'`, tags));
    assert.isFalse(predicateHolds(`"missing" < 'z'`, tags));
    assert.isUndefined(predicateHolds(`project = alpha`, tags));
    const TAGGED = JSON.stringify({
      Entries: [
        entry("PUT", "https://acct.blob.core.windows.net/c/b", { "x-ms-blob-type": "BlockBlob", "x-ms-tags": "project=alpha" }, 201, {
          Date: at(0),
          ETag: E1,
        }),
        entry("GET", "https://acct.blob.core.windows.net/c/b", { "x-ms-if-tags": `"project" = 'beta'` }, 412, {
          "x-ms-error-code": "ConditionNotMet",
        }),
        entry("GET", "https://acct.blob.core.windows.net/c/b", { "x-ms-if-tags": `"project" == alpha` }, 400, {
          "x-ms-error-code": "InvalidHeaderValue",
        }),
      ],
    });
    assert.deepEqual(
      answersOf(parseEntries(TAGGED), origin("net")).records.map((r) => r.params["x-ms-if-tags"]),
      ["false", "invalid"],
    );
  });
});
