// C Conditional requests in detail: the T1 and T2 "Accepts conditional
// headers" cells as data. One entry per operation: what the seed says, which
// headers the REST page accepts, its kind, the raw request that performs it and
// the change a permitted write leaves behind. conditional.spec.ts generates the
// rows `<row>/conditional/<header>` from this table, and
// selftest/mutants/conditional.ts a family of mutants per cell.
import type { RawRequest, RawResponse } from "../../fixtures/raw.ts";
import type { MatrixCell } from "../../fixtures/registry.ts";

/** Where a cell's request goes. */
export interface Subject {
  container: string;
  blob?: string;
  /** Copy Blob: the source's URL. */
  sourceUrl?: string;
  /** Abort Copy Blob: the pending copy. */
  copyId?: string;
}

/** Everything a conditional write could change, as read back from the target. */
export interface ResourceState {
  exists: boolean;
  etag?: string;
  lastModified?: string;
  metadata?: Record<string, string>;
  leaseState?: string;
  /** Container: the IDs of its stored access policies. */
  acl?: string[];
  content?: string;
  contentType?: string;
  copyStatus?: string;
  snapshots?: number;
  uncommitted?: string[];
  committed?: string[];
  /** Page blob: its valid ranges, `start-end,…`. */
  pages?: string;
}

export const HEADERS = ["if-match", "if-none-match", "if-modified-since", "if-unmodified-since"] as const;
export type CondHeader = (typeof HEADERS)[number];
export const HEADER_LABEL: Record<CondHeader, string> = { "if-match": "IM", "if-none-match": "INM", "if-modified-since": "IMS", "if-unmodified-since": "IUS" };

export interface OpClaim {
  /** Catalogue row; its cells are `<row>/conditional/<header>` (and `source-<header>`). */
  row: string;
  operation: string;
  resource: "container" | "block-blob" | "page-blob";
  kind: "read" | "write";
  /** The seed's "Accepts conditional headers". */
  conditional: boolean;
  /** What the REST page says the operation accepts, where it is not all four. */
  accepts?: readonly CondHeader[];
  /** How the request looks on the wire, for the mutants: method(s), container-level or not, comp, a copy source. */
  wire: { methods: string[]; container?: boolean; comp?: string; copySource?: boolean };
  request(s: Subject): RawRequest;
  /** The `rest`-level code of a refusal (ConditionNotMet unless given). */
  code?: string;
  /** The change a permitted request makes, seen in the state read back. */
  effect?: { what: string; holds(s: ResourceState): boolean };
  /** A read: what its 200 shows of the current state (beside the current ETag). */
  reply?: { what: string; holds(res: RawResponse, s: ResourceState): boolean };
  /** Copy Blob: a second set of cells on the source (`x-ms-source-if-*`, code SourceConditionNotMet). */
  source?: { code: string };
  /** Abort Copy Blob: the other writer's change is a copy left pending (else PRECONDITION_FAILED). */
  pendingCopy?: boolean;
  /** Create Container: the request creates a new resource; the validators come from a sibling the client read. */
  creates?: boolean;
}

const T1 = "blob/container-ops/";
const T2 = "blob/blob-ops/";
const container = (s: Subject, comp?: string, extra: Record<string, string> = {}) => ({ path: `/${s.container}`, query: { restype: "container", ...(comp ? { comp } : {}), ...extra } });
const blob = (s: Subject, comp?: string, extra: Record<string, string> = {}) => ({ path: `/${s.container}/${encodeURIComponent(s.blob!)}`, query: { ...(comp ? { comp } : {}), ...extra } });
export const NEW_CONTENT = "written by the permitted request";
const PAGE = "p".repeat(512);
/** The metadata value the other writer leaves. */
export const OTHER = "other writer";
const metadataReply = { what: "x-ms-meta-state is the other writer's", holds: (res: RawResponse) => res.headers["x-ms-meta-state"] === OTHER };
export const BLOCK_ID = Buffer.from("cell-block-0001").toString("base64");
export const LEASE_ID = "c0c0a000-0000-4000-8000-00000000c0de";

