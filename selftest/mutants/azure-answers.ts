// Mutants for the rows that encode what Azure was seen to answer where
// emulators differ (catalogue L lease-before-condition, G etag-distinct and
// conditional-empty-date, TB one-partition). For each: the deviation users
// reported against emulators (on Azurite these read as its pin: equivalent),
// another way to break the claim, and the pinned deviation absent (the pin
// must turn UNEXPECTED_PASS).
import { blobOp, errorResponse } from "./blob-kit.ts";
import { track, tracked, locked } from "./lease-kit.ts";
import { changeset, is } from "./table.ts";
import { errorAnswer, operation, segments, type Mutant, type ProxyRequest, type ProxyResponse } from "./types.ts";

const DATES = ["if-modified-since", "if-unmodified-since"];
const notADate = (v: string | undefined) => v !== undefined && !Number.isFinite(Date.parse(v));

/** A Put Blob with If-None-Match: * and no lease ID onto a blob the proxy saw leased. */
const overLeaseWithoutId = (req: ProxyRequest, state: Map<string, unknown>) =>
  blobOp(req) === "put-blob" && req.headers["if-none-match"] === "*" && !req.headers["x-ms-lease-id"] && locked(tracked(req, state));

/** The PartitionKeys a transaction's operations name (their URLs, or an insert's body). */
function partitionsOf(req: ProxyRequest): Set<string> {
  const parsed = changeset(req.body.toString("utf8"));
  const keys = (parsed?.ops ?? []).map(
    (op) => /PartitionKey='([^']*)'/.exec(op)?.[1] ?? /"PartitionKey"\s*:\s*"([^"]*)"/.exec(op)?.[1] ?? "",
  );
  return new Set(keys);
}

/** Writes whose answers carry a resource's new ETag, by the resource they write. */
const writeKey = (req: ProxyRequest) =>
  operation(req) === "Put Blob (BlockBlob)" || operation(req) === "Update Entity" ? `${req.service}:${segments(req).join("/")}` : undefined;

/** A clock of this resolution stamps each write's ETag; two writes within one tick share it (Azurite #1286, coarsened so a loopback run meets it). */
const ETAG_TICK_MS = 50;

export const MUTANTS: Mutant[] = [
  {
    name: "put-blob-condition-before-lease",
    description:
      "Put Blob with If-None-Match: * onto an existing leased blob, without the lease ID, is refused for the condition (409 BlobAlreadyExists) before the lease is checked (Azurite before 3.39, issue #2637)",
    kills: ["blob/lease-ops/put-blob/lease-before-condition"],
    onRequest(req, state) {
      if (overLeaseWithoutId(req, state)) return errorResponse(req, 409, "BlobAlreadyExists");
    },
    onResponse: track,
  },
  {
    name: "put-blob-lease-before-condition-applied",
    description:
      "Put Blob with If-None-Match: * onto an existing leased blob, without the lease ID, answers 412 LeaseIdMissing, yet the blob is overwritten",
    kills: ["blob/lease-ops/put-blob/lease-before-condition"],
    onRequest(req, state) {
      if (!overLeaseWithoutId(req, state)) return;
      const lease = tracked(req, state) as { holder?: string };
      delete req.headers["if-none-match"];
      if (lease.holder) req.headers["x-ms-lease-id"] = lease.holder;
      state.set(`refuse ${req.url}`, true);
    },
    onResponse(req, res, state) {
      track(req, res, state);
      if (state.get(`refuse ${req.url}`) && res.status === 201) Object.assign(res, errorResponse(req, 412, "LeaseIdMissing"));
    },
  },
  {
    name: "put-blob-lease-checked-first-as-azure",
    description:
      "Azurite's pinned deviation absent: Put Blob with If-None-Match: * onto a leased blob without the lease ID is refused 412 LeaseIdMissing (the pin must turn UNEXPECTED_PASS)",
    kills: ["blob/lease-ops/put-blob/lease-before-condition"],
    onRequest(req, state) {
      if (overLeaseWithoutId(req, state)) return errorResponse(req, 412, "LeaseIdMissing");
    },
    onResponse: track,
  },
  {
    name: "etag-reused-within-a-tick",
    description: `A write's ETag comes from a clock of ${ETAG_TICK_MS} ms resolution: Put Blob and Update Entity answers within one tick of the resource's previous write repeat its ETag (Azurite issue #1286, where entity writes in one millisecond shared one)`,
    kills: ["general/etag-distinct/blob", "general/etag-distinct/entity", "general/etag-distinct"],
    onResponse(req, res, state) {
      const key = writeKey(req);
      if (!key || res.status >= 300 || !res.headers["etag"]) return;
      const tick = Math.floor(Date.now() / ETAG_TICK_MS);
      const last = state.get(key) as { tick: number; etag: string } | undefined;
      if (last && last.tick === tick) res.headers["etag"] = last.etag;
      else state.set(key, { tick, etag: res.headers["etag"] });
    },
  },
  {
    name: "empty-date-refused",
    description: "An empty If-Modified-Since or If-Unmodified-Since is refused with 400 InvalidHeaderValue, on writes as on reads",
    kills: ["general/conditional-empty-date"],
    onRequest(req) {
      if (req.service === "blob" && DATES.some((h) => req.headers[h] === "")) return errorResponse(req, 400, "InvalidHeaderValue");
    },
  },
  {
    name: "empty-date-as-epoch-on-writes",
    description:
      "An empty If-Unmodified-Since on a write is read as 1 January 1970: every blob is modified since, so the write is refused 412 ConditionNotMet",
    kills: ["general/conditional-empty-date"],
    onRequest(req) {
      if (req.service === "blob" && req.method === "PUT" && req.headers["if-unmodified-since"] === "")
        return errorResponse(req, 412, "ConditionNotMet");
    },
  },
  {
    name: "empty-date-ignored-as-azure",
    description:
      "Azurite's pinned deviation absent: an If-Modified-Since or If-Unmodified-Since that is not a date (empty or malformed) is ignored on reads too (the pin must turn UNEXPECTED_PASS)",
    kills: ["general/conditional-empty-date"],
    onRequest(req) {
      if (req.service === "blob")
        for (const h of DATES) if (h in req.headers && (req.headers[h] === "" || notADate(req.headers[h]))) delete req.headers[h];
    },
  },
  {
    name: "two-partitions-refused-but-applied",
    description: "A transaction naming two PartitionKeys answers 400, yet its operations are applied in both partitions",
    kills: ["table/batch/one-partition"],
    onResponse(req, res) {
      if (is(req, "batch") && partitionsOf(req).size > 1 && res.status === 202) Object.assign(res, twoPartitionsRefused(req));
    },
  },
  {
    name: "two-partitions-refused-as-azure",
    description:
      "Azurite's pinned deviation absent: a transaction naming two PartitionKeys is refused 400 and nothing is applied (the pin must turn UNEXPECTED_PASS)",
    kills: ["table/batch/one-partition"],
    onRequest(req) {
      if (is(req, "batch") && partitionsOf(req).size > 1) return twoPartitionsRefused(req);
    },
  },
];

/** Azure's refusal of a transaction across partitions (Azurite issue #1215 quotes it): 400, the whole request. */
function twoPartitionsRefused(req: ProxyRequest): ProxyResponse {
  return errorAnswer(req, 400, "CommandsInBatchActOnDifferentPartitions");
}
