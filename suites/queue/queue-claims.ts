// Q, the queue's tabular claims as data. The Queue service has no ETags
// (catalogue Q, `queue/no-etag`): none of its operations may answer one; the
// row exercises every one of them, and selftest/mutants/etag-claims.ts
// generates a target that adds an ETag to each. Its settings and Update
// Message are last-writer-wins: two unconditional writers, the last one's
// value is what a read returns, and a stale If-Match is not evaluated;
// selftest/mutants/queue-claims.ts generates a target breaking each.

/** The REST operations (as fixtures/wire/operations.ts names requests) the queue/no-etag row makes. */
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

/** The last-writer-wins rows (last-writer-wins.rows.ts, messages-receipts.rows.ts): the write each is about. */
export const LAST_WRITER_WINS = [
  { row: "queue/queue-metadata/last-writer-wins", operation: "Set Queue Metadata" },
  { row: "queue/queue-acl/last-writer-wins", operation: "Set Queue ACL" },
  { row: "queue/service-properties/last-writer-wins", operation: "Set Queue Service Properties" },
  { row: "queue/update-message/last-writer-wins", operation: "Update Message" },
];