export const CLAIMS: OpClaim[] = [
  // T1: Set Container Metadata accepts If-Modified-Since only; Set Container ACL,
  // Delete Container and Lease Container both date headers (REST pages).
  { row: `${T1}create-container`, operation: "Create Container", resource: "container", kind: "write", conditional: false, creates: true, wire: { methods: ["PUT"], container: true },
    request: (s) => ({ method: "PUT", ...container(s) }), effect: { what: "the container exists", holds: (s) => s.exists } },
  { row: `${T1}get-container-properties`, operation: "Get Container Properties", resource: "container", kind: "read", conditional: false, wire: { methods: ["GET", "HEAD"], container: true },
    request: (s) => ({ method: "GET", ...container(s) }) },
  { row: `${T1}get-container-metadata`, operation: "Get Container Metadata", resource: "container", kind: "read", conditional: false, wire: { methods: ["GET", "HEAD"], container: true, comp: "metadata" },
    request: (s) => ({ method: "GET", ...container(s, "metadata") }) },
  { row: `${T1}set-container-metadata`, operation: "Set Container Metadata", resource: "container", kind: "write", conditional: true, accepts: ["if-modified-since"], wire: { methods: ["PUT"], container: true, comp: "metadata" },
    request: (s) => ({ method: "PUT", ...container(s, "metadata"), headers: { "x-ms-meta-state": "permitted" } }),
    effect: { what: "the metadata is the permitted request's", holds: (s) => s.metadata?.state === "permitted" } },
  { row: `${T1}get-container-acl`, operation: "Get Container ACL", resource: "container", kind: "read", conditional: false, wire: { methods: ["GET", "HEAD"], container: true, comp: "acl" },
    request: (s) => ({ method: "GET", ...container(s, "acl") }) },
  { row: `${T1}set-container-acl`, operation: "Set Container ACL", resource: "container", kind: "write", conditional: true, accepts: ["if-modified-since", "if-unmodified-since"], wire: { methods: ["PUT"], container: true, comp: "acl" },
    request: (s) => ({
      method: "PUT",
      ...container(s, "acl"),
      headers: { "content-type": "application/xml" },
      body: `<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers><SignedIdentifier><Id>permitted</Id><AccessPolicy><Permission>r</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>`,
    }),
    effect: { what: "the ACL holds the permitted request's policy", holds: (s) => JSON.stringify(s.acl) === '["permitted"]' } },
  { row: `${T1}delete-container`, operation: "Delete Container", resource: "container", kind: "write", conditional: true, accepts: ["if-modified-since", "if-unmodified-since"], wire: { methods: ["DELETE"], container: true },
    request: (s) => ({ method: "DELETE", ...container(s) }), effect: { what: "the container is gone", holds: (s) => !s.exists } },
  { row: `${T1}lease-container`, operation: "Lease Container", resource: "container", kind: "write", conditional: true, accepts: ["if-modified-since", "if-unmodified-since"], wire: { methods: ["PUT"], container: true, comp: "lease" },
    request: (s) => ({ method: "PUT", ...container(s, "lease"), headers: { "x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1", "x-ms-proposed-lease-id": LEASE_ID } }),
    effect: { what: "the container is leased", holds: (s) => s.leaseState === "leased" } },
  { row: `${T1}list-blobs`, operation: "List Blobs", resource: "container", kind: "read", conditional: false, wire: { methods: ["GET"], container: true, comp: "list" },
    request: (s) => ({ method: "GET", ...container(s, "list") }) },

  // T2: every "yes" operation accepts all four headers.
  { row: `${T2}put-blob`, operation: "Put Blob", resource: "block-blob", kind: "write", conditional: true, wire: { methods: ["PUT"] },
    request: (s) => ({ method: "PUT", ...blob(s), headers: { "x-ms-blob-type": "BlockBlob" }, body: NEW_CONTENT }),
    effect: { what: "the content is the permitted request's", holds: (s) => s.content === NEW_CONTENT } },
  { row: `${T2}get-blob`, operation: "Get Blob", resource: "block-blob", kind: "read", conditional: true, wire: { methods: ["GET"] },
    request: (s) => ({ method: "GET", ...blob(s) }),
    reply: { what: "the content and x-ms-meta-state are the blob's", holds: (res, s) => res.body === s.content && metadataReply.holds(res) } },
  { row: `${T2}get-blob-properties`, operation: "Get Blob Properties", resource: "block-blob", kind: "read", conditional: true, wire: { methods: ["HEAD"] },
    request: (s) => ({ method: "HEAD", ...blob(s) }), reply: metadataReply },
  { row: `${T2}set-blob-properties`, operation: "Set Blob Properties", resource: "block-blob", kind: "write", conditional: true, wire: { methods: ["PUT"], comp: "properties" },
    request: (s) => ({ method: "PUT", ...blob(s, "properties"), headers: { "x-ms-blob-content-type": "text/x-permitted" } }),
    effect: { what: "the Content-Type is the permitted request's", holds: (s) => s.contentType === "text/x-permitted" } },
  { row: `${T2}get-blob-metadata`, operation: "Get Blob Metadata", resource: "block-blob", kind: "read", conditional: true, wire: { methods: ["GET", "HEAD"], comp: "metadata" },
    request: (s) => ({ method: "GET", ...blob(s, "metadata") }), reply: metadataReply },
  { row: `${T2}set-blob-metadata`, operation: "Set Blob Metadata", resource: "block-blob", kind: "write", conditional: true, wire: { methods: ["PUT"], comp: "metadata" },
    request: (s) => ({ method: "PUT", ...blob(s, "metadata"), headers: { "x-ms-meta-state": "permitted" } }),
    effect: { what: "the metadata is the permitted request's", holds: (s) => s.metadata?.state === "permitted" } },
  { row: `${T2}lease-blob`, operation: "Lease Blob", resource: "block-blob", kind: "write", conditional: true, wire: { methods: ["PUT"], comp: "lease" },
    request: (s) => ({ method: "PUT", ...blob(s, "lease"), headers: { "x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1", "x-ms-proposed-lease-id": LEASE_ID } }),
    effect: { what: "the blob is leased", holds: (s) => s.leaseState === "leased" } },
  { row: `${T2}snapshot-blob`, operation: "Snapshot Blob", resource: "block-blob", kind: "write", conditional: true, wire: { methods: ["PUT"], comp: "snapshot" },
    request: (s) => ({ method: "PUT", ...blob(s, "snapshot") }), effect: { what: "a snapshot exists", holds: (s) => s.snapshots === 1 } },
  // The asynchronous Copy Blob (no x-ms-requires-sync): Copy Blob From URL answers differently (catalogue, C).
  { row: `${T2}copy-blob`, operation: "Copy Blob", resource: "block-blob", kind: "write", conditional: true, wire: { methods: ["PUT"], copySource: true }, code: "TargetConditionNotMet", source: { code: "SourceConditionNotMet" },
    request: (s) => ({ method: "PUT", ...blob(s), headers: { "x-ms-copy-source": s.sourceUrl! } }),
    effect: { what: "the destination holds the source's content", holds: (s) => s.content === "source" } },
  { row: `${T2}abort-copy-blob`, operation: "Abort Copy Blob", resource: "block-blob", kind: "write", conditional: false, pendingCopy: true, wire: { methods: ["PUT"], comp: "copy" },
    request: (s) => ({ method: "PUT", ...blob(s, "copy", { copyid: s.copyId! }), headers: { "x-ms-copy-action": "abort" } }),
    effect: { what: "the copy is aborted", holds: (s) => s.copyStatus === "aborted" } },
  { row: `${T2}delete-blob`, operation: "Delete Blob", resource: "block-blob", kind: "write", conditional: true, wire: { methods: ["DELETE"] },
    request: (s) => ({ method: "DELETE", ...blob(s) }), effect: { what: "the blob is gone", holds: (s) => !s.exists } },
  { row: `${T2}put-block`, operation: "Put Block", resource: "block-blob", kind: "write", conditional: false, wire: { methods: ["PUT"], comp: "block" },
    request: (s) => ({ method: "PUT", ...blob(s, "block", { blockid: BLOCK_ID }), body: NEW_CONTENT }),
    effect: { what: "the block is uncommitted in the block list", holds: (s) => !!s.uncommitted?.includes(BLOCK_ID) } },
  { row: `${T2}put-block-list`, operation: "Put Block List", resource: "block-blob", kind: "write", conditional: true, wire: { methods: ["PUT"], comp: "blocklist" },
    request: (s) => ({ method: "PUT", ...blob(s, "blocklist"), body: `<?xml version="1.0" encoding="utf-8"?><BlockList><Latest>${BLOCK_ID}</Latest></BlockList>` }),
    effect: { what: "the content is the committed block's", holds: (s) => s.content === NEW_CONTENT } },
  { row: `${T2}get-block-list`, operation: "Get Block List", resource: "block-blob", kind: "read", conditional: false, wire: { methods: ["GET"], comp: "blocklist" },
    request: (s) => ({ method: "GET", ...blob(s, "blocklist", { blocklisttype: "all" }) }) },
  { row: `${T2}put-page`, operation: "Put Page", resource: "page-blob", kind: "write", conditional: true, wire: { methods: ["PUT"], comp: "page" },
    request: (s) => ({ method: "PUT", ...blob(s, "page"), headers: { "x-ms-range": "bytes=0-511", "x-ms-page-write": "update" }, body: PAGE }),
    effect: { what: "the page is written", holds: (s) => s.pages === "0-511" } },
  { row: `${T2}get-page-ranges`, operation: "Get Page Ranges", resource: "page-blob", kind: "read", conditional: true, wire: { methods: ["GET"], comp: "pagelist" },
    request: (s) => ({ method: "GET", ...blob(s, "pagelist") }) },
];

