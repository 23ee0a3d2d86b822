// TB: entity group transactions are atomic. One stale ETag in a changeset
// fails the whole changeset: no operation is applied, and the failing
// sub-response names the operation (table/batch/atomic-on-412).
import { expectEqual, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowDef } from "../../fixtures/harness/engine.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { entitySource, expectSameEtag, mustRead, otherWriter, PK, rawBatch, readEntity, type BatchOp } from "./table-kit.ts";

const rows: RowDef[] = [
  {
    id: "table/batch/atomic-on-412",
    title:
      "An entity group transaction with one stale ETag changes nothing; the failing sub-response names the operation (412, or 400 per the reference)",
    level: "disputed",
    source: entitySource(
      'Performing Entity Group Transactions ("the failing operation is identified by its index"; 412 live vs 400 in the reference)',
    ),
    service: "table",
    async run(t) {
      const table = await t.newTable();
      for (const rk of ["a", "b", "c"]) await table.createEntity({ partitionKey: PK, rowKey: rk, state: "original" });
      const seenB = (await mustRead(table, "b", "read b")).etag;
      t.step("another writer changes b");
      await otherWriter(t, table).updateEntity({ partitionKey: PK, rowKey: "b", state: "other" }, "Replace", { etag: seenB });
      const before = await Promise.all(["a", "b", "c"].map((rk) => mustRead(table, rk, `read ${rk} before the batch`)));

      // The stale operation sits between others, so a target that applies the
      // operations before it, or after it, is caught either way.
      const ops = (bEtag: string): BatchOp[] => [
        { method: "PUT", rk: "a", ifMatch: before[0].etag, body: { state: "batch" } },
        { method: "POST", rk: "d", body: { state: "batch" } },
        { method: "MERGE", rk: "b", ifMatch: bEtag, body: { state: "batch" } },
        { method: "DELETE", rk: "c", ifMatch: before[2].etag },
      ];
      const STALE_INDEX = 2;

      t.step("batch with one stale ETag");
      const res = await rawBatch(t, table.tableName, ops(seenB));
      t.note("batch status", res.status);
      t.note("sub-responses", res.subResponses);
      expectEqual("batch status (a changeset failure is reported inside the 202 answer)", res.status, 202);
      const failed = res.subResponses.filter((s) => s.status >= 300);
      expectEqual("failing sub-responses", failed.length, 1);
      const f = failed[0];
      expectTrue(
        `the failing sub-response is ${f.status} ${f.code ?? ""}, expected 412 (live) or 400 (reference)`,
        f.status === 412 || f.status === 400,
      );
      t.note("failing sub-response", f.status === 412 ? "412 (live reading)" : "400 (reference reading)");
      const index = f.index ?? (f.contentId !== undefined ? Number(f.contentId) - 1 : undefined);
      t.note("failing index", { fromMessage: f.index ?? null, contentId: f.contentId ?? null });
      expectEqual("index of the failing operation", index, STALE_INDEX);

      t.step("read every entity back");
      for (const [i, rk] of ["a", "b", "c"].entries()) {
        const after = await readEntity(table, rk);
        expectTrue(`entity ${rk} after the failed batch: deleted`, after !== undefined);
        expectEqual(`entity ${rk} after the failed batch`, after!.props, before[i].props);
        expectSameEtag(`ETag of ${rk} after the failed batch`, after!.etag, before[i].etag);
      }
      expectTrue("entity d was inserted by the failed batch", (await readEntity(table, "d")) === undefined);

      // The same batch with the current ETag commits as a whole: the body was
      // well-formed, so the refusal above was the condition's.
      t.step("the same batch with the current ETag");
      const ok = await rawBatch(t, table.tableName, ops(before[1].etag));
      expectEqual("the same batch with current ETags: batch status", ok.status, 202);
      expectEqual(
        "the same batch with current ETags: failing sub-responses (update, merge and delete with the current ETag succeed)",
        ok.subResponses.filter((s) => s.status >= 300).length,
        0,
      );
      expectEqual("a after the committed batch", (await readEntity(table, "a"))?.props, { state: "batch" });
      expectEqual("b after the committed batch", (await readEntity(table, "b"))?.props, { state: "batch" });
      expectTrue("c is deleted by the committed batch", (await readEntity(table, "c")) === undefined);
      expectEqual("d after the committed batch", (await readEntity(table, "d"))?.props, { state: "batch" });
    },
  },
];

defineTable({ table: "TB Table entity group transactions", service: "table" }, rows);
