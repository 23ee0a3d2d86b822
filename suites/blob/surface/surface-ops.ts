// S The whole concurrency surface, blob side: one record per REST operation
// (with the surface's variant: a lease action, a blob type, a page write, a
// Set Blob Properties that resizes or sets a sequence number) whose
// concurrency parameters no row of another section sends both holding and
// failing. A record says what the subject needs, the raw request, what a
// permitted request leaves behind, and the parameters it is checked on;
// surface.rows.ts makes a row per (record, parameter), and
// selftest/mutants/surface.ts a mutant family per row.
import { createHash } from "node:crypto";
import { claimAt, type ClaimRef } from "../../../fixtures/harness/locations.ts";
import type { RawRequest, RawResponse } from "../../../fixtures/wire/raw.ts";
import { BLOCK_ID, blobAt, containerAt, LEASE_ID, NEW_CONTENT, op, SOURCE_CONTENT } from "../operations.ts";

export type Resource = "container" | "block-blob" | "page-blob" | "append-blob";

/**
 * What the subject holds before the row's requests, beyond what its parameter
 * needs (surface-kit.ts, needsOf): an infinite lease held with LEASE_ID, the tag
 * set `surface=original`, sequence number 5, a snapshot taken before a page was
 * written, a readable source blob (and its tags), a page of data, an
 * incremental copy already made from a page blob's snapshot.
 */
export type Need = "lease" | "tags" | "sequence" | "snapshot" | "source" | "source-tags" | "page" | "incremental";

export interface SurfaceSubject {
  container: string;
  blob?: string;
  /** The source a copy or From-URL operation reads (a URL the target can read). */
  sourceUrl?: string;
  /** Get Page Ranges (diff): the snapshot the diff starts from. */
  snapshot?: string;
  /** Rename Container: the name it renames to. */
  renamed?: string;
}

/** What a refused request could have changed, as read back. */
export interface SurfaceState {
  exists: boolean;
  etag?: string;
  lastModified?: string;
  blobType?: string;
  length?: string;
  sequenceNumber?: string;
  leaseState?: string;
  sealed?: string;
  tier?: string;
  copyId?: string;
  metadata?: Record<string, string>;
  /** Short digest of the content (when the record reads it). */
  content?: string;
  tags?: string;
  uncommitted?: string;
  /** Rename Container: whether the new name exists. */
  renamedExists?: boolean;
}

export interface SurfaceOp {
  /** As catalogue/surface.tsv names it. */
  operation: string;
  /** The operation in row IDs: `lease-blob-break`. */
  slug: string;
  resource: Resource;
  /** A read's failing condition may be 304 (GET/HEAD); a lease action is a write. */
  kind: "read" | "write";
  needs: Need[];
  request(s: SurfaceSubject): RawRequest;
  /** What a permitted request leaves (a write) or answers (a read). */
  effect: { what: string; holds(after: SurfaceState, res: RawResponse): boolean };
  /** Its parameters no other row sends both holding and failing. */
  parameters: string[];
  /** What the state read back includes beyond the properties. */
  reads?: ("content" | "tags" | "blocks")[];
}

export const PROPOSED_LEASE_ID = "5e1ec7ed-0000-4000-8000-00000000feed";
export const TAGS = { surface: "original" };
export const PAGE = "p".repeat(512);
/** Short digest of a content (deterministic, so a message may show it). */
export const digestOf = (content: string | Buffer) => createHash("sha256").update(content).digest("hex").slice(0, 12);
const ZEROS_1024 = digestOf(Buffer.alloc(1024));
const CONDITIONS = ["if-match", "if-none-match", "if-modified-since", "if-unmodified-since"];
const DATES = ["if-modified-since", "if-unmodified-since"];
const TAG = "x-ms-if-tags";
const LEASE = "x-ms-lease-id";
const PROPOSED = "x-ms-proposed-lease-id";
const SEQUENCE = ["x-ms-if-sequence-number-le", "x-ms-if-sequence-number-lt", "x-ms-if-sequence-number-eq"];

