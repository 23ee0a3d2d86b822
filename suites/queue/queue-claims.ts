// Q, the queue operations as data: the Queue service has no ETags (catalogue
// Q, `queue/no-etag`), so none of these operations may answer one. The row
// exercises every one of them, and selftest/mutants/etag-claims.ts generates a
// target that adds an ETag to each.

/** The REST operations (as fixtures/operations.ts names requests) the queue/no-etag row makes. */
export const QUEUE_OPERATIONS = [
  "Create Queue",
  "Set Queue Metadata",
  "Get Queue Metadata",
  "Set Queue ACL",
  "Get Queue ACL",
  "Put Message",
  "Peek Messages",
  "Get Messages",
  "Update Message",
  "Delete Message",
  "List Queues",
  "Get Queue Service Properties",
];
