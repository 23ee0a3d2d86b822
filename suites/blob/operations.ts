// One record per REST operation of the blob service that a claim table
// names: its REST name (as fixtures/wire/operations.ts classifies a request: the
// mutants find an operation's requests by it), the slug its rows' IDs use,
// the resource it acts on, its kind, the raw request that performs it, and
// what it leaves behind (a write's effect, a read's reply). The claim tables
// (the conditional columns of T1/T2, the tag predicates of X-T, the From-URL
// conditions of X-U) add what they claim about an operation beside its
// record; adding or correcting an operation is one edit here.
import { operationFamily } from "../../fixtures/wire/operations.ts";
import type { RawRequest, RawResponse } from "../../fixtures/wire/raw.ts";

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

export interface BlobOperation {
  /** The operation in row IDs, e.g. `put-blob`. */
  slug: string;
  /** REST reference name, as fixtures/wire/operations.ts names a request. */
  operation: string;
  resource: "container" | "block-blob" | "page-blob" | "append-blob";
  kind: "read" | "write";
  /** It reads a source blob (`x-ms-copy-source`: the subject's `sourceUrl`). */
  readsSource?: true;
  request(s: Subject): RawRequest;
  /** The change a permitted request makes, seen in the state read back. */
  effect?: { what: string; holds(s: ResourceState): boolean };
  /** A read: what its 200 shows of the current state (beside the current ETag). */
  reply?: { what: string; holds(res: RawResponse, s: ResourceState): boolean };
  /**
   * The REST reference has it, the SDKs do not (Get Blob Metadata, Get
   * Container Metadata): its parameters are the reference's, outside the
   * surface the SDKs' specs list (catalogue S), so its rows declare no pair.
   */
  referenceOnly?: true;
}

/** A container's path and query, with a `comp` and more query parameters. */
export const containerAt = (s: Pick<Subject, "container">, comp?: string, extra: Record<string, string> = {}) => ({
  path: `/${s.container}`,
  query: { restype: "container", ...(comp ? { comp } : {}), ...extra },
});
/** A blob's path and query, with a `comp` and more query parameters. */
export const blobAt = (s: Pick<Subject, "container" | "blob">, comp?: string, extra: Record<string, string> = {}) => ({
  path: `/${s.container}/${encodeURIComponent(s.blob!)}`,
  query: { ...(comp ? { comp } : {}), ...extra },
});
export const NEW_CONTENT = "written by the permitted request";
const PAGE = "p".repeat(512);
/** The metadata value the other writer leaves. */
export const OTHER = "other writer";
const metadataReply = {
  what: "x-ms-meta-state is the other writer's",
  holds: (res: RawResponse) => res.headers["x-ms-meta-state"] === OTHER,
};
/** What a copy source holds: one page, so Put Page From URL can take it whole. */
export const SOURCE_CONTENT = "source".padEnd(512, "s");
export const BLOCK_ID = Buffer.from("cell-block-0001").toString("base64");
export const LEASE_ID = "c0c0a000-0000-4000-8000-00000000c0de";

