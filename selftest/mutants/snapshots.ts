// Hand-written mutants of the snapshot rows (catalogue, X-N): a snapshot
// answered with a fresh ETag, reads of a snapshot served from the base, a
// lease that shows on (or is granted to) a snapshot, and Delete Blob's
// x-ms-delete-snapshots taken wrongly.
import { operation, query, type Mutant, type ProxyRequest } from "./types.ts";

const N = "blob/snapshot/";
const onSnapshot = (req: ProxyRequest) => query(req).get("snapshot") !== null;

export const MUTANTS: Mutant[] = [
  {
    name: "snapshot-fresh-etag",
    description: "Snapshot Blob answers a fresh ETag, not the base's (with metadata too, but keeping the base's Last-Modified)",
    kills: [`${N}etag-equals-base`, `${N}etag-with-metadata`],
    onResponse(req, res) {
      if (operation(req) === "Snapshot Blob" && res.status === 201) res.headers["etag"] = '"0x8DFEEDFACE00000"';
    },
  },
  {
    name: "snapshot-reads-base",
    description: "Get Blob on ?snapshot= is served from the base (the snapshot parameter dropped)",
    kills: [`${N}immutable`],
    onRequest(req) {
      if (req.method === "GET" && onSnapshot(req) && operation(req) === "Get Blob")
        req.url = req.url.replace(/([?&])snapshot=[^&]*&?/, "$1").replace(/[?&]$/, "");
    },
  },
  {
    name: "snapshot-lease-copied",
    description: "Get Blob Properties on a snapshot of a leased base reports the base's lease",
    kills: [`${N}no-lease-copied`],
    onResponse(req, res) {
      if (req.method === "HEAD" && onSnapshot(req) && res.status === 200)
        Object.assign(res.headers, { "x-ms-lease-state": "leased", "x-ms-lease-status": "locked" });
    },
  },
  {
    name: "snapshot-lease-granted",
    description: "Lease Blob (acquire) on a snapshot answers 201 (its 400 turned into a grant)",
    kills: [`${N}lease-refused`],
    onRequest(req) {
      if (onSnapshot(req) && operation(req).startsWith("Lease Blob")) {
        return {
          status: 201,
          headers: {
            "x-ms-lease-id": req.headers["x-ms-proposed-lease-id"] ?? "",
            "x-ms-version": req.headers["x-ms-version"] ?? "",
            date: new Date().toUTCString(),
          },
          body: Buffer.alloc(0),
        };
      }
    },
  },
  {
    name: "delete-base-takes-snapshots",
    description: "Delete Blob without x-ms-delete-snapshots deletes the base and its snapshots (as with include)",
    kills: [`${N}delete-base-needs-option`],
    onRequest(req) {
      if (operation(req) === "Delete Blob" && !onSnapshot(req) && !req.headers["x-ms-delete-snapshots"])
        req.headers["x-ms-delete-snapshots"] = "include";
    },
  },
  {
    name: "delete-only-takes-base",
    description: "Delete Blob with x-ms-delete-snapshots: only deletes the base too (as with include)",
    kills: [`${N}delete-base-needs-option`],
    onRequest(req) {
      if (operation(req) === "Delete Blob" && req.headers["x-ms-delete-snapshots"] === "only")
        req.headers["x-ms-delete-snapshots"] = "include";
    },
  },
  {
    name: "snapshot-conditional-on-base",
    description: "A conditional write to the base with the snapshot's ETag is let through (If-Match answered as holding)",
    kills: [`${N}immutable`],
    onRequest(req) {
      if (operation(req) === "Set Blob Metadata" && req.headers["if-match"]) delete req.headers["if-match"];
    },
  },
];