/** One generated cell: an operation and a header, on the resource or (Copy Blob) on its source. */
export interface Cell {
  claim: OpClaim;
  header: CondHeader;
  onSource: boolean;
  id: string;
  /** The header as sent: `if-match` or `x-ms-source-if-match`. */
  wireHeader: string;
  /** The operation evaluates this header. */
  evaluated: boolean;
}

/**
 * The cells of a row: the accepted headers of a "yes" row, all four of a
 * "no" row (catalogue, C: "Required cells"), and Copy Blob's source set.
 */
export function cellsOf(claim: OpClaim): Cell[] {
  const headers = claim.conditional ? (claim.accepts ?? HEADERS) : HEADERS;
  const cell = (header: CondHeader, onSource: boolean): Cell => ({
    claim,
    header,
    onSource,
    id: `${claim.row}/conditional/${onSource ? "source-" : ""}${header}`,
    wireHeader: onSource ? `x-ms-source-${header}` : header,
    evaluated: claim.conditional,
  });
  return [...headers.map((h) => cell(h, false)), ...(claim.source ? HEADERS.map((h) => cell(h, true)) : [])];
}

export const ALL_CELLS: Cell[] = CLAIMS.flatMap(cellsOf);

export function claimOf(row: string): OpClaim {
  const c = CLAIMS.find((x) => x.row === row);
  if (!c) throw new Error(`no conditional claim for ${row}`);
  return c;
}

/** The matrix cell "Accepts conditional headers" of a T1/T2 row, with one sub-verdict per header. */
export function conditionalMatrixCell(row: string, text?: string): MatrixCell {
  const claim = claimOf(row);
  return {
    claim: text ?? (claim.conditional ? "Yes" : "No"),
    id: `${row}/conditional`,
    subs: cellsOf(claim).map((c) => ({ label: `${c.onSource ? "src " : ""}${HEADER_LABEL[c.header]}`, id: c.id })),
  };
}
