// Queue helpers shared by the queue suites: raw Get Messages (the wire's own
// PopReceipt / TimeNextVisible / DequeueCount), peeks, the stale-receipt
// refusals, and a lock for the account-wide service properties.
import type { QueueClient } from "@azure/storage-queue";
import {
  answerDate,
  eachVariation,
  expectEqual,
  expectPresent,
  expectTrue,
  refusalOf,
  type Refusal,
} from "../../fixtures/harness/assert.ts";
import type { RowContext } from "../../fixtures/harness/engine.ts";
import type { MatrixPlace } from "../../model/matrix.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { currentEvidence } from "../../fixtures/wire/evidence.ts";
import { rethrowIfFault } from "../../fixtures/wire/signals.ts";

export const queueSource = (rest: string) => `seed: queue section; REST: ${rest}`;

export interface WireMessage {
  messageId: string;
  popReceipt?: string;
  timeNextVisible?: string;
  expirationTime?: string;
  dequeueCount?: number;
  text?: string;
}

const element = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

/** Parses a QueueMessagesList body as it came off the wire. */
export function parseMessages(body: string): WireMessage[] {
  return [...body.matchAll(/<QueueMessage>([\s\S]*?)<\/QueueMessage>/g)].map(([, m]) => {
    const dc = element(m, "DequeueCount");
    return {
      messageId: element(m, "MessageId") ?? "",
      popReceipt: element(m, "PopReceipt"),
      timeNextVisible: element(m, "TimeNextVisible"),
      expirationTime: element(m, "ExpirationTime"),
      dequeueCount: dc === undefined ? undefined : Number(dc),
      text: element(m, "MessageText"),
    };
  });
}

export const messagesPath = (q: QueueClient) => `/${q.name}/messages`;

/**
 * Get Messages (the SDK), and the first message it handed out with its pop
 * receipt: an answer with no message, or a message without a receipt, fails
 * the row naming the operation and what the answer lacked (never the suite's
 * own exception).
 */
export async function receiveOne(
  q: QueueClient,
  visibilityTimeout: number,
  what = "Get Messages",
): Promise<{ messageId: string; popReceipt: string }> {
  const m = expectPresent(
    `${what}: a message (the answer handed out none)`,
    (await q.receiveMessages({ visibilityTimeout })).receivedMessageItems.at(0),
  );
  return { messageId: m.messageId, popReceipt: expectPresent(`${what}: the message's PopReceipt`, m.popReceipt) };
}

/** The receipt an Update Message answered (x-ms-popreceipt), or a FAIL naming the operation. */
export const receiptOf = (res: { popReceipt?: string }, what = "Update Message"): string =>
  expectPresent(`${what}: x-ms-popreceipt`, res.popReceipt);

/** Raw Get Messages (or Peek Messages) with the given query. */
export async function rawGetMessages(
  t: RowContext,
  q: QueueClient,
  query: Record<string, string>,
): Promise<{ res: RawResponse; messages: WireMessage[] }> {
  const res = await t.raw("queue", { method: "GET", path: messagesPath(q), query });
  return { res, messages: res.status === 200 ? parseMessages(res.body) : [] };
}

/** Raw Put Message with the given query (messagettl, visibilitytimeout); the message as its answer describes it. */
export async function rawPutMessage(
  t: RowContext,
  q: QueueClient,
  text: string,
  query: Record<string, string> = {},
): Promise<{ res: RawResponse; message?: WireMessage }> {
  const res = await t.raw("queue", {
    method: "POST",
    path: messagesPath(q),
    query,
    headers: { "content-type": "application/xml" },
    body: `<QueueMessage><MessageText>${text}</MessageText></QueueMessage>`,
  });
  return { res, message: res.status === 201 ? parseMessages(res.body)[0] : undefined };
}

/** Raw Delete Message with a receipt. */
export const rawDeleteMessage = (t: RowContext, q: QueueClient, id: string, popreceipt: string) =>
  t.raw("queue", { method: "DELETE", path: `${messagesPath(q)}/${id}`, query: { popreceipt } });

/** Raw Update Message with a receipt, a visibility timeout and a new text. */
export const rawUpdateMessage = (t: RowContext, q: QueueClient, id: string, popreceipt: string, visibilitytimeout: number, text: string) =>
  t.raw("queue", {
    method: "PUT",
    path: `${messagesPath(q)}/${id}`,
    query: { popreceipt, visibilitytimeout: String(visibilitytimeout) },
    headers: { "content-type": "application/xml" },
    body: `<QueueMessage><MessageText>${text}</MessageText></QueueMessage>`,
  });

/** The server's clock (ms), from Get Queue Metadata's Date: a request that changes nothing. */
export const queueClock = async (t: RowContext, q: QueueClient): Promise<number> =>
  answerDate(await t.raw("queue", { method: "GET", path: `/${q.name}`, query: { comp: "metadata" } }), "Get Queue Metadata");

/** Raw Peek Messages: what is visible now, without dequeuing it. */
export async function peek(t: RowContext, q: QueueClient, n = 32): Promise<WireMessage[]> {
  const { res, messages } = await rawGetMessages(t, q, { peekonly: "true", numofmessages: String(n) });
  expectEqual("Peek Messages status", res.status, 200);
  return messages;
}

/** The IDs of the visible messages. */
export async function visibleIds(t: RowContext, q: QueueClient): Promise<string[]> {
  return (await peek(t, q)).map((m) => m.messageId).sort();
}

