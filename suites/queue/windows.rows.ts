// Both ends of the queue's windows (window-claims.ts): a visibility timeout
// (Get Messages, Update Message, Put Message) or a message's time to live,
// probed right after it opened and in its last part by the server's clock,
// then shown lapsed by its end (suites/window-kit.ts runs both ends).
import type { QueueClient } from "@azure/storage-queue";
import { expectEqual, expectPresent, expectRawStatus, expectSucceeds, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext } from "../../fixtures/harness/engine.ts";
import { allAnswered } from "../../fixtures/wire/signals.ts";
import { serverDate } from "../blob/lease-kit.ts";
import { defineWindowRows, expectStatedEnd, when, type OpenWindow, type WindowClaim } from "../window-kit.ts";
import {
  otherClient,
  peek,
  queueClock,
  queueWithMessage,
  rawDeleteMessage,
  rawGetMessages,
  rawPutMessage,
  rawUpdateMessage,
  receiveOne,
} from "./queue-kit.ts";
import { QUEUE_WINDOWS } from "./window-claims.ts";

/** A message invisible until `end`: other clients neither receive nor peek it; after `end` it comes back as `text`, delivered for the `delivery`-th time. */
function invisibleMessage(t: RowContext, q: QueueClient, id: string, end: number, text: string, delivery = 2): OpenWindow {
  const other = otherClient(t, q);
  let back: { dequeueCount: number; messageText: string } | undefined;
  return {
    end,
    async held(phase) {
      const during = when(phase);
      const [got, seen] = await allAnswered([other.receiveMessages({ numberOfMessages: 32, visibilityTimeout: 1 }), peek(t, q)]);
      expectEqual(`messages another client received ${during}`, got.receivedMessageItems.length, 0);
      expectEqual(`messages peeked ${during}`, seen.length, 0);
    },
    async lapsed() {
      const got = await other.receiveMessages({ numberOfMessages: 32, visibilityTimeout: 30 });
      back = got.receivedMessageItems.find((m) => m.messageId === id) ?? back;
      return { lapsed: !!back, date: expectPresent("Get Messages: the answer's Date", got.date).getTime() };
    },
    async after() {
      expectEqual("text of the message once it came back", back?.messageText, text);
      expectEqual("DequeueCount of the message once it came back", back?.dequeueCount, delivery);
    },
    clock: async () => expectPresent("Get Queue Metadata: the answer's Date", (await q.getProperties()).date).getTime(),
  };
}

async function getVisibility(t: RowContext, claim: WindowClaim): Promise<OpenWindow> {
  const V = claim.seconds;
  const { q, id } = await queueWithMessage(t);
  t.step(`dequeue with visibilitytimeout ${V}`);
  const { res, messages } = await rawGetMessages(t, q, { visibilitytimeout: String(V) });
  expectEqual("Get Messages status", res.status, 200);
  expectEqual(
    "dequeued messages",
    messages.map((m) => m.messageId),
    [id],
  );
  const end = Date.parse(messages[0].timeNextVisible ?? "");
  expectStatedEnd("Get Messages: TimeNextVisible", end, serverDate(res).getTime(), V);
  return invisibleMessage(t, q, id, end, "original");
}

async function updateVisibility(t: RowContext, claim: WindowClaim): Promise<OpenWindow> {
  const U = claim.seconds;
  const { q, id } = await queueWithMessage(t);
  const receipt = (await receiveOne(q, 30, "Get Messages (setup)")).popReceipt;
  t.step(`Update Message with visibilitytimeout ${U}`);
  const res = await expectSucceeds("Update Message with the current receipt", q.updateMessage(id, receipt, "updated", U));
  const end = res.nextVisibleOn?.getTime() ?? NaN;
  expectStatedEnd("Update Message: x-ms-time-next-visible", end, expectPresent("Update Message: the answer's Date", res.date).getTime(), U);
  return invisibleMessage(t, q, id, end, "updated");
}

/** Put Message with a visibility timeout: the message is delivered for the first time once it ends. */
async function putVisibility(t: RowContext, claim: WindowClaim): Promise<OpenWindow> {
  const V = claim.seconds;
  const q = await t.newQueue();
  t.step(`Put Message with visibilitytimeout ${V}`);
  const { res, message } = await rawPutMessage(t, q, "original", { visibilitytimeout: String(V) });
  expectRawStatus(`Put Message with visibilitytimeout ${V}`, res, { status: 201 });
  const end = Date.parse(message?.timeNextVisible ?? "");
  expectStatedEnd("Put Message: TimeNextVisible", end, serverDate(res).getTime(), V);
  return invisibleMessage(t, q, message!.messageId, end, "original", 1);
}

/** Put Message with a time to live: peekable until its ExpirationTime, then gone for every operation. */
async function messageTtl(t: RowContext, claim: WindowClaim): Promise<OpenWindow> {
  const T = claim.seconds;
  const q = await t.newQueue();
  t.step(`Put Message with messagettl ${T}`);
  const { res, message } = await rawPutMessage(t, q, "original", { messagettl: String(T) });
  expectRawStatus(`Put Message with messagettl ${T}`, res, { status: 201 });
  const end = Date.parse(message?.expirationTime ?? "");
  expectStatedEnd("Put Message: ExpirationTime", end, serverDate(res).getTime(), T);
  const id = message!.messageId;
  const receipt = message!.popReceipt;
  expectTrue("Put Message answered no PopReceipt", !!receipt);
  return {
    end,
    async held(phase) {
      expectTrue(
        `the message is peeked ${when(phase)} (before its ExpirationTime)`,
        (await peek(t, q)).some((m) => m.messageId === id),
      );
    },
    async lapsed() {
      const { res: r, messages } = await rawGetMessages(t, q, { peekonly: "true", numofmessages: "32" });
      expectEqual("Peek Messages status", r.status, 200);
      return { lapsed: !messages.some((m) => m.messageId === id), date: serverDate(r).getTime() };
    },
    async after() {
      const gone = { status: 404, code: "MessageNotFound" };
      expectRawStatus("Delete Message with its receipt after the ExpirationTime", await rawDeleteMessage(t, q, id, receipt!), gone);
      expectRawStatus(
        "Update Message with its receipt after the ExpirationTime",
        await rawUpdateMessage(t, q, id, receipt!, 0, "updated"),
        gone,
      );
      const { messages } = await rawGetMessages(t, q, { numofmessages: "32", visibilitytimeout: "30" });
      expectEqual(
        "messages dequeued after the ExpirationTime",
        messages.map((m) => m.messageId),
        [],
      );
    },
    clock: () => queueClock(t, q),
  };
}

defineWindowRows(QUEUE_WINDOWS, {
  "get-visibility": getVisibility,
  "update-visibility": updateVisibility,
  "put-visibility": putVisibility,
  "message-ttl": messageTtl,
});