const leaseAction = (action: string, extra: Record<string, string> = {}) => ({
  "x-ms-lease-action": action,
  "x-ms-lease-id": LEASE_ID,
  ...extra,
});
const ACTIONS: { action: string; extra?: Record<string, string>; effect: SurfaceOp["effect"] }[] = [
  {
    action: "break",
    extra: { "x-ms-lease-break-period": "0" },
    effect: { what: "the lease is broken", holds: (s) => s.leaseState === "broken" },
  },
  {
    action: "change",
    extra: { "x-ms-proposed-lease-id": PROPOSED_LEASE_ID },
    effect: {
      what: "the lease ID is the proposed one, the lease held",
      holds: (s, res) => s.leaseState === "leased" && res.headers["x-ms-lease-id"] === PROPOSED_LEASE_ID,
    },
  },
  { action: "release", effect: { what: "the lease is released", holds: (s) => s.leaseState === "available" } },
  {
    action: "renew",
    effect: {
      what: "the lease is held, its ID answered",
      holds: (s, res) => s.leaseState === "leased" && res.headers["x-ms-lease-id"] === LEASE_ID,
    },
  },
];

const LEASE_ACTIONS: SurfaceOp[] = ACTIONS.flatMap(({ action, extra, effect }) => [
  {
    operation: `Lease Blob (${action})`,
    slug: `lease-blob-${action}`,
    resource: "block-blob" as const,
    kind: "write" as const,
    needs: ["lease"] as Need[],
    request: (s: SurfaceSubject) => ({ method: "PUT", ...blobAt(s, "lease"), headers: leaseAction(action, extra) }),
    effect,
    // Renew's conditions are section C's (blob/blob-ops/lease-blob/conditional/*); its tag predicate is not.
    parameters: [...(action === "renew" ? [TAG] : [...CONDITIONS, TAG]), ...(action === "change" ? [PROPOSED] : [])],
  },
  {
    operation: `Lease Container (${action})`,
    slug: `lease-container-${action}`,
    resource: "container" as const,
    kind: "write" as const,
    needs: ["lease"] as Need[],
    request: (s: SurfaceSubject) => ({ method: "PUT", ...containerAt(s, "lease"), headers: leaseAction(action, extra) }),
    effect,
    parameters: [...DATES, ...(action === "change" ? [PROPOSED] : [])],
  },
]);

