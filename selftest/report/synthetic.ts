// A small synthetic report for the report self-tests: a matrix whose cells
// carry sub-verdicts (one per conditional header), in every state a sub can
// be in (pass, fail, pinned failure, not available, not run, one with finer
// rows beneath it), with evidence marked per row. No Azurite needed.
import type { RowResult, Status } from "../../fixtures/harness/engine.ts";
import type { MatrixSection } from "../../fixtures/harness/registry.ts";
import { SCHEMA, summarise, type Report } from "../../model/result.ts";

const P = "blob/blob-ops/";

/** The step label of a synthetic row's one exchange: shows which row's evidence is on screen. */
export const stepOf = (id: string) => `step of ${id}`;

export function row(id: string, status: Status, level: RowResult["level"] = "rest"): RowResult {
  const failed = status === "FAIL" || status === "EXPECTED_FAIL";
  return {
    id,
    title: `title of ${id}`,
    table: "T2 Blob operations",
    service: "blob",
    level,
    source: "synthetic",
    status,
    observed: status === "EXPECTED_FAIL" ? "FAIL" : status,
    message: status === "PASS" ? undefined : `message of ${id}`,
    signature: failed ? `message of ${id}` : undefined,
    expectation: status === "EXPECTED_FAIL" ? { status: "FAIL", reason: "pinned for the test" } : undefined,
    notes: {},
    durationMs: 1,
    evidence: [
      {
        seq: 1,
        step: stepOf(id),
        via: "raw",
        method: "PUT",
        url: `/c/${id}`,
        requestHeaders: { "if-match": '"0x1"' },
        status: failed ? 200 : 412,
        responseHeaders: {},
        errorCode: failed ? undefined : "ConditionNotMet",
        ms: 1,
      },
    ],
  };
}

/** Sub IDs of the Put Blob conditional cell, by label, with the status each row gets (undefined: not run). */
export const PUT_BLOB_SUBS: { label: string; id: string; status: Status | undefined }[] = [
  { label: "IM", id: `${P}put-blob/conditional/if-match`, status: "PASS" },
  { label: "INM", id: `${P}put-blob/conditional/if-none-match`, status: "FAIL" },
  { label: "IMS", id: `${P}put-blob/conditional/if-modified-since`, status: "EXPECTED_FAIL" },
  { label: "IUS", id: `${P}put-blob/conditional/if-unmodified-since`, status: undefined },
];

/** Copy Blob: destination and source headers; "src IUS" has finer rows beneath it (one fails). */
export const COPY_BLOB_SUBS: { label: string; id: string; status: Status | undefined }[] = [
  { label: "IM", id: `${P}copy-blob/conditional/if-match`, status: "PASS" },
  { label: "src IM", id: `${P}copy-blob/conditional/source-if-match`, status: "NOT_AVAILABLE" },
  { label: "src IUS", id: `${P}copy-blob/conditional/source-if-unmodified-since`, status: "INCONCLUSIVE" },
];
/** The finer rows beneath "src IUS" (the sub shows the worst of them). */
export const COPY_SRC_IUS_FINER = [
  `${P}copy-blob/conditional/source-if-unmodified-since/a`,
  `${P}copy-blob/conditional/source-if-unmodified-since/b`,
];

export const SECTION: MatrixSection = {
  key: "T2",
  title: "Blob operations",
  source: "synthetic",
  order: 20,
  columns: [
    { key: "etag", header: "Returns ETag value" },
    { key: "conditional", header: "Accepts conditional headers" },
  ],
  rows: [
    {
      label: "Put Blob",
      cells: {
        etag: { claim: "Yes", id: `${P}put-blob/etag` },
        conditional: { claim: "Yes", id: `${P}put-blob/conditional`, subs: PUT_BLOB_SUBS.map(({ label, id }) => ({ label, id })) },
      },
    },
    {
      label: "Copy Blob",
      cells: {
        etag: { claim: "Yes", id: `${P}copy-blob/etag` },
        conditional: { claim: "Yes", id: `${P}copy-blob/conditional`, subs: COPY_BLOB_SUBS.map(({ label, id }) => ({ label, id })) },
      },
    },
  ],
};

export function syntheticReport(): Report {
  const results: RowResult[] = [
    row(`${P}put-blob/etag`, "PASS", "doc"),
    row(`${P}put-blob/conditional`, "PASS", "doc"),
    ...PUT_BLOB_SUBS.filter((s) => s.status).map((s) => row(s.id, s.status!)),
    row(`${P}copy-blob/etag`, "PASS", "doc"),
    row(`${P}copy-blob/conditional`, "PASS", "doc"),
    row(COPY_BLOB_SUBS[0].id, "PASS"),
    row(COPY_BLOB_SUBS[1].id, "NOT_AVAILABLE"),
    row(COPY_SRC_IUS_FINER[0], "PASS"),
    row(COPY_SRC_IUS_FINER[1], "INCONCLUSIVE"),
  ];
  return {
    schema: SCHEMA,
    run: {
      suite: { name: "s", version: "0.0.0" },
      startedAt: "2026-01-01T00:00:00.000Z",
      finishedAt: "2026-01-01T00:00:01.000Z",
      durationMs: 1000,
      target: { kind: "emulator", name: "synthetic", account: "a", endpoints: {}, server: {}, services: [] },
      apiVersionsSent: {},
      expectations: "none",
      runPrefix: "cc",
      concurrency: 1,
      node: "v20",
      platform: "linux",
    },
    summary: summarise(results),
    results,
    notRun: [PUT_BLOB_SUBS[3].id],
  };
}
