// Q message lifetime, Clear Messages and DequeueCount (catalogue Q, second
// table; REST: Put Message, Get Messages, Update Message, Clear Messages). The
// windows with both ends probed (message-ttl/expiry, put-message/
// initial-invisibility) are window claims (suites/window-kit.ts);
// these rows check what follows a window's end, the refusals, and the counts.
// Times are the server's: ExpirationTime and TimeNextVisible from the answers.
import type { QueueClient } from "@azure/storage-queue";
import {
  answerDate,
  expectDate,
  expectEqual,
  expectPresent,
  expectRawStatus,
  expectTrue,
  judgedBefore,
} from "../../fixtures/harness/assert.ts";
import { preconditionFailed } from "../../fixtures/wire/signals.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import {
  messagesPath,
  peek,
  queueClock,
  queueSource,
  rawDeleteMessage,
  rawGetMessages,
  rawPutMessage,
  rawUpdateMessage,
  type WireMessage,
} from "./queue-kit.ts";

/** The ExpirationTime of a message that never expires (messagettl=-1, 2017-07-29 and later). */
const NEVER = "Fri, 31 Dec 9999 23:59:59 GMT";
const GONE = { status: 404, code: "MessageNotFound" };

/** A time a message answer states (ExpirationTime, TimeNextVisible), which the row needs. */
const messageTime = (m: WireMessage | undefined, field: "expirationTime" | "timeNextVisible", operation: string) =>
  expectDate(`${operation}: the message's ${field === "expirationTime" ? "ExpirationTime" : "TimeNextVisible"}`, m?.[field]);

/** Waits until the server's clock is past `at` (ms) by one second (its granularity). */
const pastByServerClock = (t: RowContext, q: QueueClient, at: number, what: string) =>
  t.waitForServerTime(
    `the server's clock a second past ${what}`,
    () => queueClock(t, q),
    (d) => d,
    at + 1000,
    { timeoutMs: 30_000, intervalMs: 250 },
  );

/** Puts a message with the query given, expecting it enqueued. */
async function put(t: RowContext, q: QueueClient, query: Record<string, string>): Promise<{ res: RawResponse; message: WireMessage }> {
  const { res, message } = await rawPutMessage(t, q, "original", query);
  expectRawStatus(`Put Message (${new URLSearchParams(query)})`, res, { status: 201 });
  return { res, message: expectPresent("Put Message: the message in the answer's body", message) };
}

/** What a row says when the target answered it only at the message's expiry. */
const tooLate = (operation: string) =>
  `${operation} was answered only at the message's ExpirationTime (server clock): no time left to tell`;

/** Dequeues the one message, expecting `id`; with `expires`, a failing answer given at the message's expiry (a second's grain) tells nothing. */
async function dequeue(
  t: RowContext,
  q: QueueClient,
  id: string,
  visibilitytimeout: number,
  expires?: number,
): Promise<WireMessage & { popReceipt: string }> {
  return judgedBefore(expires === undefined ? Infinity : expires - 1000, tooLate("Get Messages"), async () => {
    const { res, messages } = await rawGetMessages(t, q, { visibilitytimeout: String(visibilitytimeout) });
    expectEqual(`Get Messages with visibilitytimeout ${visibilitytimeout}`, [res.status, messages.map((m) => m.messageId)], [200, [id]]);
    return { ...messages[0], popReceipt: expectPresent("Get Messages: the message's PopReceipt", messages[0].popReceipt) };
  });
}

/** Neither peeked nor dequeued. */
async function expectNothingDelivered(t: RowContext, q: QueueClient, when: string): Promise<void> {
  expectEqual(
    `messages peeked ${when}`,
    (await peek(t, q)).map((m) => m.messageId),
    [],
  );
  const { messages } = await rawGetMessages(t, q, { numofmessages: "32", visibilitytimeout: "30" });
  expectEqual(
    `messages dequeued ${when}`,
    messages.map((m) => m.messageId),
    [],
  );
}

