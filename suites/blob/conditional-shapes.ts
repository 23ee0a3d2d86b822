// C, every shape of a conditional request (`blob/conditional-rules/`): a
// condition covers every shape of the operation that takes it, evaluated
// against the resource the request addresses. One entry per (operation,
// shape): the request, how the shape shows on the wire (the mutants find it
// by this), what a holding request answers or leaves behind, and whose
// validators the condition is about (the blob, its snapshot, its version).
// conditional-shapes.rows.ts runs them; selftest/mutants/conditional-shapes.ts
// makes of each a target that ignores the condition on that shape (and, on a
// snapshot or a version, one that evaluates it against the base).
import type { RawRequest, RawResponse } from "../../fixtures/wire/raw.ts";
import { claimAt } from "../../fixtures/harness/locations.ts";
import { blobAt, OTHER } from "./operations.ts";

/** The request a shape sends, and what the row knows when it builds it. */
export interface ShapeSubject {
  container: string;
  blob: string;
  /** The snapshot or version the condition is about. */
  snapshot?: string;
  versionId?: string;
  /** The lease ID the blob is leased with (the lease actions' shapes). */
  leaseId?: string;
  /** A second lease ID (change's proposed ID). */
  otherId?: string;
}

/** What a permitted request of the shape shows: in its answer (a read) or in the state read back (a write). */
export interface ShapeState {
  content?: string;
  etag?: string;
  leaseState?: string;
  /** Who holds the lease: "lease" (leaseId), "other" (otherId), none. */
  heldBy?: "lease" | "other";
  pages?: string;
}

/** A request as the wire shows it, for the mutants (lower-case header names). */
export interface WireShape {
  method: string;
  headers: Record<string, string>;
  query: URLSearchParams;
  body: string;
}

export interface ConditionShape {
  id: string;
  /** The operation as the request classifier names it. */
  operation: string;
  /** The shape, for people: "with Range: bytes=0-3". */
  shape: string;
  resource: "block-blob" | "page-blob";
  kind: "read" | "write";
  /** Whose validators the condition is about. */
  on: "blob" | "snapshot" | "version";
  /** Set up before the history: a page written, two blocks committed, the blob leased. */
  setup?: "page" | "blocks" | "lease";
  request(s: ShapeSubject): RawRequest;
  /** The status a holding request answers. */
  ok: number;
  /** What a holding request answers (a read) or leaves (a write). */
  holds: { what: string; check(res: RawResponse, after: ShapeState): boolean };
  /** Whether a request on the wire is of this shape (the operation aside). */
  marks(req: WireShape): boolean;
}

const RANGE = "bytes=0-3";
const PAGE_RANGE = "bytes=0-511";
export const FIRST_BLOCK = Buffer.from("shape-block-0001").toString("base64");
export const SECOND_BLOCK = Buffer.from("shape-block-0002").toString("base64");
export const FIRST_BLOCK_CONTENT = "first block ";
export const PAGE_BYTES = "s".repeat(512);

const has = (name: string) => (r: WireShape) => r.headers[name] !== undefined;
const inQuery = (name: string) => (r: WireShape) => r.query.has(name);
const ranged = (what: string, headers: Record<string, string>, marks: (r: WireShape) => boolean, extra?: (res: RawResponse) => boolean) =>
  ({
    operation: "Get Blob",
    resource: "block-blob",
    kind: "read",
    on: "blob",
    request: (s: ShapeSubject) => ({ method: "GET", ...blobAt(s), headers }),
    ok: 206,
    holds: {
      what: `the range (206, bytes 0-3)${what}`,
      check: (res: RawResponse) => res.body === "orig" && (!extra || extra(res)),
    },
    marks,
  }) as const;

const leaseShape = (action: string, headers: (s: ShapeSubject) => Record<string, string>, after: ShapeState, ok = 200): ConditionShape => ({
  id: `blob/conditional-rules/lease-blob/${action}`,
  operation: `Lease Blob (${action})`,
  shape: "on a leased blob",
  resource: "block-blob",
  kind: "write",
  on: "blob",
  setup: "lease",
  request: (s) => ({ method: "PUT", ...blobAt(s, "lease"), headers: { "x-ms-lease-action": action, ...headers(s) } }),
  ok,
  holds: {
    what: `the lease ${after.leaseState}${after.heldBy ? ` held by ${after.heldBy === "lease" ? "the lease's ID" : "the proposed ID"}` : ""}`,
    check: (_res, s) => s.leaseState === after.leaseState && (!after.heldBy || s.heldBy === after.heldBy),
  },
  marks: () => true,
});

const snapshotRead = (on: "snapshot" | "version", method: "GET" | "HEAD"): ConditionShape => {
  const param = on === "snapshot" ? "snapshot" : "versionid";
  const operation = method === "GET" ? "Get Blob" : "Get Blob Properties";
  return {
    id: `blob/conditional-rules/${on}-read/${method === "GET" ? "get-blob" : "get-blob-properties"}`,
    operation,
    shape: `of a ${on} (${param}=)`,
    resource: "block-blob",
    kind: "read",
    on,
    request: (s) => ({ method, ...blobAt(s, undefined, { [param]: (on === "snapshot" ? s.snapshot : s.versionId)! }) }),
    ok: 200,
    holds: {
      what: `the ${on}'s own ETag${method === "GET" ? " and content" : ""}`,
      check: (res, s) => res.headers["etag"] === s.etag && (method === "HEAD" || res.body === s.content),
    },
    marks: inQuery(param),
  };
};

