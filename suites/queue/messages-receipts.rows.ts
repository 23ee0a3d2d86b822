// Q Queue messages, pop receipts: Delete Message and Update Message need the
// current receipt; one superseded by an update or a later dequeue is refused
// (404 MessageNotFound) and the message stays as it was; Update Message checks
// nothing else (no If-Match), so the last writer wins.
import { expectEqual, expectNotEvaluated, expectRawStatus, expectSent, expectSucceeds, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowDef } from "../../fixtures/harness/engine.ts";
import { currentEvidence } from "../../fixtures/wire/evidence.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import {
  expectStaleReceiptRefusals,
  HOLD_S,
  messagesPath,
  otherClient,
  peek,
  queueCell,
  queueSource,
  queueWithMessage,
  MESSAGE_REQUEST,
  receiptOf,
  receiveOne,
  staleReceiptRefused,
  type StaleRefusal,
  visibleIds,
} from "./queue-kit.ts";
import { answer, claimOn } from "../../fixtures/harness/claims.ts";

/** What an Update Message carries beside its receipt: a visibility timeout in range. */
const RECEIPT_ALSO = { visibilitytimeout: ["zero", "in-range"] };

const rows: RowDef[] = [
  {
    id: "queue/delete-message/requires-pop-receipt",
    answers: [
      claimOn("queue", MESSAGE_REQUEST.delete, { params: { popreceipt: "stale" } }, [answer(404, "MessageNotFound")]),
      claimOn("queue", MESSAGE_REQUEST.update, { params: { popreceipt: "stale" }, also: RECEIPT_ALSO }, [answer(404, "MessageNotFound")]),
      claimOn("queue", MESSAGE_REQUEST.delete, { params: { popreceipt: "malformed" } }, [answer(400)]),
      claimOn("queue", MESSAGE_REQUEST.delete, { params: { popreceipt: "current" }, exists: true }, [answer(204)]),
    ],
    matrix: queueCell("requires-pop-receipt"),
    title:
      "Delete Message: current receipt → deleted; a stale receipt (superseded by an update or a later dequeue) → refused and the message stays; a malformed one → 400",
    level: "doc",
    source: queueSource("Delete Message (stale receipt → 404 MessageNotFound, per the reference and live captures)"),
    service: "queue",
    async run(t) {
      const { q, id } = await queueWithMessage(t);
      const r1 = (await receiveOne(q, HOLD_S)).popReceipt;
      t.step("Update Message supersedes the receipt (and makes the message visible)");
      const r2 = receiptOf(await q.updateMessage(id, r1, "updated", 0));
      expectTrue("Update Message returned the same receipt", r2 !== r1);

      const stale: StaleRefusal[] = [];
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
    answers: [
      claimOn("queue", MESSAGE_REQUEST.delete, { params: { popreceipt: "stale" } }, [answer(404, "MessageNotFound")]),
      claimOn("queue", MESSAGE_REQUEST.update, { params: { popreceipt: "stale" }, also: RECEIPT_ALSO }, [answer(404, "MessageNotFound")]),
    ],
    title:
      "A stale pop receipt (superseded by Update Message or a later dequeue) on Delete Message and Update Message is refused with 404 MessageNotFound, the message unchanged",
    level: "rest",
    source: queueSource("Delete Message, Update Message (stale receipt → 404 MessageNotFound, per the reference and live captures)"),
    service: "queue",
    async run(t) {
      const { q, id } = await queueWithMessage(t);
      const r1 = (await receiveOne(q, HOLD_S)).popReceipt;
      t.step("Update Message supersedes the first receipt");
      const r2 = receiptOf(await q.updateMessage(id, r1, "updated", HOLD_S));
      t.step("a later dequeue supersedes the update's receipt");
      await q.updateMessage(id, r2, "updated", 0);
      const r3 = (await otherClient(t, q).receiveMessages({ visibilityTimeout: HOLD_S })).receivedMessageItems.find(
        (m) => m.messageId === id,
      )?.popReceipt;
      expectTrue("the message was not delivered to the second receiver", !!r3);
      const stale: StaleRefusal[] = [];
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
    answers: [
      claimOn("queue", MESSAGE_REQUEST.update, { params: { popreceipt: "current" }, also: RECEIPT_ALSO, exists: true }, [answer(204)]),
      claimOn("queue", MESSAGE_REQUEST.update, { params: { popreceipt: "stale" }, also: RECEIPT_ALSO }, [answer(404, "MessageNotFound")]),
    ],
    matrix: queueCell("update-last-writer-wins"),
    title:
      "Update Message checks only the receipt: it returns a new receipt, the old one stops working, the last update's text is what is read",
    level: "doc",
    source: queueSource("Update Message (stale receipt → 404 MessageNotFound); seed: last writer wins for UpdateMessage"),
    service: "queue",
    async run(t) {
      const { q, id } = await queueWithMessage(t);
      const r1 = (await receiveOne(q, HOLD_S)).popReceipt;
      t.step("writer A updates");
      const r2 = receiptOf(await expectSucceeds("Update Message by A", q.updateMessage(id, r1, "from A", HOLD_S)));
      expectTrue("Update Message returned no new receipt", !!r2 && r2 !== r1);
      t.step("writer B (another client) updates with the receipt A got");
      const b = otherClient(t, q);
      const r3 = receiptOf(await expectSucceeds("Update Message by B", b.updateMessage(id, r2, "from B", 0)));
      expectTrue("Update Message returned no new receipt", !!r3 && r3 !== r2);
      expectEqual(
        "text after B's update",
        (await peek(t, q)).map((m) => m.text),
        ["from B"],
      );

      t.step("the superseded receipts stop working");
      const stale: StaleRefusal[] = [];
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
];

defineTable({ table: "Q Queue messages", service: "queue" }, rows);
