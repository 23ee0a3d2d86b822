// Q, the queue's tabular claims as data. The Queue service has no ETags
// (catalogue Q, `queue/no-etag`): none of its operations may answer one; the
// row exercises every one of them, and selftest/mutants/etag-claims.ts
// generates a target that adds an ETag to each. Its settings and Update
// Message are last-writer-wins: two unconditional writers, the last one's
// value is what a read returns, and a stale If-Match is not evaluated;
// selftest/mutants/queue-claims.ts generates a target breaking each.
import { queueOp } from "./operations.ts";

/** An operation's REST name (as fixtures/wire/operations.ts names requests), from its record. */
const named = (slug: string) => queueOp(slug).operation;

/** The REST operations the queue/no-etag row makes. */
export const QUEUE_OPERATIONS = [
  "create-queue",
  "set-queue-metadata",
  "get-queue-metadata",
  "set-queue-acl",
  "get-queue-acl",
  "put-message",
  "peek-messages",
  "get-messages",
  "update-message",
  "delete-message",
  "list-queues",
  "get-queue-service-properties",
].map(named);

/** The last-writer-wins rows (last-writer-wins.rows.ts, messages-receipts.rows.ts): the write each is about. */
export const LAST_WRITER_WINS = [
  { row: "queue/queue-metadata/last-writer-wins", operation: named("set-queue-metadata") },
  { row: "queue/queue-acl/last-writer-wins", operation: named("set-queue-acl") },
  { row: "queue/service-properties/last-writer-wins", operation: named("set-queue-service-properties") },
  { row: "queue/update-message/last-writer-wins", operation: named("update-message") },
];