export const SHAPES: ConditionShape[] = [
  { id: "blob/conditional-rules/ranged-read/range", shape: "with Range", ...ranged("", { range: RANGE }, has("range")) },
  {
    id: "blob/conditional-rules/ranged-read/x-ms-range",
    shape: "with x-ms-range",
    ...ranged(
      "",
      { "x-ms-range": RANGE },
      (r) => has("x-ms-range")(r) && !has("x-ms-range-get-content-md5")(r) && !has("x-ms-range-get-content-crc64")(r),
    ),
  },
  {
    id: "blob/conditional-rules/ranged-read/range-md5",
    shape: "with x-ms-range and x-ms-range-get-content-md5",
    ...ranged(
      " with its Content-MD5",
      { "x-ms-range": RANGE, "x-ms-range-get-content-md5": "true" },
      has("x-ms-range-get-content-md5"),
      (res) => !!res.headers["content-md5"],
    ),
  },
  {
    id: "blob/conditional-rules/ranged-read/range-crc64",
    shape: "with x-ms-range and x-ms-range-get-content-crc64",
    ...ranged(
      " with its x-ms-content-crc64",
      { "x-ms-range": RANGE, "x-ms-range-get-content-crc64": "true" },
      has("x-ms-range-get-content-crc64"),
      (res) => !!res.headers["x-ms-content-crc64"],
    ),
  },
  snapshotRead("snapshot", "GET"),
  snapshotRead("snapshot", "HEAD"),
  snapshotRead("version", "GET"),
  snapshotRead("version", "HEAD"),
  {
    id: "blob/conditional-rules/put-page/range",
    operation: "Put Page",
    shape: "with Range instead of x-ms-range",
    resource: "page-blob",
    kind: "write",
    on: "blob",
    request: (s) => ({
      method: "PUT",
      ...blobAt(s, "page"),
      headers: { range: PAGE_RANGE, "x-ms-page-write": "update" },
      body: PAGE_BYTES,
    }),
    ok: 201,
    holds: { what: "the page written", check: (_res, s) => s.pages === "0-511" },
    marks: (r) => has("range")(r) && !has("x-ms-range")(r),
  },
  {
    id: "blob/conditional-rules/get-page-ranges/range",
    operation: "Get Page Ranges",
    shape: "with x-ms-range",
    resource: "page-blob",
    kind: "read",
    on: "blob",
    setup: "page",
    request: (s) => ({ method: "GET", ...blobAt(s, "pagelist"), headers: { "x-ms-range": PAGE_RANGE } }),
    ok: 200,
    holds: { what: "the page 0-511 listed", check: (res) => /<Start>\s*0\s*<\/Start>\s*<End>\s*511\s*<\/End>/.test(res.body) },
    marks: has("x-ms-range"),
  },
  {
    id: "blob/conditional-rules/put-block-list/committed",
    operation: "Put Block List",
    shape: "committing blocks already committed",
    resource: "block-blob",
    kind: "write",
    on: "blob",
    setup: "blocks",
    request: (s) => ({
      method: "PUT",
      ...blobAt(s, "blocklist"),
      body: `<?xml version="1.0" encoding="utf-8"?><BlockList><Committed>${FIRST_BLOCK}</Committed></BlockList>`,
    }),
    ok: 201,
    holds: { what: "the content is the first block's alone", check: (_res, s) => s.content === FIRST_BLOCK_CONTENT },
    marks: (r) => r.body.includes("<Committed>"),
  },
  {
    id: "blob/conditional-rules/get-blob-metadata/head",
    operation: "Get Blob Metadata",
    shape: "as HEAD",
    resource: "block-blob",
    kind: "read",
    on: "blob",
    request: (s) => ({ method: "HEAD", ...blobAt(s, "metadata") }),
    ok: 200,
    holds: { what: "x-ms-meta-state is the other writer's", check: (res) => res.headers["x-ms-meta-state"] === OTHER },
    marks: (r) => r.method === "HEAD",
  },
  leaseShape("renew", (s) => ({ "x-ms-lease-id": s.leaseId! }), { leaseState: "leased", heldBy: "lease" }),
  leaseShape("change", (s) => ({ "x-ms-lease-id": s.leaseId!, "x-ms-proposed-lease-id": s.otherId! }), {
    leaseState: "leased",
    heldBy: "other",
  }),
  leaseShape("release", (s) => ({ "x-ms-lease-id": s.leaseId! }), { leaseState: "available" }),
  leaseShape("break", () => ({ "x-ms-lease-break-period": "0" }), { leaseState: "broken" }, 202),
];

/** A shape's line (its row's claim): its ID's, or the call that makes it. */
export function shapeAt(s: ConditionShape) {
  const [, , family, variant] = s.id.split("/");
  if (family === "lease-blob") return claimAt(import.meta.url, `leaseShape("${variant}"`);
  if (family === "snapshot-read" || family === "version-read")
    return claimAt(import.meta.url, `snapshotRead("${family.split("-")[0]}", "${variant === "get-blob" ? "GET" : "HEAD"}")`);
  return claimAt(import.meta.url, `"${s.id}"`);
}
