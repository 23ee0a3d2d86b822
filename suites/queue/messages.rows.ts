// Q Queue messages: pop receipts, visibility timeouts, dequeue counts and
// delivery to one receiver at a time. The queue service has no optimistic or
// pessimistic concurrency: the pop receipt and the visibility timeout are the
// only guards, so each claim is checked on the wire and by reading back.
import {
  expectEqual,
  expectNoEtag,
  expectNotEvaluated,
  expectRawStatus,
  expectSent,
  expectSucceeds,
  expectTrue,
  type Refusal,
} from "../../fixtures/harness/assert.ts";
import type { RowDef } from "../../fixtures/harness/engine.ts";
import { currentEvidence } from "../../fixtures/wire/evidence.ts";
import { defineMatrix, defineTable } from "../../fixtures/harness/registry.ts";
import { QUEUE_OPERATIONS } from "./queue-claims.ts";
import { preconditionFailed } from "../../fixtures/wire/signals.ts";
import {
  expectStaleReceiptRefusals,
  HOLD_S,
  messagesPath,
  otherClient,
  peek,
  queueSource,
  queueWithMessage,
  rawGetMessages,
  receiveAgain,
  secondsBetween,
  staleReceiptRefused,
  visibleIds,
} from "./queue-kit.ts";

const rows: RowDef[] = [
  {
    id: "queue/get-messages/pop-receipt",
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
  {
    id: "queue/delete-message/requires-pop-receipt",
    title:
      "Delete Message: current receipt → deleted; a stale receipt (superseded by an update or a later dequeue) → refused and the message stays; a malformed one → 400",
    level: "doc",
    source: queueSource("Delete Message (stale receipt → 404 MessageNotFound, per the reference and live captures)"),
    service: "queue",
    async run(t) {
      const { q, id } = await queueWithMessage(t);
      const r1 = (await q.receiveMessages({ visibilityTimeout: HOLD_S })).receivedMessageItems[0].popReceipt;
      t.step("Update Message supersedes the receipt (and makes the message visible)");
      const r2 = (await q.updateMessage(id, r1, "updated", 0)).popReceipt!;
      expectTrue("Update Message returned the same receipt", r2 !== r1);

      const stale: [string, Refusal][] = [];
      t.step("Delete Message with the receipt superseded by the update");
      stale.push(await staleReceiptRefused("Delete Message, receipt superseded by Update Message", q.deleteMessage(id, r1)));
      t.note("stale receipt", `${stale[0][1].status} ${stale[0][1].code ?? ""}`.trim());
      expectEqual("visible messages after the refused delete", await visibleIds(t, q), [id]);

      t.step("Delete Message with a malformed receipt");
      const malformed = await t.raw("queue", {
        method: "DELETE",
        path: `${messagesPath(q)}/${id}`,
        query: { popreceipt: "not-a-receipt" },
      });
      expectRawStatus("Delete Message with a malformed receipt", malformed, { status: 400 });
      t.note("malformed receipt", `${malformed.status} ${malformed.errorCode ?? ""}`.trim());
      const still = await peek(t, q);
      expectEqual(
        "visible messages after the malformed delete",
        still.map((m) => m.messageId),
        [id],
      );
      expectEqual("text after the refused deletes", still[0].text, "updated");

      t.step("a later dequeue supersedes the update's receipt");
      const r3 = (await otherClient(t, q).receiveMessages({ visibilityTimeout: HOLD_S })).receivedMessageItems.find(
        (m) => m.messageId === id,
      )?.popReceipt;
      expectTrue("the message was not delivered to the second receiver", !!r3);
      stale.push(await staleReceiptRefused("Delete Message, receipt superseded by a later dequeue", q.deleteMessage(id, r2)));
      expectEqual("approximate message count after the refused delete", (await q.getProperties()).approximateMessagesCount, 1);

      t.step("Delete Message with the current receipt");
      await expectSucceeds("Delete Message with the current receipt", q.deleteMessage(id, r3!));
      expectEqual("approximate message count after the delete", (await q.getProperties()).approximateMessagesCount, 0);
      expectEqual("visible messages after the delete", await visibleIds(t, q), []);
      t.note(
        "refusals",
        stale.map(([what, r]) => `${what}: ${r.status} ${r.code ?? ""}`.trim()),
      );
    },
  },
  {
    id: "queue/delete-message/requires-pop-receipt/stale-receipt-code",
    title:
      "A stale pop receipt (superseded by Update Message or a later dequeue) on Delete Message and Update Message is refused with 404 MessageNotFound, the message unchanged",
    level: "rest",
    source: queueSource("Delete Message, Update Message (stale receipt → 404 MessageNotFound, per the reference and live captures)"),
    service: "queue",
    async run(t) {
      const { q, id } = await queueWithMessage(t);
      const r1 = (await q.receiveMessages({ visibilityTimeout: HOLD_S })).receivedMessageItems[0].popReceipt;
      t.step("Update Message supersedes the first receipt");
      const r2 = (await q.updateMessage(id, r1, "updated", HOLD_S)).popReceipt!;
      t.step("a later dequeue supersedes the update's receipt");
      await q.updateMessage(id, r2, "updated", 0);
      const r3 = (await otherClient(t, q).receiveMessages({ visibilityTimeout: HOLD_S })).receivedMessageItems.find(
        (m) => m.messageId === id,
      )?.popReceipt;
      expectTrue("the message was not delivered to the second receiver", !!r3);
      const stale: [string, Refusal][] = [];
      for (const [label, old] of [
        ["the receipt superseded by Update Message", r1],
        ["the receipt superseded by a later dequeue", r2],
      ] as const) {
        t.step(`Delete Message and Update Message with ${label}`);
        stale.push(await staleReceiptRefused(`Delete Message with ${label}`, q.deleteMessage(id, old)));
        stale.push(await staleReceiptRefused(`Update Message with ${label}`, q.updateMessage(id, old, "stale", 0)));
      }
      t.step("the message is unchanged: the current receipt still updates it");
      expectEqual("approximate message count after the refused requests", (await q.getProperties()).approximateMessagesCount, 1);
      await expectSucceeds("Update Message with the current receipt", q.updateMessage(id, r3!, "current", 0));
      expectEqual(
        "text after the update with the current receipt",
        (await peek(t, q)).map((m) => m.text),
        ["current"],
      );
      await expectStaleReceiptRefusals(stale);
    },
  },
  {
    id: "queue/update-message/last-writer-wins",
    title:
      "Update Message checks only the receipt: it returns a new receipt, the old one stops working, the last update's text is what is read",
    level: "doc",
    source: queueSource("Update Message (stale receipt → 404 MessageNotFound); seed: last writer wins for UpdateMessage"),
    service: "queue",
    async run(t) {
      const { q, id } = await queueWithMessage(t);
      const r1 = (await q.receiveMessages({ visibilityTimeout: HOLD_S })).receivedMessageItems[0].popReceipt;
      t.step("writer A updates");
      const r2 = (await expectSucceeds("Update Message by A", q.updateMessage(id, r1, "from A", HOLD_S))).popReceipt!;
      expectTrue("Update Message returned no new receipt", !!r2 && r2 !== r1);
      t.step("writer B (another client) updates with the receipt A got");
      const b = otherClient(t, q);
      const r3 = (await expectSucceeds("Update Message by B", b.updateMessage(id, r2, "from B", 0))).popReceipt!;
      expectTrue("Update Message returned no new receipt", !!r3 && r3 !== r2);
      expectEqual(
        "text after B's update",
        (await peek(t, q)).map((m) => m.text),
        ["from B"],
      );

      t.step("the superseded receipts stop working");
      const stale: [string, Refusal][] = [];
      for (const [label, old] of [
        ["the first receipt", r1],
        ["A's receipt", r2],
      ] as const) {
        stale.push(await staleReceiptRefused(`Update Message with ${label}`, q.updateMessage(id, old, "stale", 0)));
        expectEqual(
          `text after the update with ${label}`,
          (await peek(t, q)).map((m) => m.text),
          ["from B"],
        );
      }

      t.step("a stale If-Match is not evaluated (raw)");
      const res = await t.raw("queue", {
        method: "PUT",
        path: `${messagesPath(q)}/${id}`,
        query: { popreceipt: r3, visibilitytimeout: "0" },
        headers: { "if-match": '"0x8D0000000000000"', "content-type": "application/xml" },
        body: "<QueueMessage><MessageText>raw</MessageText></QueueMessage>",
      });
      expectSent("Update Message", currentEvidence()!.exchanges.at(-1)!.requestHeaders, "If-Match");
      const outcome = expectNotEvaluated("Update Message with a stale If-Match", res.status);
      t.note("Update Message with a stale If-Match", outcome);
      expectEqual(
        `text after Update Message with a stale If-Match (${outcome})`,
        (await peek(t, q)).map((m) => m.text),
        [outcome === "ignored" ? "raw" : "from B"],
      );
      t.note(
        "refusals",
        stale.map(([what, r]) => `${what}: ${r.status} ${r.code ?? ""}`.trim()),
      );
    },
  },
  {
    id: "queue/dequeue-count",
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
      const got = (await q.receiveMessages({ visibilityTimeout: HOLD_S })).receivedMessageItems[0];
      t.step("Update Message");
      const upd = await q.updateMessage(sent.messageId, got.popReceipt, "n", HOLD_S);
      t.step("Delete Message");
      await q.deleteMessage(sent.messageId, upd.popReceipt!);
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

const QUEUE_MATRIX_ROWS: { label: string; claim: string; id: string }[] = [
  { label: "Get Messages returns a pop receipt (Peek does not)", claim: "Yes", id: "queue/get-messages/pop-receipt" },
  { label: "Dequeuing does not delete the message", claim: "Yes", id: "queue/get-messages/not-deleted" },
  { label: "A dequeued message is invisible to other clients", claim: "Yes", id: "queue/get-messages/invisible" },
  { label: "… until its TimeNextVisible, not only just after the dequeue", claim: "Yes", id: "queue/get-messages/invisible-until-end" },
  { label: "TimeNextVisible = retrieval time + visibility timeout", claim: "Yes", id: "queue/get-messages/time-next-visible" },
  { label: "Delete Message requires the current pop receipt", claim: "Yes", id: "queue/delete-message/requires-pop-receipt" },
  { label: "Update Message: last writer wins (receipt only)", claim: "Yes", id: "queue/update-message/last-writer-wins" },
  { label: "Redelivery increments DequeueCount", claim: "Yes", id: "queue/dequeue-count" },
  { label: "Each message goes to one receiver at a time", claim: "Yes", id: "queue/exclusive-delivery-race" },
  { label: "Set Queue Metadata: last writer wins", claim: "Yes", id: "queue/queue-metadata/last-writer-wins" },
  { label: "Set Queue ACL: last writer wins", claim: "Yes", id: "queue/queue-acl/last-writer-wins" },
  { label: "Set Queue Service Properties: last writer wins", claim: "Yes", id: "queue/service-properties/last-writer-wins" },
];

defineMatrix({
  key: "Q",
  title: "Queue messages",
  source: "seed article, queue section (no table in the article: one row per claim)",
  order: 50,
  columns: [{ key: "claim", header: "Holds" }],
  rows: QUEUE_MATRIX_ROWS.map((r) => ({ label: r.label, cells: { claim: { claim: r.claim, id: r.id } } })),
});
