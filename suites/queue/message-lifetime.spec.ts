// Q message lifetime, Clear Messages and DequeueCount (catalogue Q, second
// table; REST: Put Message, Get Messages, Update Message, Clear Messages). The
// windows with both ends probed (message-ttl/expiry, put-message/
// initial-invisibility) are window claims (suites/general/window-claims.ts);
// these rows check what follows a window's end, the refusals, and the counts.
// Times are the server's: ExpirationTime and TimeNextVisible from the answers.
import type { QueueClient } from "@azure/storage-queue";
import { expectEqual, expectRawStatus, expectTrue } from "../../fixtures/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/engine.ts";
import type { RawResponse } from "../../fixtures/raw.ts";
import { defineTable } from "../../fixtures/registry.ts";
import { serverDate } from "../blob/lease-kit.ts";
import { messagesPath, peek, queueClock, queueSource, rawDeleteMessage, rawGetMessages, rawPutMessage, rawUpdateMessage, type WireMessage } from "./queue-kit.ts";

/** The ExpirationTime of a message that never expires (messagettl=-1, 2017-07-29 and later). */
const NEVER = "Fri, 31 Dec 9999 23:59:59 GMT";
const GONE = { status: 404, code: "MessageNotFound" };


/** Waits until the server's clock is past `at` (ms) by one second (its granularity). */
const pastByServerClock = (t: RowContext, q: QueueClient, at: number, what: string) =>
  t.waitForServerTime(`the server's clock a second past ${what}`, () => queueClock(t, q), (d) => d, at + 1000, { timeoutMs: 30_000, intervalMs: 250 });

/** Puts a message with the query given, expecting it enqueued. */
async function put(t: RowContext, q: QueueClient, query: Record<string, string>): Promise<{ res: RawResponse; message: WireMessage }> {
  const { res, message } = await rawPutMessage(t, q, "original", query);
  expectRawStatus(`Put Message (${new URLSearchParams(query)})`, res, { status: 201 });
  return { res, message: message! };
}

/** Dequeues the one message, expecting `id`. */
async function dequeue(t: RowContext, q: QueueClient, id: string, visibilitytimeout: number): Promise<WireMessage> {
  const { res, messages } = await rawGetMessages(t, q, { visibilitytimeout: String(visibilitytimeout) });
  expectEqual(`Get Messages with visibilitytimeout ${visibilitytimeout}`, [res.status, messages.map((m) => m.messageId)], [200, [id]]);
  return messages[0];
}

/** Neither peeked nor dequeued. */
async function expectNothingDelivered(t: RowContext, q: QueueClient, when: string): Promise<void> {
  expectEqual(`messages peeked ${when}`, (await peek(t, q)).map((m) => m.messageId), []);
  const { messages } = await rawGetMessages(t, q, { numofmessages: "32", visibilitytimeout: "30" });
  expectEqual(`messages dequeued ${when}`, messages.map((m) => m.messageId), []);
}

