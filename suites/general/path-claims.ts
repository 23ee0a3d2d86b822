// Every read path agrees with the strongest one (catalogue G, general/paths/*):
// the paths that hand out a resource's validators or state besides its own
// read (a listing, a batch's sub-responses, a peek, a copy's or a snapshot's
// answer, a query) as data. Each entry says what the path shows, item by
// item, and how it looks on the wire; paths.rows.ts runs the rows, and
// selftest/mutants/paths.ts generates, for each path and each thing it shows,
// a target that serves it stale (and, for a listing, one that keeps listing
// what was deleted and one that misses what is new).
import type { Level, Service } from "../../model/result.ts";
import type { WireRequest } from "../../fixtures/wire/operations.ts";

/** What the path shows of an item, and where on the wire. */
export interface PathField {
  name: string;
  /** An XML element of each listed item, a header of the answer, a property of each JSON entity, or each batch sub-response's header. */
  where: "xml" | "header" | "json" | "batch";
  /** Element, header or property name. */
  key: string;
}

export interface PathClaim {
  id: string;
  service: Service;
  level: Level;
  title: string;
  source: string;
  /** Whether a request reads by this path. */
  reads(req: WireRequest): boolean;
  /**
   * A listing: the XML element of each item and the element naming it, and
   * whether a deleted item must be gone from it at once (Azure deletes a
   * container in the background: whether List Containers still shows it
   * meanwhile is not documented, so that listing is not held to it).
   */
  items?: { element: string; name: string; deletedGone: boolean };
  fields: PathField[];
}

const xml = (...names: string[]): PathField[] => names.map((n) => ({ name: n, where: "xml", key: n }));

export const PATHS: PathClaim[] = [
  {
    id: "general/paths/list-blobs",
    service: "blob",
    level: "doc",
    title:
      "Right after a write, a lease action and a delete, List Blobs shows exactly what Get Blob Properties shows (ETag, Last-Modified, lease state and status); a new blob is listed, a deleted one is not; an If-Match with the listed ETag succeeds",
    source: "seed: introduction (strong consistency); REST: List Blobs, Get Blob Properties",
    reads: (r) => r.method === "GET" && r.query.get("restype") === "container" && r.query.get("comp") === "list",
    items: { element: "Blob", name: "Name", deletedGone: true },
    fields: xml("Etag", "Last-Modified", "LeaseState", "LeaseStatus"),
  },
  {
    id: "general/paths/list-containers",
    service: "blob",
    level: "doc",
    title:
      "Right after a metadata write and a lease action, List Containers shows exactly what Get Container Properties shows (ETag, Last-Modified, lease state and status); a new container is listed",
    source: "seed: introduction (strong consistency); REST: List Containers, Get Container Properties",
    reads: (r) => r.method === "GET" && r.path.split("/").filter(Boolean).length === 0 && r.query.get("comp") === "list",
    items: { element: "Container", name: "Name", deletedGone: false },
    fields: xml("Etag", "Last-Modified", "LeaseState", "LeaseStatus"),
  },
  {
    id: "general/paths/batch-etags",
    service: "table",
    level: "doc",
    title:
      "Every sub-response of a committed table batch carries the ETag the entity then has: Get Entity returns the same, and an If-Match with it succeeds",
    source: "seed: table of entity operations (Returns ETag); REST: Performing Entity Group Transactions",
    reads: (r) => r.method === "POST" && r.path.endsWith("/$batch"),
    fields: [{ name: "ETag", where: "batch", key: "etag" }],
  },
  {
    id: "general/paths/peek",
    service: "queue",
    level: "doc",
    title: "Right after Put Message, Update Message (visibility 0) and Delete Message, Peek Messages shows the current text, or no message",
    source: "seed: queue section; REST: Peek Messages",
    reads: (r) => r.method === "GET" && r.path.endsWith("/messages") && r.query.get("peekonly")?.toLowerCase() === "true",
    items: { element: "QueueMessage", name: "MessageId", deletedGone: true },
    fields: xml("MessageText"),
  },
  {
    id: "general/paths/copy-destination",
    service: "blob",
    level: "doc",
    title:
      "A completed Copy Blob answers the destination's ETag: Get Blob Properties and List Blobs show the same, and an If-Match with it succeeds",
    source: "seed: table of blob operations (Copy Blob returns an ETag); REST: Copy Blob",
    reads: (r) => r.method === "PUT" && r.header("x-ms-copy-source") !== undefined && !r.query.get("comp"),
    fields: [{ name: "ETag", where: "header", key: "etag" }],
  },
  {
    id: "general/paths/snapshot",
    service: "blob",
    level: "doc",
    title:
      "Snapshot Blob answers the snapshot's ETag: reading the snapshot and listing it show the same, and a read with If-Match and that ETag succeeds",
    source: "seed: table of blob operations (Snapshot Blob returns an ETag); REST: Snapshot Blob",
    reads: (r) => r.method === "PUT" && r.query.get("comp") === "snapshot",
    fields: [{ name: "ETag", where: "header", key: "etag" }],
  },
  {
    id: "general/paths/query-entities",
    service: "table",
    level: "doc",
    title:
      "Query Entities lists each entity with the ETag Get Entity answers (odata.etag), right after a write; an Update Entity with If-Match and that ETag succeeds",
    source: "seed: table of entity operations (Query Entities returns odata.etag); REST: Query Entities",
    reads: (r) => r.method === "GET" && /\(\)$/.test(r.path),
    fields: [{ name: "odata.etag", where: "json", key: "odata.etag" }],
  },
];
