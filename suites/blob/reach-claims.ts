// How far a blob or container lease reaches (catalogue L: `blob/lease/reach/*`;
// catalogue L, container leases: `blobs-unlocked`): the lock, each resource
// it must leave alone, the operations (records of operations.ts) sent there
// without any lease ID, each of which must succeed and read back applied,
// and where the lock's own ID sent to that resource is refused as an ID on
// an unleased one. Data only: reach.rows.ts runs it, and
// selftest/mutants/reach.ts makes of each line a lock that reaches too far.

/** What a lease leaves alone, as the mutants find it on the wire. */
export type Relation =
  /** A blob of the leased container. */
  | "blob-in-container"
  /** A snapshot of the leased blob. */
  | "snapshot-of-blob"
  /** The container of the leased blob. */
  | "container-of-blob"
  /** Another blob of the leased blob's container. */
  | "blob-beside"
  /** A blob of the same name as the leased blob, in another container. */
  | "same-name-elsewhere";

export interface ReachSubject {
  relation: Relation;
  /** For people: "a blob of the leased container". */
  label: string;
  /** Operation slugs (operations.ts) sent without a lease ID, in order: each succeeds and reads back applied (a read: answers). */
  free: string[];
  /** Headers an operation of `free` needs here beyond its record's (Delete Blob of a blob that has a snapshot). */
  with?: Record<string, Record<string, string>>;
  /** The lock's lease ID sent with this operation → 412 with this code, the resource unchanged. */
  idRefused?: { slug: string; code: string };
}

export interface ReachClaim {
  id: string;
  lock: "blob" | "container";
  title: string;
  subjects: ReachSubject[];
}

const NOT_PRESENT = "LeaseNotPresentWithBlobOperation";

export const REACH: ReachClaim[] = [
  {
    id: "blob/container-lease/blobs-unlocked",
    lock: "container",
    title:
      "A container lease locks Delete Container only, never its blobs: Put Blob, Set Blob Metadata, Set Blob Properties, Put Block List, Snapshot Blob and Delete Blob without any lease ID succeed and read back applied; the container's lease ID sent to one of its blobs → 412 LeaseNotPresentWithBlobOperation, the blob unchanged",
    subjects: [
      {
        relation: "blob-in-container",
        label: "a blob of the leased container",
        free: ["put-blob", "set-blob-metadata", "set-blob-properties", "put-block", "put-block-list", "snapshot-blob", "delete-blob"],
        with: { "delete-blob": { "x-ms-delete-snapshots": "include" } },
        idRefused: { slug: "set-blob-metadata", code: NOT_PRESENT },
      },
    ],
  },
  {
    id: "blob/lease/reach/snapshot",
    lock: "blob",
    title:
      "A blob lease does not lock its snapshots: Get Blob and Get Blob Properties of a snapshot succeed without an ID; the base stays leased",
    subjects: [{ relation: "snapshot-of-blob", label: "a snapshot of the leased blob", free: ["get-blob", "get-blob-properties"] }],
  },
  {
    id: "blob/lease/reach/container",
    lock: "blob",
    title:
      "A blob lease does not lock its container: Set Container Metadata and Set Container ACL without any ID succeed and read back applied; the blob stays leased",
    subjects: [
      { relation: "container-of-blob", label: "the container of the leased blob", free: ["set-container-metadata", "set-container-acl"] },
    ],
  },
  {
    id: "blob/lease/reach/sibling",
    lock: "blob",
    title:
      "A lease is the lease of one blob: another blob of the container, and a blob of the same name in another container, take writes without an ID; the lease's ID sent to them → 412 LeaseNotPresentWithBlobOperation, unchanged",
    subjects: [
      {
        relation: "blob-beside",
        label: "another blob of the same container",
        free: ["put-blob", "set-blob-metadata"],
        idRefused: { slug: "set-blob-metadata", code: NOT_PRESENT },
      },
      {
        relation: "same-name-elsewhere",
        label: "a blob of the same name in another container",
        free: ["put-blob", "set-blob-metadata"],
        idRefused: { slug: "set-blob-metadata", code: NOT_PRESENT },
      },
    ],
  },
];

/** This module, where each claim's line is (its row's claim). */
export const REACH_URL = import.meta.url;