export const SURFACE_OPS: SurfaceOp[] = [
  ...LEASE_ACTIONS,
  {
    operation: "Put Blob (PageBlob)",
    slug: "put-blob-page",
    // The subject is of the type the request writes: the claim is about the conditions, not a change of type.
    resource: "page-blob",
    kind: "write",
    needs: [],
    request: (s) => ({ method: "PUT", ...blobAt(s), headers: { "x-ms-blob-type": "PageBlob", "x-ms-blob-content-length": "2048" } }),
    effect: {
      what: "the blob is a new page blob of 2048 bytes (it was 1024)",
      holds: (s) => s.blobType === "PageBlob" && s.length === "2048",
    },
    parameters: [...CONDITIONS, TAG, LEASE],
  },
  {
    operation: "Put Blob (AppendBlob)",
    slug: "put-blob-append",
    resource: "append-blob",
    kind: "write",
    needs: [],
    request: (s) => ({ method: "PUT", ...blobAt(s), headers: { "x-ms-blob-type": "AppendBlob" } }),
    effect: {
      what: "the blob is a new, empty append blob (it held 8 bytes)",
      holds: (s) => s.blobType === "AppendBlob" && s.length === "0",
    },
    parameters: [...CONDITIONS, TAG, LEASE],
  },
  {
    operation: "Put Page (clear)",
    slug: "put-page-clear",
    resource: "page-blob",
    kind: "write",
    needs: ["page"],
    request: (s) => ({ method: "PUT", ...blobAt(s, "page"), headers: { "x-ms-page-write": "clear", "x-ms-range": "bytes=0-511" } }),
    effect: { what: "the page is cleared (the blob reads as zeros)", holds: (s) => s.content === ZEROS_1024 },
    parameters: [...CONDITIONS, TAG, LEASE],
    reads: ["content"],
  },
  {
    operation: "Set Blob Properties (resize)",
    slug: "set-blob-properties-resize",
    resource: "page-blob",
    kind: "write",
    needs: [],
    request: (s) => ({ method: "PUT", ...blobAt(s, "properties"), headers: { "x-ms-blob-content-length": "2048" } }),
    effect: { what: "the page blob is 2048 bytes long", holds: (s) => s.length === "2048" },
    parameters: [...CONDITIONS, TAG, LEASE],
  },
  {
    operation: "Set Blob Properties (sequence number)",
    slug: "set-blob-properties-sequence-number",
    resource: "page-blob",
    kind: "write",
    needs: [],
    request: (s) => ({
      method: "PUT",
      ...blobAt(s, "properties"),
      headers: { "x-ms-sequence-number-action": "update", "x-ms-blob-sequence-number": "7" },
    }),
    effect: { what: "the sequence number is 7", holds: (s) => s.sequenceNumber === "7" },
    parameters: [...CONDITIONS, TAG, LEASE],
  },
  {
    operation: "Append Block",
    slug: "append-block",
    resource: "append-blob",
    kind: "write",
    needs: [],
    // The request of its record (operations.ts).
    request: (s) => op("append-block").request(s),
    effect: { what: "the block is appended", holds: (s) => s.content === digestOf("original" + NEW_CONTENT) },
    // If-Match is X-A's (blob/append/appendpos/stale-if-match).
    parameters: ["if-none-match", "if-modified-since", "if-unmodified-since", LEASE],
    reads: ["content"],
  },
  {
    operation: "Append Blob Seal",
    slug: "append-blob-seal",
    resource: "append-blob",
    kind: "write",
    needs: [],
    request: (s) => ({ method: "PUT", ...blobAt(s, "seal") }),
    effect: { what: "the blob is sealed", holds: (s) => s.sealed === "true" },
    parameters: [...CONDITIONS, LEASE],
  },
  {
    operation: "Get Page Ranges (diff)",
    slug: "get-page-ranges-diff",
    resource: "page-blob",
    kind: "read",
    needs: ["snapshot", "page"],
    request: (s) => ({ method: "GET", ...blobAt(s, "pagelist", { prevsnapshot: s.snapshot! }) }),
    effect: {
      what: "the page written since the snapshot is listed",
      holds: (_s, res) => /<Start>\s*0\s*<\/Start>\s*<End>\s*511\s*<\/End>/.test(res.body),
    },
    parameters: [...CONDITIONS, TAG, LEASE],
  },
  {
    operation: "Query Blob Contents",
    slug: "query-blob-contents",
    resource: "block-blob",
    kind: "read",
    needs: [],
    request: (s) => ({
      method: "POST",
      ...blobAt(s, "query"),
      headers: { "content-type": "application/xml" },
      body: `<?xml version="1.0" encoding="utf-8"?><QueryRequest><QueryType>SQL</QueryType><Expression>SELECT * from BlobStorage</Expression></QueryRequest>`,
    }),
    effect: { what: "the query answers", holds: (_s, res) => res.status === 200 },
    parameters: [...CONDITIONS, TAG, LEASE],
  },
  {
    operation: "Incremental Copy Blob",
    slug: "incremental-copy-blob",
    resource: "page-blob",
    kind: "write",
    needs: ["incremental"],
    request: (s) => ({ method: "PUT", ...blobAt(s, "incrementalcopy"), headers: { "x-ms-copy-source": s.sourceUrl! } }),
    effect: {
      what: "a new incremental copy started",
      holds: (s, res) => !!res.headers["x-ms-copy-id"] && s.copyId === res.headers["x-ms-copy-id"],
    },
    parameters: [...CONDITIONS, TAG],
  },
  {
    operation: "Get Blob Tags",
    slug: "get-blob-tags",
    resource: "block-blob",
    kind: "read",
    needs: ["tags"],
    request: (s) => ({ method: "GET", ...blobAt(s, "tags") }),
    effect: { what: "the blob's tag set is answered", holds: (_s, res) => /<Key>surface<\/Key>\s*<Value>original<\/Value>/.test(res.body) },
    parameters: [LEASE],
  },
  {
    operation: "Set Blob Tags",
    slug: "set-blob-tags",
    resource: "block-blob",
    kind: "write",
    needs: ["tags"],
    request: (s) => ({
      method: "PUT",
      ...blobAt(s, "tags"),
      headers: { "content-type": "application/xml" },
      body: `<?xml version="1.0" encoding="utf-8"?><Tags><TagSet><Tag><Key>surface</Key><Value>permitted</Value></Tag></TagSet></Tags>`,
    }),
    effect: { what: "the tag set is the permitted request's", holds: (s) => s.tags === "surface=permitted" },
    parameters: [LEASE],
    reads: ["tags"],
  },
  {
    operation: "Set Blob Tier",
    slug: "set-blob-tier",
    resource: "block-blob",
    kind: "write",
    needs: [],
    request: (s) => ({ method: "PUT", ...blobAt(s, "tier"), headers: { "x-ms-access-tier": "Cool" } }),
    effect: { what: "the tier is Cool", holds: (s) => s.tier === "Cool" },
    parameters: [LEASE],
  },
  {
    operation: "Copy Blob From URL",
    slug: "copy-blob-from-url",
    resource: "block-blob",
    kind: "write",
    needs: ["source"],
    // The request of its record (operations.ts).
    request: (s) => op("copy-blob-from-url").request(s),
    effect: { what: "the blob holds the source's bytes", holds: (s) => s.content === digestOf(SOURCE_CONTENT) },
    parameters: [TAG, LEASE],
    reads: ["content"],
  },
  {
    operation: "Put Blob From URL",
    slug: "put-blob-from-url",
    resource: "block-blob",
    kind: "write",
    needs: ["source"],
    // The request of its record (operations.ts).
    request: (s) => op("put-blob-from-url").request(s),
    effect: { what: "the blob holds the source's bytes", holds: (s) => s.content === digestOf(SOURCE_CONTENT) },
    parameters: [TAG, LEASE, "x-ms-source-if-tags"],
    reads: ["content"],
  },
  {
    operation: "Put Block From URL",
    slug: "put-block-from-url",
    resource: "block-blob",
    kind: "write",
    needs: ["source"],
    // The request of its record (operations.ts).
    request: (s) => op("put-block-from-url").request(s),
    effect: { what: "the block is uncommitted in the block list", holds: (s) => s.uncommitted === BLOCK_ID },
    parameters: [LEASE],
    reads: ["blocks"],
  },
  {
    operation: "Put Page From URL",
    slug: "put-page-from-url",
    resource: "page-blob",
    kind: "write",
    needs: ["source"],
    // The request of its record (operations.ts).
    request: (s) => op("put-page-from-url").request(s),
    effect: { what: "the page holds the source's bytes", holds: (s) => s.content === digestOf(SOURCE_CONTENT + "\0".repeat(512)) },
    parameters: [LEASE, ...SEQUENCE],
    reads: ["content"],
  },
  {
    operation: "Append Block From URL",
    slug: "append-block-from-url",
    resource: "append-blob",
    kind: "write",
    needs: ["source"],
    // The request of its record (operations.ts).
    request: (s) => op("append-block-from-url").request(s),
    effect: { what: "the source's bytes are appended", holds: (s) => s.content === digestOf("original" + SOURCE_CONTENT) },
    parameters: [LEASE],
    reads: ["content"],
  },
  {
    operation: "Rename Container",
    slug: "rename-container",
    resource: "container",
    kind: "write",
    needs: ["lease"],
    request: (s) => ({
      method: "PUT",
      path: `/${s.renamed!}`,
      query: { restype: "container", comp: "rename" },
      headers: { "x-ms-source-container-name": s.container },
    }),
    effect: { what: "the container has its new name", holds: (s) => s.renamedExists === true && !s.exists },
    parameters: ["x-ms-source-lease-id"],
  },
];

/** A record's line: its slug's, or for a lease action the action's. */
export function surfaceOpAt(op: SurfaceOp): ClaimRef {
  const action = /^lease-(?:blob|container)-(\w+)$/.exec(op.slug)?.[1];
  return claimAt(import.meta.url, action ? `action: "${action}"` : `slug: "${op.slug}"`);
}
