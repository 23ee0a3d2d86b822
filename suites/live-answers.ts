// The rows whose claim a live recording of Azure confirms (the catalogue's
// `live` marks: "(live)" in a cell, "rest, live", "live per", "a live
// capture", "Live recordings confirm"), with the answer recorded where the
// claim is a refusal. Registers no rows: the report shows each row's basis
// from this (live; disputed by its level; else the reference page alone),
// so an emulator author sees which deviations are proven against Azure
// itself, and selftest/live-replay.test.ts gives each recorded answer
// through the proxy and requires the row to PASS: the suite can never fail
// a recorded Azure answer. Data, not rows: loaded with the row files
// (loadAllSuites, fixtures/harness/registry.ts).
import { defineLiveAnswers, type LiveAnswer, type RecordedRefusal } from "../fixtures/harness/registry.ts";

const XA = "catalogue X-A (rest, live)";
const XT = "catalogue X-T (live)";
const XU = "catalogue X-U (live): recordings of Copy Blob From URL, Append Block From URL, Put Page From URL, Put Blob From URL";
const C = "catalogue C: live recordings confirm the eight codes of Copy Blob (asynchronous)";
const NO_304 = "catalogue C: live recordings show writes never answer 304 (a failing If-None-Match → 412)";

/** The recorded refusal of a request of `operation` carrying `header`. */
const refused = (
  source: string,
  operation: string,
  header: string,
  status: number,
  code: string,
  rewrites?: RecordedRefusal["rewrites"],
): LiveAnswer => ({
  source,
  refused: { operation, header, status, code, ...(rewrites ? { rewrites } : {}) },
});
const confirmed = (source: string): LiveAnswer => ({ source });

const SOURCE_CONDITIONS = ["if-match", "if-unmodified-since", "if-none-match", "if-modified-since"] as const;
const CVCS = "CannotVerifyCopySource";
const notModified = (h: string) => h === "if-none-match" || h === "if-modified-since";

