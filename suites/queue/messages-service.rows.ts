// Q Queue messages, the service's message rules beyond one receipt: each
// redelivery increments DequeueCount, no queue response carries an ETag, Get
// Messages refuses a visibility timeout or message count out of range, and
// concurrent receivers each get a message once within its visibility window.
import { expectEqual, expectNoEtag, expectRawStatus, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowDef } from "../../fixtures/harness/engine.ts";
import { currentEvidence } from "../../fixtures/wire/evidence.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { QUEUE_OPERATIONS } from "./queue-claims.ts";
import { preconditionFailed } from "../../fixtures/wire/signals.ts";
import { HOLD_S, peek, queueCell, queueSource, queueWithMessage, rawGetMessages, receiptOf, receiveOne } from "./queue-kit.ts";

const rows: RowDef[] = [
  {
    id: "queue/dequeue-count",
    matrix: queueCell("dequeue-count"),
    title: "Each redelivery increments DequeueCount",
    level: "doc",
    source: queueSource("Get Messages: DequeueCount"),
    service: "queue",
    waitSeconds: 3,
    async run(t) {
      const { q, id } = await queueWithMessage(t);
      expectEqual(
        "DequeueCount before any dequeue",
        (await peek(t, q)).map((m) => m.dequeueCount),
        [0],
      );
      for (const n of [1, 2, 3]) {
        t.step(`dequeue #${n}`);
        const got = await t.waitFor(
          `delivery #${n}`,
          async () => (await q.receiveMessages({ visibilityTimeout: 1 })).receivedMessageItems.find((m) => m.messageId === id),
          { timeoutMs: 10_000, intervalMs: 200 },
        );
        expectEqual(`DequeueCount of delivery #${n}`, got.dequeueCount, n);
      }
      t.step("peek after the timeout");
      const seen = await t.waitFor("the message visible again", async () => (await peek(t, q)).find((m) => m.messageId === id), {
        timeoutMs: 10_000,
        intervalMs: 200,
      });
      expectEqual("DequeueCount peeked after three deliveries", seen.dequeueCount, 3);
    },
  },
  {
    id: "queue/no-etag",
    title: "Queue responses carry no ETag",
    level: "rest",
    source: queueSource("Queue Service REST API (no ETag on queue or message operations)"),
    service: "queue",
    async run(t) {
      const q = t.queue.getQueueClient(t.name("q"));
      t.step("Create Queue");
      await q.create();
      t.step("Set Queue Metadata");
      await q.setMetadata({ k: "v" });
      t.step("Get Queue Properties");
      await q.getProperties();
      t.step("Set Queue ACL");
      await q.setAccessPolicy([{ id: "p", accessPolicy: { permissions: "r" } }]);
      t.step("Get Queue ACL");
      await q.getAccessPolicy();
      t.step("Put Message");
      const sent = await q.sendMessage("m");
      t.step("Peek Messages");
      await q.peekMessages();
      t.step("Get Messages");
      const got = await receiveOne(q, HOLD_S);
      t.step("Update Message");
      const upd = await q.updateMessage(sent.messageId, got.popReceipt, "n", HOLD_S);
      t.step("Delete Message");
      await q.deleteMessage(sent.messageId, receiptOf(upd));
      t.step("List Queues");
      await t.queue.listQueues({ prefix: q.name }).byPage().next();
      t.step("Get Queue Service Properties");
      await t.queue.getProperties();
      const exchanges = currentEvidence()!.exchanges;
      const made = new Set(exchanges.map((e) => e.operation));
      expectEqual(
        "queue operations not exercised",
        QUEUE_OPERATIONS.filter((o) => !made.has(o)),
        [],
      );
      for (const e of exchanges) expectNoEtag(e.step ?? e.method, e.responseHeaders["etag"]);
    },
  },
  {
    id: "queue/visibility-range",
    title: "Get Messages: visibilitytimeout 1 s – 7 days (0 or more → 400), numofmessages 1–32 (0 and 33 → 400)",
    level: "rest",
    source: queueSource("Get Messages (visibilitytimeout, numofmessages)"),
    service: "queue",
    async run(t) {
      const q = await t.newQueue();
      const a = (await q.sendMessage("a")).messageId;
      const b = (await q.sendMessage("b")).messageId;
      for (const query of [
        { visibilitytimeout: "0" },
        { visibilitytimeout: "604801" },
        { numofmessages: "0" },
        { numofmessages: "33" },
      ] as Record<string, string>[]) {
        const [k, v] = Object.entries(query)[0];
        t.step(`Get Messages ${k}=${v}`);
        const { res } = await rawGetMessages(t, q, query);
        expectRawStatus(`Get Messages with ${k}=${v}`, res, { status: 400 });
      }
      t.step("nothing was dequeued by the refused requests");
      const after = await peek(t, q);
      expectEqual("visible messages after the refused requests", after.map((m) => m.messageId).sort(), [a, b].sort());
      expectEqual(
        "DequeueCounts after the refused requests",
        after.map((m) => m.dequeueCount),
        [0, 0],
      );
      t.step("Get Messages numofmessages=1 visibilitytimeout=1");
      const one = await rawGetMessages(t, q, { numofmessages: "1", visibilitytimeout: "1" });
      expectEqual("Get Messages numofmessages=1 visibilitytimeout=1 status", one.res.status, 200);
      expectEqual("messages returned for numofmessages=1", one.messages.length, 1);
      t.step("Get Messages numofmessages=32 visibilitytimeout=604800");
      const all = await rawGetMessages(t, q, { numofmessages: "32", visibilitytimeout: "604800" });
      expectEqual("Get Messages numofmessages=32 visibilitytimeout=604800 status", all.res.status, 200);
      expectTrue(
        "numofmessages=32 did not return the remaining message",
        all.messages.some((m) => m.messageId !== one.messages[0].messageId),
      );
    },
  },
  {
    id: "queue/exclusive-delivery-race",
    matrix: queueCell("exclusive-delivery"),
    title: "8 concurrent receivers, 50 messages: each message is delivered to exactly one receiver within its visibility window, none lost",
    level: "doc",
    source: queueSource("Get Messages; seed: a retrieved message is invisible to other clients"),
    service: "queue",
    async run(t) {
      const MESSAGES = 50;
      const RECEIVERS = 8;
      const WINDOW_S = 60;
      const q = await t.newQueue();
      t.step("enqueue");
      const sent: string[] = [];
      for (let i = 0; i < MESSAGES; i += 10) {
        const batch = await Promise.all(Array.from({ length: Math.min(10, MESSAGES - i) }, (_, j) => q.sendMessage(`m${i + j}`)));
        sent.push(...batch.map((s) => s.messageId));
      }
      t.step("race");
      const started = Date.now();
      const deliveries: { id: string; receiver: number; dequeueCount: number }[] = [];
      await Promise.all(
        Array.from({ length: RECEIVERS }, async (_, receiver) => {
          const client = t.clients.queue().getQueueClient(q.name);
          // Bounded, so a target that keeps redelivering still gives a verdict.
          for (let empty = 0; empty < 2 && deliveries.length < MESSAGES * 2;) {
            const got = (await client.receiveMessages({ numberOfMessages: 4, visibilityTimeout: WINDOW_S })).receivedMessageItems;
            if (got.length === 0) empty++;
            else empty = 0;
            for (const m of got) deliveries.push({ id: m.messageId, receiver, dequeueCount: m.dequeueCount });
          }
        }),
      );
      const elapsed = (Date.now() - started) / 1000;
      if (elapsed > WINDOW_S * 0.8)
        preconditionFailed(`the race took ${Math.round(elapsed)} s, too close to the ${WINDOW_S} s window to judge redelivery`);
      const perMessage = new Map<string, number>();
      for (const d of deliveries) perMessage.set(d.id, (perMessage.get(d.id) ?? 0) + 1);
      const twice = [...perMessage.values()].filter((n) => n > 1).length;
      const lost = sent.filter((id) => !perMessage.has(id)).length;
      t.note("deliveries", deliveries.length);
      t.note("receivers that got messages", new Set(deliveries.map((d) => d.receiver)).size);
      t.note("delivered more than once", twice);
      t.note("lost", lost);
      // Counts vary run to run: they go to the notes, the messages stay fixed.
      expectTrue("a message was delivered to more than one receiver within its visibility window", twice === 0);
      expectTrue("a message was never delivered", lost === 0);
      expectTrue("more deliveries than messages", deliveries.length === MESSAGES);
      expectTrue(
        "the approximate message count is not the number sent (nothing was deleted)",
        (await q.getProperties()).approximateMessagesCount === MESSAGES,
      );
    },
  },
];

defineTable({ table: "Q Queue messages", service: "queue" }, rows);