/** A fresh queue holding one message. */
export async function queueWithMessage(t: RowContext, text = "original"): Promise<{ q: QueueClient; id: string }> {
  const q = await t.newQueue();
  const sent = await q.sendMessage(text);
  return { q, id: sent.messageId };
}

/** A second, independent client on the same queue (another receiver). */
export function otherClient(t: RowContext, q: QueueClient): QueueClient {
  return t.clients.queue().getQueueClient(q.name);
}

/** Seconds between two RFC 1123 dates. */
export const secondsBetween = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 1000;

/** Long enough that nothing in a row outlives it; short enough to be harmless if left behind. */
export const HOLD_S = 30;

/**
 * The only answer to a stale pop receipt (one superseded by Update Message or
 * a later dequeue), on Delete Message and Update Message alike: `rest` 404
 * MessageNotFound (catalogue Q; the current Delete Message reference and a
 * live capture agree). 400 PopReceiptMismatch, which some emulators answer, is
 * a deviation to pin, not an alternative.
 */
export const STALE_RECEIPT = { status: 404, code: "MessageNotFound" };

/**
 * Awaits an operation with a stale receipt: it must be refused (success fails
 * the row at once). The `doc` rows stop there; the `rest` row checks the code
 * (expectStaleReceiptRefusals) once the message was read back, so a deviating
 * code cannot hide a refused operation that was applied after all.
 */
/** A request refused for its stale receipt: what it was, the refusal, and the step it was sent in. */
export type StaleRefusal = [what: string, got: Refusal, step?: string];

export async function staleReceiptRefused(what: string, op: Promise<unknown>): Promise<StaleRefusal> {
  const step = currentEvidence()?.step;
  let got: Refusal | undefined;
  try {
    await op;
  } catch (err) {
    rethrowIfFault(err);
    got = refusalOf(err);
  }
  expectTrue(`${what}: expected refusal ${STALE_RECEIPT.status} ${STALE_RECEIPT.code}, but it succeeded`, got !== undefined, {
    expected: `${STALE_RECEIPT.status} ${STALE_RECEIPT.code}`,
    got: "success",
  });
  return [what, got!, step];
}

/**
 * Each stale-receipt refusal was 404 MessageNotFound (the failure names every
 * request that was not, and the step it was sent in, not the read-back's).
 */
export function expectStaleReceiptRefusals(refusals: StaleRefusal[]): Promise<void> {
  return eachVariation(
    refusals.map(([what, got, step]) => ({
      label: what,
      run: async () => {
        const shown = `${got.status}${got.code ? " " + got.code : ""}`;
        expectTrue(
          `${what}: expected ${STALE_RECEIPT.status} ${STALE_RECEIPT.code}, got ${shown}`,
          got.status === STALE_RECEIPT.status && got.code === STALE_RECEIPT.code,
          { ...(step ? { step } : {}), expected: `${STALE_RECEIPT.status} ${STALE_RECEIPT.code}`, got: shown },
        );
      },
    })),
  );
}

/** Receives `id` once it is visible again (polling), with a long hold so it stays ours. */
export async function receiveAgain(t: RowContext, q: QueueClient, id: string, what: string) {
  return t.waitFor(
    what,
    async () => {
      const got = await q.receiveMessages({ visibilityTimeout: HOLD_S });
      return got.receivedMessageItems.find((m) => m.messageId === id);
    },
    { timeoutMs: 10_000, intervalMs: 200 },
  );
}

// Service properties are account-wide: rows that change them run one at a
// time within the process (self-tests run many targets against one account).
let chain: Promise<unknown> = Promise.resolve();
export function serialised<T>(fn: () => Promise<T>): Promise<T> {
  const run = chain.then(fn, fn);
  chain = run.catch(() => undefined);
  return run;
}

/** The seed's queue section has no table: the report's Q table has a line per claim, in the article's order. */
export const QUEUE_LINES = {
  "pop-receipt": "Get Messages returns a pop receipt (Peek does not)",
  "not-deleted": "Dequeuing does not delete the message",
  invisible: "A dequeued message is invisible to other clients",
  "invisible-until-end": "… until its TimeNextVisible, not only just after the dequeue",
  "time-next-visible": "TimeNextVisible = retrieval time + visibility timeout",
  "requires-pop-receipt": "Delete Message requires the current pop receipt",
  "update-last-writer-wins": "Update Message: last writer wins (receipt only)",
  "dequeue-count": "Redelivery increments DequeueCount",
  "exclusive-delivery": "Each message goes to one receiver at a time",
  "metadata-last-writer-wins": "Set Queue Metadata: last writer wins",
  "acl-last-writer-wins": "Set Queue ACL: last writer wins",
  "service-properties-last-writer-wins": "Set Queue Service Properties: last writer wins",
} as const;

/** A row's line in the report's Q table (model/matrix.ts). */
export const queueCell = (line: keyof typeof QUEUE_LINES): MatrixPlace[] => [
  { section: "Q", row: QUEUE_LINES[line], column: "claim", claim: "Yes" },
];

/** The requests of the message operations on a placeholder message (the request classifier names them). */
export const MESSAGE_REQUEST = {
  put: { method: "POST", path: "/q/messages" },
  get: { method: "GET", path: "/q/messages" },
  update: { method: "PUT", path: "/q/messages/m" },
  delete: { method: "DELETE", path: "/q/messages/m" },
} as const;