export const LIVE_ANSWERS: Record<string, LiveAnswer> = {
  // X-A append conditions.
  "blob/append/appendpos/fails": refused(XA, "Append Block", "x-ms-blob-condition-appendpos", 412, "AppendPositionConditionNotMet"),
  "blob/append/seal/appendpos": refused(XA, "Append Blob Seal", "x-ms-blob-condition-appendpos", 412, "AppendPositionConditionNotMet"),
  "blob/append/from-url/appendpos": refused(
    XA,
    "Append Block From URL",
    "x-ms-blob-condition-appendpos",
    412,
    "AppendPositionConditionNotMet",
  ),
  "blob/append/from-url/maxsize": refused(XA, "Append Block From URL", "x-ms-blob-condition-maxsize", 412, "MaxBlobSizeConditionNotMet"),
  // X-T tag predicates.
  "blob/tags/if-tags/get-blob": refused(XT, "Get Blob", "x-ms-if-tags", 412, "ConditionNotMet"),
  "blob/tags/if-tags/set-blob-metadata": refused(XT, "Set Blob Metadata", "x-ms-if-tags", 412, "ConditionNotMet"),
  "blob/tags/if-tags/set-blob-tags": refused(XT, "Set Blob Tags", "x-ms-if-tags", 412, "ConditionNotMet"),
  "blob/tags/source-if-tags/copy-blob": refused(XT, "Copy Blob", "x-ms-source-if-tags", 412, "ConditionNotMet"),
  // X-U From-URL conditions: the cells the catalogue marks (live).
  "blob/from-url/put-blob/source-if-match": refused(XU, "Put Blob From URL", "x-ms-source-if-match", 412, "SourceConditionNotMet"),
  "blob/from-url/put-blob/destination-if-match": refused(XU, "Put Blob From URL", "if-match", 412, "TargetConditionNotMet"),
  ...Object.fromEntries(
    SOURCE_CONDITIONS.map((h) => [
      `blob/from-url/append-block/source-${h}`,
      refused(XU, "Append Block From URL", `x-ms-source-${h}`, notModified(h) ? 304 : 412, CVCS),
    ]),
  ),
  ...Object.fromEntries(
    SOURCE_CONDITIONS.map((h) => [
      `blob/from-url/append-block/destination-${h}`,
      refused(XU, "Append Block From URL", h, 412, "ConditionNotMet"),
    ]),
  ),
  "blob/from-url/put-page/source-if-unmodified-since": refused(XU, "Put Page From URL", "x-ms-source-if-unmodified-since", 412, CVCS),
  "blob/from-url/put-page/source-if-modified-since": refused(XU, "Put Page From URL", "x-ms-source-if-modified-since", 304, CVCS),
  ...Object.fromEntries(
    ["if-unmodified-since", "if-none-match", "if-modified-since"].map((h) => [
      `blob/from-url/put-page/destination-${h}`,
      refused(XU, "Put Page From URL", h, 412, "ConditionNotMet"),
    ]),
  ),
  "blob/from-url/copy-blob/source-if-match": refused(XU, "Copy Blob From URL", "x-ms-source-if-match", 412, "SourceConditionNotMet"),
  ...Object.fromEntries(
    ["if-unmodified-since", "if-none-match", "if-modified-since"].map((h) => [
      `blob/from-url/copy-blob/source-${h}`,
      refused(XU, "Copy Blob From URL", `x-ms-source-${h}`, notModified(h) ? 304 : 412, CVCS),
    ]),
  ),
  // X-S sequence-number actions: recorded successes.
  "blob/page-sequence/action/increment": confirmed("catalogue X-S (rest, live)"),
  "blob/page-sequence/action/update": confirmed("catalogue X-S (rest, live)"),
  "blob/page-sequence/action/max": confirmed("catalogue X-S (rest, live)"),
  // C: Copy Blob's eight codes; writes never answer 304.
  ...Object.fromEntries(
    SOURCE_CONDITIONS.map((h) => [`blob/blob-ops/copy-blob/conditional/${h}`, refused(C, "Copy Blob", h, 412, "TargetConditionNotMet")]),
  ),
  ...Object.fromEntries(
    SOURCE_CONDITIONS.map((h) => [
      `blob/blob-ops/copy-blob/conditional/source-${h}`,
      refused(C, "Copy Blob", `x-ms-source-${h}`, 412, "SourceConditionNotMet"),
    ]),
  ),
  "blob/blob-ops/set-blob-metadata/conditional/if-none-match": refused(
    NO_304,
    "Set Blob Metadata",
    "if-none-match",
    412,
    "ConditionNotMet",
  ),
  "blob/blob-ops/lease-blob/conditional/if-none-match": refused(NO_304, "Lease Blob", "if-none-match", 412, "ConditionNotMet"),
  "blob/blob-ops/snapshot-blob/conditional/if-none-match": refused(NO_304, "Snapshot Blob", "if-none-match", 412, "ConditionNotMet"),
  // G: an empty If-Unmodified-Since is ignored (Azurite issue #2550 quotes Azure).
  "general/conditional-empty-date": confirmed("catalogue G (live per Azurite issue #2550: Azure ignores an empty If-Unmodified-Since)"),
  // L: the lease before the condition (Azurite issue #2637 quotes Azure); the break period's range on a leased blob.
  "blob/lease-ops/put-blob/lease-before-condition": refused(
    "catalogue L (live per Azurite issue #2637)",
    "Put Blob",
    "if-none-match",
    412,
    "LeaseIdMissing",
  ),
  "blob/lease/state/break-period-61": confirmed("catalogue L (a live capture shows 400 on a leased blob)"),
  // Q: a stale pop receipt → 404 MessageNotFound (a live capture and the reference agree).
  // The doc row also sends a malformed receipt (400, which Azurite answers with the code it gives a stale one): its replay is the finer row's.
  "queue/delete-message/requires-pop-receipt": confirmed("catalogue Q (a live capture)"),
  "queue/delete-message/requires-pop-receipt/stale-receipt-code": {
    source: "catalogue Q (a live capture)",
    refused: {
      operation: "Delete Message",
      header: "",
      status: 404,
      code: "MessageNotFound",
      rewrites: { status: [400], code: ["PopReceiptMismatch"] },
      also: ["Update Message"],
    },
  },
  // TB: recorded answers of the entity validators and missing entities.
  "table/etag/timestamp-coupled": confirmed("catalogue TB (rest, live)"),
  "table/insert/no-content-etag": confirmed("catalogue TB (rest, live)"),
  ...Object.fromEntries(
    ["update-entity", "merge-entity", "delete-entity"].map((op) => [
      `table/entity-ops/${op}/if-match/missing-entity`,
      confirmed("catalogue TB (404 ResourceNotFound live)"),
    ]),
  ),
};

defineLiveAnswers(LIVE_ANSWERS);