const RECORDS: BlobOperation[] = [
  {
    slug: "create-container",
    operation: "Create Container",
    resource: "container",
    kind: "write",
    request: (s) => ({ method: "PUT", ...containerAt(s) }),
    effect: { what: "the container exists", holds: (s) => s.exists },
  },
  {
    slug: "get-container-properties",
    operation: "Get Container Properties",
    resource: "container",
    kind: "read",
    request: (s) => ({ method: "GET", ...containerAt(s) }),
  },
  {
    slug: "get-container-metadata",
    operation: "Get Container Metadata",
    referenceOnly: true,
    resource: "container",
    kind: "read",
    request: (s) => ({ method: "GET", ...containerAt(s, "metadata") }),
  },
  {
    slug: "set-container-metadata",
    operation: "Set Container Metadata",
    resource: "container",
    kind: "write",
    request: (s) => ({ method: "PUT", ...containerAt(s, "metadata"), headers: { "x-ms-meta-state": "permitted" } }),
    effect: { what: "the metadata is the permitted request's", holds: (s) => s.metadata?.state === "permitted" },
  },
  {
    slug: "get-container-acl",
    operation: "Get Container ACL",
    resource: "container",
    kind: "read",
    request: (s) => ({ method: "GET", ...containerAt(s, "acl") }),
  },
  {
    slug: "set-container-acl",
    operation: "Set Container ACL",
    resource: "container",
    kind: "write",
    request: (s) => ({
      method: "PUT",
      ...containerAt(s, "acl"),
      headers: { "content-type": "application/xml" },
      body: `<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers><SignedIdentifier><Id>permitted</Id><AccessPolicy><Permission>r</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>`,
    }),
    effect: { what: "the ACL holds the permitted request's policy", holds: (s) => JSON.stringify(s.acl) === '["permitted"]' },
  },
  {
    slug: "delete-container",
    operation: "Delete Container",
    resource: "container",
    kind: "write",
    request: (s) => ({ method: "DELETE", ...containerAt(s) }),
    effect: { what: "the container is gone", holds: (s) => !s.exists },
  },
  {
    slug: "lease-container",
    operation: "Lease Container",
    resource: "container",
    kind: "write",
    request: (s) => ({
      method: "PUT",
      ...containerAt(s, "lease"),
      headers: { "x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1", "x-ms-proposed-lease-id": LEASE_ID },
    }),
    effect: { what: "the container is leased", holds: (s) => s.leaseState === "leased" },
  },
  {
    slug: "list-blobs",
    operation: "List Blobs",
    resource: "container",
    kind: "read",
    request: (s) => ({ method: "GET", ...containerAt(s, "list") }),
  },
  {
    slug: "put-blob",
    operation: "Put Blob",
    resource: "block-blob",
    kind: "write",
    request: (s) => ({ method: "PUT", ...blobAt(s), headers: { "x-ms-blob-type": "BlockBlob" }, body: NEW_CONTENT }),
    effect: { what: "the content is the permitted request's", holds: (s) => s.content === NEW_CONTENT },
  },
  {
    slug: "get-blob",
    operation: "Get Blob",
    resource: "block-blob",
    kind: "read",
    request: (s) => ({ method: "GET", ...blobAt(s) }),
    reply: {
      what: "the content and x-ms-meta-state are the blob's",
      holds: (res, s) => res.body === s.content && metadataReply.holds(res),
    },
  },
  {
    slug: "get-blob-properties",
    operation: "Get Blob Properties",
    resource: "block-blob",
    kind: "read",
    request: (s) => ({ method: "HEAD", ...blobAt(s) }),
    reply: metadataReply,
  },
  {
    slug: "set-blob-properties",
    operation: "Set Blob Properties",
    resource: "block-blob",
    kind: "write",
    request: (s) => ({ method: "PUT", ...blobAt(s, "properties"), headers: { "x-ms-blob-content-type": "text/x-permitted" } }),
    effect: { what: "the Content-Type is the permitted request's", holds: (s) => s.contentType === "text/x-permitted" },
  },
  {
    slug: "get-blob-metadata",
    operation: "Get Blob Metadata",
    referenceOnly: true,
    resource: "block-blob",
    kind: "read",
    request: (s) => ({ method: "GET", ...blobAt(s, "metadata") }),
    reply: metadataReply,
  },
  {
    slug: "set-blob-metadata",
    operation: "Set Blob Metadata",
    resource: "block-blob",
    kind: "write",
    request: (s) => ({ method: "PUT", ...blobAt(s, "metadata"), headers: { "x-ms-meta-state": "permitted" } }),
    effect: { what: "the metadata is the permitted request's", holds: (s) => s.metadata?.state === "permitted" },
  },
  {
    slug: "lease-blob",
    operation: "Lease Blob",
    resource: "block-blob",
    kind: "write",
    request: (s) => ({
      method: "PUT",
      ...blobAt(s, "lease"),
      headers: { "x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1", "x-ms-proposed-lease-id": LEASE_ID },
    }),
    effect: { what: "the blob is leased", holds: (s) => s.leaseState === "leased" },
  },
  {
    slug: "snapshot-blob",
    operation: "Snapshot Blob",
    resource: "block-blob",
    kind: "write",
    request: (s) => ({ method: "PUT", ...blobAt(s, "snapshot") }),
    effect: { what: "a snapshot exists", holds: (s) => s.snapshots === 1 },
  },
  {
    slug: "copy-blob",
    operation: "Copy Blob",
    resource: "block-blob",
    kind: "write",
    readsSource: true,
    request: (s) => ({ method: "PUT", ...blobAt(s), headers: { "x-ms-copy-source": s.sourceUrl! } }),
    effect: { what: "the destination holds the source's content", holds: (s) => s.content === SOURCE_CONTENT },
  },
  {
    slug: "abort-copy-blob",
    operation: "Abort Copy Blob",
    resource: "block-blob",
    kind: "write",
    request: (s) => ({ method: "PUT", ...blobAt(s, "copy", { copyid: s.copyId! }), headers: { "x-ms-copy-action": "abort" } }),
    effect: { what: "the copy is aborted", holds: (s) => s.copyStatus === "aborted" },
  },
  {
    slug: "delete-blob",
    operation: "Delete Blob",
    resource: "block-blob",
    kind: "write",
    request: (s) => ({ method: "DELETE", ...blobAt(s) }),
    effect: { what: "the blob is gone", holds: (s) => !s.exists },
  },
  {
    slug: "put-block",
    operation: "Put Block",
    resource: "block-blob",
    kind: "write",
    request: (s) => ({ method: "PUT", ...blobAt(s, "block", { blockid: BLOCK_ID }), body: NEW_CONTENT }),
    effect: { what: "the block is uncommitted in the block list", holds: (s) => !!s.uncommitted?.includes(BLOCK_ID) },
  },
  {
    slug: "put-block-list",
    operation: "Put Block List",
    resource: "block-blob",
    kind: "write",
    request: (s) => ({
      method: "PUT",
      ...blobAt(s, "blocklist"),
      body: `<?xml version="1.0" encoding="utf-8"?><BlockList><Latest>${BLOCK_ID}</Latest></BlockList>`,
    }),
    effect: { what: "the content is the committed block's", holds: (s) => s.content === NEW_CONTENT },
  },
  {
    slug: "get-block-list",
    operation: "Get Block List",
    resource: "block-blob",
    kind: "read",
    request: (s) => ({ method: "GET", ...blobAt(s, "blocklist", { blocklisttype: "all" }) }),
  },
  {
    slug: "put-page",
    operation: "Put Page",
    resource: "page-blob",
    kind: "write",
    request: (s) => ({
      method: "PUT",
      ...blobAt(s, "page"),
      headers: { "x-ms-range": "bytes=0-511", "x-ms-page-write": "update" },
      body: PAGE,
    }),
    effect: { what: "the page is written", holds: (s) => s.pages === "0-511" },
  },
  {
    slug: "get-page-ranges",
    operation: "Get Page Ranges",
    resource: "page-blob",
    kind: "read",
    request: (s) => ({ method: "GET", ...blobAt(s, "pagelist") }),
  },
  // Beyond the article (catalogue, section X).
  {
    slug: "get-blob-tags",
    operation: "Get Blob Tags",
    resource: "block-blob",
    kind: "read",
    request: (s) => ({ method: "GET", ...blobAt(s, "tags") }),
    reply: { what: "the tag set is the blob's", holds: (res) => /<Tag>\s*<Key>state<\/Key>/.test(res.body) },
  },
  {
    slug: "append-block",
    operation: "Append Block",
    resource: "append-blob",
    kind: "write",
    request: (s) => ({ method: "PUT", ...blobAt(s, "appendblock"), body: NEW_CONTENT }),
    effect: { what: "the block is appended", holds: (s) => s.content === "original" + NEW_CONTENT },
  },
  {
    slug: "append-block-from-url",
    operation: "Append Block From URL",
    resource: "append-blob",
    kind: "write",
    readsSource: true,
    request: (s) => ({ method: "PUT", ...blobAt(s, "appendblock"), headers: { "x-ms-copy-source": s.sourceUrl! } }),
    effect: { what: "the source's bytes are appended", holds: (s) => s.content === "original" + SOURCE_CONTENT },
  },
  {
    slug: "put-blob-from-url",
    operation: "Put Blob From URL",
    resource: "block-blob",
    kind: "write",
    readsSource: true,
    request: (s) => ({ method: "PUT", ...blobAt(s), headers: { "x-ms-copy-source": s.sourceUrl!, "x-ms-blob-type": "BlockBlob" } }),
    effect: { what: "the blob holds the source's bytes", holds: (s) => s.content === SOURCE_CONTENT },
  },
  {
    slug: "put-block-from-url",
    operation: "Put Block From URL",
    resource: "block-blob",
    kind: "write",
    readsSource: true,
    request: (s) => ({ method: "PUT", ...blobAt(s, "block", { blockid: BLOCK_ID }), headers: { "x-ms-copy-source": s.sourceUrl! } }),
    effect: { what: "the block is uncommitted in the block list", holds: (s) => !!s.uncommitted?.includes(BLOCK_ID) },
  },
  {
    slug: "copy-blob-from-url",
    operation: "Copy Blob From URL",
    resource: "block-blob",
    kind: "write",
    readsSource: true,
    request: (s) => ({ method: "PUT", ...blobAt(s), headers: { "x-ms-copy-source": s.sourceUrl!, "x-ms-requires-sync": "true" } }),
    effect: { what: "the destination holds the source's bytes", holds: (s) => s.content === SOURCE_CONTENT && s.copyStatus === "success" },
  },
  {
    slug: "put-page-from-url",
    operation: "Put Page From URL",
    resource: "page-blob",
    kind: "write",
    readsSource: true,
    request: (s) => ({
      method: "PUT",
      ...blobAt(s, "page"),
      headers: {
        "x-ms-page-write": "update",
        "x-ms-range": "bytes=0-511",
        "x-ms-source-range": "bytes=0-511",
        "x-ms-copy-source": s.sourceUrl!,
      },
    }),
    effect: { what: "the page holds the source's bytes", holds: (s) => s.pages === "0-511" && s.content === SOURCE_CONTENT },
  },
];

export const BLOB_OPERATIONS: ReadonlyMap<string, BlobOperation> = new Map(RECORDS.map((r) => [r.slug, r]));

/** The record of a REST operation (or its family: "Lease Blob (acquire)" is Lease Blob's). */
export function recordOf(operation: string): BlobOperation | undefined {
  const family = operationFamily(operation);
  return RECORDS.find((r) => r.operation === family);
}

/** The record of an operation by its slug. */
export function op(slug: string): BlobOperation {
  const r = BLOB_OPERATIONS.get(slug);
  if (!r) throw new Error(`no blob operation record ${slug}`);
  return r;
}