const rows: RowDef[] = [
  {
    id: "queue/message-ttl/expires-while-invisible",
    title: "A message dequeued with a visibility timeout that ends after its expiry never comes back: after the timeout it is neither peeked nor dequeued, and its receipt → 404 MessageNotFound",
    level: "rest",
    source: queueSource("Put Message (messagettl), Get Messages (visibilitytimeout)"),
    service: "queue",
    waitSeconds: 7,
    async run(t) {
      const q = await t.newQueue();
      t.step("Put Message with messagettl 3");
      const { message } = await put(t, q, { messagettl: "3" });
      t.step("dequeue with visibilitytimeout 6, past the message's expiry");
      const got = await dequeue(t, q, message.messageId, 6);
      const end = Date.parse(got.timeNextVisible ?? "");
      expectTrue("Get Messages answered no TimeNextVisible", Number.isFinite(end));
      t.step("after the visibility timeout (server clock)");
      await pastByServerClock(t, q, end, "the TimeNextVisible");
      await expectNothingDelivered(t, q, "after the visibility timeout of a message that expired while invisible");
      expectRawStatus("Delete Message with the receipt of a message that expired while invisible", await rawDeleteMessage(t, q, message.messageId, got.popReceipt!), GONE);
    },
  },
  {
    id: "queue/message-ttl/infinite",
    title: "Put Message with messagettl=-1: ExpirationTime is Fri, 31 Dec 9999 23:59:59 GMT on the Put Message answer and on Peek Messages",
    level: "rest",
    source: queueSource("Put Message (messagettl -1, 2017-07-29 and later), Peek Messages"),
    service: "queue",
    async run(t) {
      const q = await t.newQueue();
      t.step("Put Message with messagettl -1");
      const { message } = await put(t, q, { messagettl: "-1" });
      expectEqual("ExpirationTime in the Put Message answer", message.expirationTime, NEVER);
      t.step("peek the message");
      const seen = (await peek(t, q)).find((m) => m.messageId === message.messageId);
      expectEqual("ExpirationTime on Peek Messages", seen?.expirationTime, NEVER);
    },
  },
  {
    id: "queue/put-message/visibility-below-ttl",
    title: "Put Message with a visibility timeout greater than its time to live → 400, and nothing is enqueued (approximate count 0, nothing dequeued after the timeout); a timeout equal to the time to live is recorded",
    level: "rest",
    source: queueSource("Put Message (visibilitytimeout must be smaller than messagettl)"),
    service: "queue",
    waitSeconds: 5,
    async run(t) {
      const q = await t.newQueue();
      t.step("Put Message with visibilitytimeout 4 and messagettl 2");
      const { res } = await rawPutMessage(t, q, "original", { visibilitytimeout: "4", messagettl: "2" });
      t.note("refusal", `${res.status} ${res.errorCode ?? ""}`.trim());
      expectRawStatus("Put Message with visibilitytimeout 4 > messagettl 2", res, { status: 400 });
      t.step("the queue's approximate message count");
      const meta = await t.raw("queue", { method: "GET", path: `/${q.name}`, query: { comp: "metadata" } });
      expectEqual("x-ms-approximate-messages-count after the refused Put Message", meta.headers["x-ms-approximate-messages-count"], "0");
      t.step("a timeout equal to the time to live (recorded)");
      const equal = await rawPutMessage(t, await t.newQueue(), "equal", { visibilitytimeout: "2", messagettl: "2" });
      t.note("visibilitytimeout equal to messagettl", `${equal.res.status} ${equal.res.errorCode ?? ""}`.trim());
      t.step("after the timeout asked (server clock)");
      await pastByServerClock(t, q, serverDate(res).getTime() + 4000, "the refused message's visibility timeout");
      await expectNothingDelivered(t, q, "after the refused message's visibility timeout");
    },
  },
  {
    id: "queue/update-message/visibility-beyond-expiry",
    title: "Update Message with a visibility timeout that ends after the message's ExpirationTime → 400; the message's text reads back unchanged once it is visible",
    level: "rest",
    source: queueSource("Update Message (the visibility timeout cannot end after the expiry time)"),
    service: "queue",
    waitSeconds: 2,
    async run(t) {
      const q = await t.newQueue();
      t.step("Put Message with messagettl 10");
      const { message } = await put(t, q, { messagettl: "10" });
      t.step("dequeue with visibilitytimeout 1");
      const got = await dequeue(t, q, message.messageId, 1);
      t.step("Update Message with visibilitytimeout 30, past the ExpirationTime");
      const res = await rawUpdateMessage(t, q, message.messageId, got.popReceipt!, 30, "updated");
      t.note("refusal", `${res.status} ${res.errorCode ?? ""}`.trim());
      expectRawStatus("Update Message with a visibility timeout ending after the ExpirationTime", res, { status: 400 });
      t.step("once visible again (server clock)");
      await pastByServerClock(t, q, Date.parse(got.timeNextVisible ?? ""), "the TimeNextVisible");
      const seen = (await peek(t, q)).find((m) => m.messageId === message.messageId);
      expectEqual("text of the message after the refused Update Message", seen?.text, "original");
    },
  },
  {
    id: "queue/clear-messages/includes-invisible",
    title: "Clear Messages also removes dequeued (invisible) messages: the holder's Update and Delete with its receipt → 404 MessageNotFound, and nothing comes back after the visibility timeout",
    level: "rest",
    source: queueSource("Clear Messages, Get Messages (visibilitytimeout)"),
    service: "queue",
    waitSeconds: 4,
    async run(t) {
      const q = await t.newQueue();
      const { message } = await put(t, q, {});
      t.step("dequeue with visibilitytimeout 3");
      const got = await dequeue(t, q, message.messageId, 3);
      t.step("Clear Messages");
      expectRawStatus("Clear Messages", await t.raw("queue", { method: "DELETE", path: messagesPath(q) }), { status: 204 });
      t.step("the holder's receipt after Clear Messages");
      expectRawStatus("Update Message with the holder's receipt after Clear Messages", await rawUpdateMessage(t, q, message.messageId, got.popReceipt!, 3, "updated"), GONE);
      expectRawStatus("Delete Message with the holder's receipt after Clear Messages", await rawDeleteMessage(t, q, message.messageId, got.popReceipt!), GONE);
      t.step("after the visibility timeout (server clock)");
      await pastByServerClock(t, q, Date.parse(got.timeNextVisible ?? ""), "the TimeNextVisible");
      await expectNothingDelivered(t, q, "after Clear Messages and the visibility timeout");
    },
  },
  {
    id: "queue/update-message/dequeue-count-unchanged",
    title: "Update Message leaves DequeueCount as it was (Peek shows it), and the next Get Messages adds exactly 1",
    level: "rest",
    source: queueSource("Update Message, Peek Messages, Get Messages (DequeueCount)"),
    service: "queue",
    async run(t) {
      const q = await t.newQueue();
      const { message } = await put(t, q, {});
      t.step("dequeue");
      const got = await dequeue(t, q, message.messageId, 30);
      expectEqual("DequeueCount of the first delivery", got.dequeueCount, 1);
      t.step("Update Message with visibilitytimeout 0 (visible at once)");
      expectRawStatus("Update Message with the current receipt", await rawUpdateMessage(t, q, message.messageId, got.popReceipt!, 0, "updated"), { status: 204 });
      t.step("peek, then dequeue again");
      const seen = (await peek(t, q)).find((m) => m.messageId === message.messageId);
      expectEqual("text and DequeueCount on Peek after Update Message", [seen?.text, seen?.dequeueCount], ["updated", 1]);
      const again = await dequeue(t, q, message.messageId, 30);
      expectEqual("DequeueCount of the delivery after Update Message", again.dequeueCount, 2);
    },
  },
];

defineTable({ table: "Q Queue messages", service: "queue" }, rows);