const rows: RowDef[] = [
  {
    id: "queue/message-ttl/expires-while-invisible",
    title:
      "A message dequeued with a visibility timeout that ends after its expiry never comes back: after the timeout it is neither peeked nor dequeued, and its receipt → 404 MessageNotFound",
    level: "rest",
    source: queueSource("Put Message (messagettl), Get Messages (visibilitytimeout)"),
    service: "queue",
    waitSeconds: 7,
    async run(t) {
      const q = await t.newQueue();
      t.step("Put Message with messagettl 3");
      const { message } = await put(t, q, { messagettl: "3" });
      t.step("dequeue with visibilitytimeout 6, past the message's expiry");
      const got = await dequeue(t, q, message.messageId, 6, messageTime(message, "expirationTime", "Put Message"));
      const end = messageTime(got, "timeNextVisible", "Get Messages");
      t.step("after the visibility timeout (server clock)");
      await pastByServerClock(t, q, end, "the TimeNextVisible");
      await expectNothingDelivered(t, q, "after the visibility timeout of a message that expired while invisible");
      expectRawStatus(
        "Delete Message with the receipt of a message that expired while invisible",
        await rawDeleteMessage(t, q, message.messageId, got.popReceipt),
        GONE,
      );
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
    title:
      "Put Message with a visibility timeout greater than its time to live: 400 with nothing enqueued, or 201 and the message is never delivered (it expires while invisible); the report shows which, and a timeout equal to the time to live is recorded",
    level: "disputed",
    source: queueSource(
      'Put Message (the visibility timeout "should be" smaller than messagettl; disputed: the matching Update Message rule was not enforced live)',
    ),
    service: "queue",
    waitSeconds: 5,
    async run(t) {
      const q = await t.newQueue();
      t.step("Put Message with visibilitytimeout 4 and messagettl 2");
      const { res, message } = await rawPutMessage(t, q, "original", { visibilitytimeout: "4", messagettl: "2" });
      const answer = `${res.status} ${res.errorCode ?? ""}`.trim();
      expectTrue(
        `Put Message with visibilitytimeout 4 > messagettl 2: expected 400 or 201, got ${answer}`,
        res.status === 400 || res.status === 201,
        { expected: "400 or 201", got: answer },
      );
      t.note("disputed", res.status === 400 ? `refused: ${answer}` : "accepted (201): the message expires while invisible");
      t.step("a timeout equal to the time to live (recorded)");
      const equal = await rawPutMessage(t, await t.newQueue(), "equal", { visibilitytimeout: "2", messagettl: "2" });
      t.note("visibilitytimeout equal to messagettl", `${equal.res.status} ${equal.res.errorCode ?? ""}`.trim());
      if (res.status === 400) {
        t.step("the queue's approximate message count");
        const meta = await t.raw("queue", { method: "GET", path: `/${q.name}`, query: { comp: "metadata" } });
        expectEqual("x-ms-approximate-messages-count after the refused Put Message", meta.headers["x-ms-approximate-messages-count"], "0");
        t.step("after the timeout asked (server clock)");
        await pastByServerClock(t, q, answerDate(res, "Put Message") + 4000, "the refused message's visibility timeout");
        await expectNothingDelivered(t, q, "after the refused message's visibility timeout");
        return;
      }
      const [expires, visible] = [
        messageTime(message, "expirationTime", "Put Message"),
        messageTime(message, "timeNextVisible", "Put Message"),
      ];
      t.step("after the message's ExpirationTime and its TimeNextVisible (server clock)");
      await pastByServerClock(t, q, Math.max(expires, visible), "the message's ExpirationTime and TimeNextVisible");
      await expectNothingDelivered(t, q, "after the ExpirationTime of a message put invisible for longer than it lives");
    },
  },
  {
    id: "queue/update-message/visibility-beyond-expiry",
    title:
      "Update Message with a visibility timeout that ends after the message's ExpirationTime: 400 with the text unchanged once visible, or 204 and the message never comes back (neither peeked nor dequeued after its expiry, its receipt → 404 MessageNotFound); the report shows which",
    level: "disputed",
    source: queueSource(
      "Update Message (the page refuses a visibility timeout ending after the expiry time; disputed: a live trace, Azure/azure-sdk-for-java#105, accepted it with 204)",
    ),
    service: "queue",
    waitSeconds: 9,
    async run(t) {
      const q = await t.newQueue();
      t.step("Put Message with messagettl 6");
      const { message } = await put(t, q, { messagettl: "6" });
      const expires = messageTime(message, "expirationTime", "Put Message");
      t.step("dequeue with visibilitytimeout 1");
      const got = await dequeue(t, q, message.messageId, 1, expires);
      t.step("Update Message with visibilitytimeout 8, past the ExpirationTime");
      const { res, answer } = await judgedBefore(expires - 1000, tooLate("Update Message"), async () => {
        const res = await rawUpdateMessage(t, q, message.messageId, got.popReceipt, 8, "updated");
        const answer = `${res.status} ${res.errorCode ?? ""}`.trim();
        expectTrue(
          `Update Message with a visibility timeout ending after the ExpirationTime: expected 400 or 204, got ${answer}`,
          res.status === 400 || res.status === 204,
          { expected: "400 or 204", got: answer },
        );
        return { res, answer };
      });
      t.note("disputed", res.status === 400 ? `refused: ${answer}` : "accepted (204): the message expires while invisible");
      if (res.status === 400) {
        t.step("once visible again (server clock)");
        await pastByServerClock(t, q, messageTime(got, "timeNextVisible", "Get Messages"), "the TimeNextVisible");
        const peeked = await rawGetMessages(t, q, { peekonly: "true", numofmessages: "32" });
        // A load that delays the peek past the message's expiry leaves nothing to read back.
        if (answerDate(peeked.res, "Peek Messages") >= expires)
          preconditionFailed("the peek was answered after the message's ExpirationTime (server clock): too late to read its text back");
        expectEqual(
          "text of the message after the refused Update Message",
          peeked.messages.find((m) => m.messageId === message.messageId)?.text,
          "original",
        );
        return;
      }
      const receipt = res.headers["x-ms-popreceipt"];
      expectTrue("Update Message answered 204 without an x-ms-popreceipt", !!receipt, { expected: "x-ms-popreceipt", got: "none" });
      const visible = expectDate("Update Message: the answer's x-ms-time-next-visible", res.headers["x-ms-time-next-visible"]);
      t.step("after the ExpirationTime and the updated TimeNextVisible (server clock)");
      await pastByServerClock(t, q, Math.max(expires, visible), "the message's ExpirationTime and its updated TimeNextVisible");
      await expectNothingDelivered(t, q, "after the expiry of a message updated to stay invisible past it");
      expectRawStatus(
        "Delete Message with the receipt of the update, after the message expired",
        await rawDeleteMessage(t, q, message.messageId, receipt!),
        GONE,
      );
    },
  },
  {
    id: "queue/clear-messages/includes-invisible",
    title:
      "Clear Messages also removes dequeued (invisible) messages: the holder's Update and Delete with its receipt → 404 MessageNotFound, and nothing comes back after the visibility timeout",
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
      expectRawStatus(
        "Update Message with the holder's receipt after Clear Messages",
        await rawUpdateMessage(t, q, message.messageId, got.popReceipt, 3, "updated"),
        GONE,
      );
      expectRawStatus(
        "Delete Message with the holder's receipt after Clear Messages",
        await rawDeleteMessage(t, q, message.messageId, got.popReceipt),
        GONE,
      );
      t.step("after the visibility timeout (server clock)");
      await pastByServerClock(t, q, messageTime(got, "timeNextVisible", "Get Messages"), "the TimeNextVisible");
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
      expectRawStatus(
        "Update Message with the current receipt",
        await rawUpdateMessage(t, q, message.messageId, got.popReceipt, 0, "updated"),
        { status: 204 },
      );
      t.step("peek, then dequeue again");
      const seen = (await peek(t, q)).find((m) => m.messageId === message.messageId);
      expectEqual("text and DequeueCount on Peek after Update Message", [seen?.text, seen?.dequeueCount], ["updated", 1]);
      const again = await dequeue(t, q, message.messageId, 30);
      expectEqual("DequeueCount of the delivery after Update Message", again.dequeueCount, 2);
    },
  },
];

defineTable({ table: "Q Queue messages", service: "queue" }, rows);
