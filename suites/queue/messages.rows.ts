// Q Queue messages, Get Messages: the pop receipt and TimeNextVisible a
// dequeue returns (a peek returns neither), the message kept and hidden for
// its visibility timeout, not deleted. The queue service has no optimistic or
// pessimistic concurrency: the pop receipt and the visibility timeout are the
// only guards, so each claim is checked on the wire and by reading back. The
// pop receipts' rules are in messages-receipts.rows.ts, the service's other
// message rules in messages-service.rows.ts; the section's matrix is here.
import { expectEqual, expectSucceeds, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowDef } from "../../fixtures/harness/engine.ts";
import { defineMatrix, defineTable } from "../../fixtures/harness/registry.ts";
import {
  HOLD_S,
  otherClient,
  peek,
  QUEUE_LINES,
  queueCell,
  queueSource,
  queueWithMessage,
  rawGetMessages,
  receiveAgain,
  secondsBetween,
} from "./queue-kit.ts";

const rows: RowDef[] = [
  {
    id: "queue/get-messages/pop-receipt",
    matrix: queueCell("pop-receipt"),
    title:
      "A dequeued message comes with a pop receipt, TimeNextVisible and DequeueCount; a peeked one with neither receipt nor TimeNextVisible",
    level: "doc",
    source: queueSource("Get Messages, Peek Messages"),
    service: "queue",
    async run(t) {
      const { q, id } = await queueWithMessage(t);
      t.step("peek");
      const peeked = await peek(t, q);
      expectEqual(
        "peeked messages",
        peeked.map((m) => m.messageId),
        [id],
      );
      expectTrue("Peek Messages returned a pop receipt", peeked[0].popReceipt === undefined);
      expectTrue("Peek Messages returned a TimeNextVisible", peeked[0].timeNextVisible === undefined);
      t.step("get");
      const { res, messages } = await rawGetMessages(t, q, { visibilitytimeout: String(HOLD_S) });
      expectEqual("Get Messages status", res.status, 200);
      expectEqual(
        "dequeued messages",
        messages.map((m) => m.messageId),
        [id],
      );
      const m = messages[0];
      expectTrue("Get Messages returned no pop receipt", !!m.popReceipt);
      expectTrue("Get Messages returned no TimeNextVisible", !!m.timeNextVisible && !Number.isNaN(Date.parse(m.timeNextVisible)));
      expectEqual("DequeueCount of the first dequeue", m.dequeueCount, 1);
      t.step("the receipt deletes the message");
      await expectSucceeds("Delete Message with the receipt Get Messages returned", q.deleteMessage(id, m.popReceipt!));
      expectEqual("approximate message count after the delete", (await q.getProperties()).approximateMessagesCount, 0);
    },
  },
  {
    id: "queue/get-messages/not-deleted",
    matrix: queueCell("not-deleted"),
    title: "Dequeuing does not delete: the message comes back after the visibility timeout",
    level: "doc",
    source: queueSource("Get Messages (visibilitytimeout)"),
    service: "queue",
    waitSeconds: 2,
    async run(t) {
      const { q, id } = await queueWithMessage(t);
      t.step("dequeue with visibilitytimeout = 1 s");
      const first = (await q.receiveMessages({ visibilityTimeout: 1 })).receivedMessageItems;
      expectEqual(
        "dequeued messages",
        first.map((m) => m.messageId),
        [id],
      );
      t.step("poll until it is delivered again");
      const again = await receiveAgain(t, q, id, "the dequeued message delivered again after its visibility timeout");
      expectEqual("text of the redelivered message", again.messageText, "original");
    },
  },
  {
    id: "queue/get-messages/invisible",
    matrix: queueCell("invisible"),
    title: "While the visibility timeout runs, other clients do not receive (or peek) the message",
    level: "doc",
    source: queueSource("Get Messages (visibilitytimeout)"),
    service: "queue",
    async run(t) {
      const { q, id } = await queueWithMessage(t);
      t.step("receiver A dequeues");
      const got = (await q.receiveMessages({ visibilityTimeout: HOLD_S })).receivedMessageItems;
      expectEqual(
        "messages received by A",
        got.map((m) => m.messageId),
        [id],
      );
      t.step("receiver B (another client) tries");
      const b = otherClient(t, q);
      expectEqual(
        "messages received by B while A's timeout runs",
        (await b.receiveMessages({ numberOfMessages: 32, visibilityTimeout: HOLD_S })).receivedMessageItems.map((m) => m.messageId),
        [],
      );
      expectEqual(
        "messages peeked by B while A's timeout runs",
        (await b.peekMessages({ numberOfMessages: 32 })).peekedMessageItems.map((m) => m.messageId),
        [],
      );
      t.step("the message still exists: A deletes it with its receipt");
      expectEqual("approximate message count while invisible", (await b.getProperties()).approximateMessagesCount, 1);
      await expectSucceeds("Delete Message by A", q.deleteMessage(id, got[0].popReceipt));
    },
  },
  {
    id: "queue/get-messages/time-next-visible",
    matrix: queueCell("time-next-visible"),
    title: "TimeNextVisible = time of retrieval (the response's Date) + visibilitytimeout, ±1 s",
    level: "doc",
    source: queueSource("Get Messages: TimeNextVisible"),
    service: "queue",
    async run(t) {
      const { q, id } = await queueWithMessage(t);
      const timeout = HOLD_S;
      const { res, messages } = await rawGetMessages(t, q, { visibilitytimeout: String(timeout) });
      expectEqual("Get Messages status", res.status, 200);
      expectEqual(
        "dequeued messages",
        messages.map((m) => m.messageId),
        [id],
      );
      const date = res.headers["date"];
      expectTrue("Get Messages: no Date header", !!date);
      const tnv = messages[0].timeNextVisible;
      expectTrue("Get Messages: no TimeNextVisible", !!tnv);
      const offset = secondsBetween(date, tnv!);
      t.note("TimeNextVisible − Date (s)", offset);
      expectTrue(`TimeNextVisible is not Date + ${timeout} s (±1 s)`, Math.abs(offset - timeout) <= 1);
    },
  },
];

defineTable({ table: "Q Queue messages", service: "queue" }, rows);

defineMatrix({
  key: "Q",
  title: "Queue messages",
  source: "seed article, queue section (no table in the article: one row per claim)",
  order: 50,
  columns: [{ key: "claim", header: "Holds" }],
  rowOrder: Object.values(QUEUE_LINES),
});
