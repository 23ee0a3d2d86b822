// TB beyond the first batch row: a transaction applies nothing wherever its
// failing operation stands, on every read path; an entity may appear once in
// a transaction (catalogue TB; REST: Performing Entity Group Transactions).
import { expectEqual, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { inStrand } from "../../fixtures/wire/evidence.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { allAnswered } from "../../fixtures/wire/signals.ts";
import {
  entitySource,
  expectSameEtag,
  mustRead,
  PK,
  rawBatch,
  readEntity,
  STALE_TABLE_ETAG,
  userProps,
  type BatchOp,
  type EntityState,
} from "./table-kit.ts";

/** The other operations of a transaction, one of each kind, on entities other than the failing one's. */
const OTHERS: Record<string, BatchOp> = {
  insert: { method: "POST", rk: "d", body: { state: "batch" } },
  update: { method: "PUT", rk: "a", ifMatch: "*", body: { state: "batch" } },
  merge: { method: "MERGE", rk: "b", ifMatch: "*", body: { state: "batch" } },
  delete: { method: "DELETE", rk: "c", ifMatch: "*" },
};
const EXISTING = ["a", "b", "c", "x"];
/** The failing operation: an update of x with an If-Match no version of it carries. */
const STALE: BatchOp = { method: "PUT", rk: "x", ifMatch: STALE_TABLE_ETAG, body: { state: "batch" } };

/** Where the failing operation stands: first, after each kind of operation (so in the middle), last. */
const CASES: { name: string; ops: BatchOp[] }[] = [
  { name: "first", ops: [STALE, ...Object.values(OTHERS)] },
  ...Object.keys(OTHERS).map((kind) => ({
    name: `after ${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind}`,
    ops: [
      OTHERS[kind],
      STALE,
      ...Object.entries(OTHERS)
        .filter(([k]) => k !== kind)
        .map(([, op]) => op),
    ],
  })),
  { name: "last", ops: [...Object.values(OTHERS), STALE] },
];

/** Every read path shows the table as before: Get Entity on each entity, Query Entities on the partition. */
async function expectUnchanged(
  t: RowContext,
  table: Parameters<typeof readEntity>[0],
  before: Map<string, EntityState>,
  when: string,
): Promise<void> {
  const reads = await allAnswered([...EXISTING, "d"].map((rk) => readEntity(table, rk)) as Promise<EntityState | undefined>[]);
  for (const [i, rk] of EXISTING.entries()) {
    expectTrue(`Get Entity ${rk} ${when}: deleted`, reads[i] !== undefined);
    expectEqual(`Get Entity ${rk} ${when}`, reads[i]!.props, before.get(rk)!.props);
    expectSameEtag(`Get Entity ${rk} ${when}: ETag`, reads[i]!.etag, before.get(rk)!.etag);
  }
  expectTrue(`Get Entity d ${when}: inserted`, reads[EXISTING.length] === undefined);
  const listed: { rk: string; etag: string; props: Record<string, unknown> }[] = [];
  for await (const e of table.listEntities<Record<string, unknown>>({ queryOptions: { filter: `PartitionKey eq '${PK}'` } }))
    listed.push({ rk: e.rowKey!, etag: e.etag, props: userProps(e) });
  expectEqual(`Query Entities on the partition ${when}: the row keys`, listed.map((e) => e.rk).sort(), EXISTING);
  for (const e of listed) {
    expectEqual(`Query Entities ${when}: ${e.rk}`, e.props, before.get(e.rk)!.props);
    expectSameEtag(`Query Entities ${when}: odata.etag of ${e.rk}`, e.etag, before.get(e.rk)!.etag);
  }
}

async function failingAt(t: RowContext, c: (typeof CASES)[number]): Promise<void> {
  const table = await t.newTable();
  for (const rk of EXISTING) await table.createEntity({ partitionKey: PK, rowKey: rk, state: "original" });
  const before = new Map<string, EntityState>();
  for (const rk of EXISTING) before.set(rk, await mustRead(table, rk, `read ${rk} before the transaction`));
  t.step(`transaction with the failing operation ${c.name}`);
  const res = await rawBatch(t, table.tableName, c.ops);
  const failed = res.subResponses.filter((s) => s.status >= 300);
  t.note(
    `failing operation ${c.name}`,
    `${res.status}: ${failed.map((s) => `${s.status} ${s.code ?? ""}`.trim()).join(", ") || "no failing sub-response"}`,
  );
  // As for table/batch/atomic-on-412: a changeset's failure is reported inside the 202 answer, by one failing sub-response.
  expectEqual(
    `the transaction with the failing operation ${c.name}: status and failing sub-responses`,
    [res.status, failed.length],
    [202, 1],
  );
  t.step(`read every entity back, every way (failing operation ${c.name})`);
  await expectUnchanged(t, table, before, `after the transaction failing ${c.name}`);
}

const rows: RowDef[] = [
  {
    id: "table/batch/atomic-any-position",
    title:
      "A transaction whose failing operation (a stale If-Match) stands first, after an insert, an update, a merge or a delete, or last applies nothing: Get Entity and Query Entities show the table as before",
    level: "rest",
    source: entitySource("Performing Entity Group Transactions (a transaction succeeds or fails as a whole)"),
    service: "table",
    async run(t) {
      // Each case a strand with its own steps, so a failure names its case's step.
      await allAnswered(CASES.map((c) => inStrand(() => failingAt(t, c))));
    },
  },
  {
    id: "table/batch/duplicate-row",
    title: "A transaction with two operations on the same entity is refused with 400 (InvalidDuplicateRow), and nothing is applied",
    level: "rest",
    source: entitySource("Performing Entity Group Transactions (an entity can appear only once in a transaction)"),
    service: "table",
    async run(t) {
      const table = await t.newTable();
      for (const rk of ["a", "b"]) await table.createEntity({ partitionKey: PK, rowKey: rk, state: "original" });
      const before = await Promise.all(["a", "b"].map((rk) => mustRead(table, rk, `read ${rk} before the transaction`)));
      t.step("transaction updating b, then merging a twice");
      const res = await rawBatch(t, table.tableName, [
        { method: "PUT", rk: "b", ifMatch: "*", body: { state: "batch" } },
        { method: "MERGE", rk: "a", ifMatch: "*", body: { state: "batch" } },
        { method: "MERGE", rk: "a", ifMatch: "*", body: { extra: "batch" } },
      ]);
      const failed = res.subResponses.filter((s) => s.status >= 300);
      const answer = failed[0]
        ? { status: failed[0].status, code: failed[0].code }
        : { status: res.status, code: /"code"\s*:\s*"([^"]+)"/.exec(res.raw.body)?.[1] };
      t.note("refusal", `${res.status}${failed.length ? ` (sub-response ${answer.status} ${answer.code ?? ""})` : ""}`.trim());
      expectEqual("the transaction naming one entity twice: refusal", [answer.status, answer.code], [400, "InvalidDuplicateRow"]);
      t.step("read both entities back");
      for (const [i, rk] of ["a", "b"].entries()) {
        const after = await mustRead(table, rk, `read ${rk} after the refused transaction`);
        expectEqual(`entity ${rk} after the refused transaction`, after.props, before[i].props);
        expectSameEtag(`ETag of ${rk} after the refused transaction`, after.etag, before[i].etag);
      }
    },
  },
  {
    id: "table/batch/one-partition",
    title: "A transaction naming two PartitionKeys is refused with 400 (code recorded), and nothing is applied in either partition",
    level: "rest",
    source: entitySource(
      "Performing Entity Group Transactions (all entities of a transaction share one PartitionKey); Azurite issue #1215 (Azure's refusal quoted)",
    ),
    service: "table",
    async run(t) {
      const table = await t.newTable();
      const [one, two] = [PK, `${PK}-other`];
      await table.createEntity({ partitionKey: one, rowKey: "a", state: "original" });
      await table.createEntity({ partitionKey: two, rowKey: "b", state: "original" });
      const before = [
        await mustRead(table, "a", "read a before the transaction", one),
        await mustRead(table, "b", "read b before the transaction", two),
      ];
      t.step("transaction merging a (one partition), merging b and inserting c (another)");
      const res = await rawBatch(t, table.tableName, [
        { method: "MERGE", rk: "a", pk: one, ifMatch: "*", body: { state: "batch" } },
        { method: "MERGE", rk: "b", pk: two, ifMatch: "*", body: { state: "batch" } },
        { method: "POST", rk: "c", pk: two, body: { state: "batch" } },
      ]);
      const failed = res.subResponses.filter((s) => s.status >= 300);
      const answer = failed[0]
        ? { status: failed[0].status, code: failed[0].code }
        : { status: res.status, code: /"code"\s*:\s*"([^"]+)"/.exec(res.raw.body)?.[1] };
      t.note("refusal", `${res.status}${failed.length ? ` (sub-response ${answer.status} ${answer.code ?? ""})` : ""}`.trim());
      expectEqual("the transaction naming two PartitionKeys: refusal status", answer.status, 400);
      t.step("read every entity back");
      for (const [i, [rk, pk]] of [
        ["a", one],
        ["b", two],
      ].entries()) {
        const after = await mustRead(table, rk, `read ${rk} after the refused transaction`, pk);
        expectEqual(`entity ${rk} (partition ${i + 1}) after the refused transaction`, after.props, before[i].props);
        expectSameEtag(`ETag of ${rk} after the refused transaction`, after.etag, before[i].etag);
      }
      expectTrue("entity c was inserted by the refused transaction", (await readEntity(table, "c", two)) === undefined, {
        expected: "absent",
        got: "inserted",
      });
    },
  },
];

defineTable({ table: "TB Table entity group transactions", service: "table" }, rows);
