// One record per REST operation of the queue service that the suite or the
// concurrency surface touches: its REST name (as fixtures/wire/operations.ts
// classifies a request), the slug its rows' IDs use, its kind, the raw
// request that performs it, and the concurrency parameters it takes
// (catalogue/surface.tsv: popreceipt, visibilitytimeout, messagettl), each
// sent by the request. The operation-records self-test reads them back
// through the classifier; adding or correcting an operation is one edit here.
import type { RawRequest } from "../../fixtures/wire/raw.ts";
import { accountRecords, recordsBySlug } from "../account-records.ts";

/** Where a record's request goes. */
export interface QueueSubject {
  queue: string;
  /** Update Message, Delete Message: the message. */
  messageId?: string;
  /** Update Message, Delete Message: the receipt Get Messages (or the last update) gave. */
  popReceipt?: string;
}

export interface QueueOperation {
  /** REST reference name, as fixtures/wire/operations.ts names a request. */
  operation: string;
  /** The operation in row IDs, e.g. `put-message`. */
  slug: string;
  /** A write changes what a later request sees: Get Messages hides the messages it returns (and counts the delivery). */
  kind: "read" | "write";
  request(s: QueueSubject): RawRequest;
  /** The concurrency parameters it takes (catalogue/surface.tsv), each in the request's query. */
  parameters: string[];
}

const XML = { "content-type": "application/xml" };
const messages = (s: QueueSubject) => `/${s.queue}/messages`;
const message = (s: QueueSubject) => `${messages(s)}/${encodeURIComponent(s.messageId!)}`;
const messageBody = (text: string) => `<QueueMessage><MessageText>${text}</MessageText></QueueMessage>`;
/** Seven days, the longest time to live a message takes besides -1 (never expires), and the default. */
const SEVEN_DAYS = String(7 * 24 * 3600);

const RECORDS: QueueOperation[] = [
  {
    operation: "Create Queue",
    slug: "create-queue",
    kind: "write",
    request: (s) => ({ method: "PUT", path: `/${s.queue}` }),
    parameters: [],
  },
  {
    operation: "Delete Queue",
    slug: "delete-queue",
    kind: "write",
    request: (s) => ({ method: "DELETE", path: `/${s.queue}` }),
    parameters: [],
  },
  {
    operation: "Get Queue Metadata",
    slug: "get-queue-metadata",
    kind: "read",
    request: (s) => ({ method: "GET", path: `/${s.queue}`, query: { comp: "metadata" } }),
    parameters: [],
  },
  {
    operation: "Set Queue Metadata",
    slug: "set-queue-metadata",
    kind: "write",
    request: (s) => ({ method: "PUT", path: `/${s.queue}`, query: { comp: "metadata" }, headers: { "x-ms-meta-state": "permitted" } }),
    parameters: [],
  },
  {
    operation: "Get Queue ACL",
    slug: "get-queue-acl",
    kind: "read",
    request: (s) => ({ method: "GET", path: `/${s.queue}`, query: { comp: "acl" } }),
    parameters: [],
  },
  {
    operation: "Set Queue ACL",
    slug: "set-queue-acl",
    kind: "write",
    request: (s) => ({
      method: "PUT",
      path: `/${s.queue}`,
      query: { comp: "acl" },
      headers: XML,
      body: `<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers><SignedIdentifier><Id>permitted</Id><AccessPolicy><Permission>r</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>`,
    }),
    parameters: [],
  },
  {
    operation: "Put Message",
    slug: "put-message",
    kind: "write",
    // Both parameters at their defaults: visible at once, kept seven days.
    request: (s) => ({
      method: "POST",
      path: messages(s),
      query: { visibilitytimeout: "0", messagettl: SEVEN_DAYS },
      headers: XML,
      body: messageBody("permitted"),
    }),
    parameters: ["messagettl", "visibilitytimeout"],
  },
  {
    operation: "Get Messages",
    slug: "get-messages",
    kind: "write",
    request: (s) => ({ method: "GET", path: messages(s), query: { numofmessages: "1", visibilitytimeout: "30" } }),
    parameters: ["visibilitytimeout"],
  },
  {
    operation: "Peek Messages",
    slug: "peek-messages",
    kind: "read",
    request: (s) => ({ method: "GET", path: messages(s), query: { peekonly: "true", numofmessages: "32" } }),
    parameters: [],
  },
  {
    operation: "Update Message",
    slug: "update-message",
    kind: "write",
    request: (s) => ({
      method: "PUT",
      path: message(s),
      query: { popreceipt: s.popReceipt!, visibilitytimeout: "0" },
      headers: XML,
      body: messageBody("updated"),
    }),
    parameters: ["popreceipt", "visibilitytimeout"],
  },
  {
    operation: "Delete Message",
    slug: "delete-message",
    kind: "write",
    request: (s) => ({ method: "DELETE", path: message(s), query: { popreceipt: s.popReceipt! } }),
    parameters: ["popreceipt"],
  },
  {
    operation: "Clear Messages",
    slug: "clear-messages",
    kind: "write",
    request: (s) => ({ method: "DELETE", path: messages(s) }),
    parameters: [],
  },
  {
    operation: "List Queues",
    slug: "list-queues",
    kind: "read",
    request: (s) => ({ method: "GET", path: "/", query: { comp: "list", prefix: s.queue } }),
    parameters: [],
  },
  ...accountRecords("Queue"),
];

/** A subject with every field, to name a record's request (fixtures/wire/operations.ts, surfaceNameOfRequest). */
export const ANY_QUEUE_SUBJECT: QueueSubject = { queue: "q", messageId: "m", popReceipt: "AgAAAAMAAAAAAAAA" };

const BY_SLUG = recordsBySlug("queue", RECORDS);
export const QUEUE_OPERATIONS = BY_SLUG.all;
/** The record of an operation by its slug. */
export const queueOp = BY_SLUG.of;
