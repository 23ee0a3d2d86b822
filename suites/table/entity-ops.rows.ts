// TB Table entities: does each entity operation return an ETag, and does it
// require (and evaluate) If-Match? The claims are data (entity-ops-claims.ts);
// this file holds the code that checks each row's two cells. The REST details,
// as finer IDs beneath the rows, are entity-ops-rest.rows.ts.
import { odata, type TableClient, type UpdateMode } from "@azure/data-tables";
import {
  expectChanged,
  expectEqual,
  expectEtag,
  expectNoEtag,
  expectNotEvaluated,
  expectRefused,
  expectSent,
  expectSucceeds,
  expectTrue,
} from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { defineMatrix, defineTable } from "../../fixtures/harness/registry.ts";
import { ENTITY_OPS, ENTITY_OPS_PREFIX, entityOpAt } from "./entity-ops-claims.ts";
import {
  entity,
  entityPath,
  expectSameEtag,
  entitySource,
  expectNotSent,
  lastSent,
  mustRead,
  newEntity,
  otherWriter,
  PK,
  rawEntity,
  readEntity,
  STALE_TABLE_ETAG,
  userProps,
  written,
  type Props,
} from "./table-kit.ts";
import { answer, claimOn, SUCCESS } from "../../fixtures/harness/claims.ts";
import { ENTITY_REQUEST } from "./table-kit.ts";

const P = ENTITY_OPS_PREFIX;
const CONDITION_FAILED = { status: 412, code: "UpdateConditionNotSatisfied" };

interface EntityTests {
  etagTest: (t: RowContext) => Promise<void>;
  ifMatchTest: (t: RowContext) => Promise<void>;
}

const modeName = (mode: UpdateMode) => (mode === "Replace" ? "Update Entity" : "Merge Entity");

async function partition(table: TableClient): Promise<Map<string, { etag: string; props: Props }>> {
  const out = new Map<string, { etag: string; props: Props }>();
  for await (const e of table.listEntities({ queryOptions: { filter: odata`PartitionKey eq ${PK}` } })) {
    out.set(e.rowKey!, { etag: e.etag, props: userProps(e) });
  }
  return out;
}

/** Update/Merge: a write returns a new weak ETag, and the entity reads back with it. */
async function writeReturnsNewEtag(t: RowContext, mode: UpdateMode): Promise<void> {
  const op = modeName(mode);
  const { table, rk, etag: created } = await newEntity(t, { state: "original", keep: "yes" });
  const res = await expectSucceeds(op, table.updateEntity(entity(rk, { state: "updated" }), mode, { etag: created }));
  const etag = expectEtag(op, res.etag, "weak");
  expectChanged(op, created, etag);
  const read = await mustRead(table, rk, `read after ${op}`);
  expectSameEtag(`ETag read after ${op}`, read.etag, etag);
  expectEqual(`entity after ${op}`, read.props, written(mode, { state: "original", keep: "yes" }, { state: "updated" }));
}

/** Update/Merge: stale ETag → 412 and unchanged; current ETag → new ETag; `*` → unconditional. */
async function writeEvaluatesIfMatch(t: RowContext, mode: UpdateMode): Promise<void> {
  const op = modeName(mode);
  const { table, rk, etag: seen } = await newEntity(t, { state: "original", keep: "yes" });
  const other = otherWriter(t, table);
  t.step("another writer changes the entity");
  await other.updateEntity(entity(rk, { state: "other", keep: "other" }), "Replace", { etag: seen });
  const before = await mustRead(table, rk, "read after the other writer");

  t.step(`${op} with the stale ETag`);
  await expectRefused(
    `${op}, If-Match = stale ETag`,
    table.updateEntity(entity(rk, { state: "mine" }), mode, { etag: seen }),
    CONDITION_FAILED,
  );
  expectSent(op, lastSent(), "If-Match");
  const after = await mustRead(table, rk, `read after the refused ${op}`);
  expectEqual(`entity after the refused ${op}`, after.props, before.props);
  expectSameEtag(`ETag after the refused ${op}`, after.etag, before.etag);

  t.step(`${op} with the current ETag`);
  const res = await expectSucceeds(
    `${op}, If-Match = current ETag`,
    table.updateEntity(entity(rk, { state: "mine" }), mode, { etag: before.etag }),
  );
  const etag = expectEtag(op, res.etag, "weak");
  expectChanged(`${op} with the current ETag`, before.etag, etag);
  const now = await mustRead(table, rk, `read after ${op}`);
  expectEqual(`entity after ${op} with the current ETag`, now.props, written(mode, before.props, { state: "mine" }));
  expectSameEtag(`ETag read after ${op}`, now.etag, etag);

  t.step(`another writer changes it again; ${op} with If-Match: *`);
  await other.updateEntity(entity(rk, { state: "other-again", keep: "other-again" }), "Replace", { etag: "*" });
  const changed = await mustRead(table, rk, "read after the other writer");
  await expectSucceeds(`${op}, If-Match = *`, table.updateEntity(entity(rk, { state: "star" }), mode, { etag: "*" }));
  expectEqual(`${op} If-Match sent`, lastSent()["if-match"], "*");
  const last = await mustRead(table, rk, `read after ${op} with *`);
  expectEqual(`entity after ${op} with If-Match: *`, last.props, written(mode, changed.props, { state: "star" }));
  expectChanged(`${op} with If-Match: *`, changed.etag, last.etag);
}

/** Insert Or Replace / Insert Or Merge: no check, last writer wins, even after a concurrent change. */
async function upsertIgnoresConcurrentChange(t: RowContext, mode: UpdateMode): Promise<void> {
  const op = mode === "Replace" ? "Insert Or Replace Entity" : "Insert Or Merge Entity";
  const { table, rk, etag: seen } = await newEntity(t, { state: "original", extra: "original" });
  const other = otherWriter(t, table);
  t.step("another writer changes the entity after this writer read it");
  await other.updateEntity(entity(rk, { state: "other", extra: "other", added: "other" }), "Replace", { etag: seen });
  const before = await mustRead(table, rk, "read after the other writer");
  expectChanged("the other writer's update", seen, before.etag);

  t.step(`${op} after the concurrent change`);
  const res = await expectSucceeds(
    `${op} after a concurrent change`,
    table.upsertEntity(entity(rk, { state: "mine", extra: "mine" }), mode),
  );
  expectNotSent(op, lastSent(), "If-Match");
  const etag = expectEtag(op, res.etag, "weak");
  expectChanged(op, before.etag, etag);
  const after = await mustRead(table, rk, `read after ${op}`);
  expectEqual(`entity after ${op}`, after.props, written(mode, before.props, { state: "mine", extra: "mine" }));
  expectSameEtag(`ETag read after ${op}`, after.etag, etag);

  t.step("the other writer writes last");
  await expectSucceeds(`${op} by the other writer`, other.upsertEntity(entity(rk, { state: "other-last" }), mode));
  const last = await mustRead(table, rk, `read after the other writer's ${op}`);
  expectEqual(`entity after the last ${op}`, last.props, written(mode, after.props, { state: "other-last" }));
}

/** Insert Or Replace / Insert Or Merge: ETag on insert and on overwrite. */
async function upsertReturnsEtag(t: RowContext, mode: UpdateMode): Promise<void> {
  const op = mode === "Replace" ? "Insert Or Replace Entity" : "Insert Or Merge Entity";
  const table = await t.newTable();
  t.step(`${op} on a missing entity (insert)`);
  const ins = await expectSucceeds(`${op} (insert)`, table.upsertEntity(entity("rk", { state: "inserted", keep: "yes" }), mode));
  const first = expectEtag(`${op} (insert)`, ins.etag, "weak");
  const read = await mustRead(table, "rk", `read after ${op}`);
  expectSameEtag(`ETag read after ${op} (insert)`, read.etag, first);
  expectEqual(`entity after ${op} (insert)`, read.props, { keep: "yes", state: "inserted" });
  t.step(`${op} on the existing entity`);
  const upd = await expectSucceeds(`${op} (overwrite)`, table.upsertEntity(entity("rk", { state: "overwritten" }), mode));
  const second = expectEtag(`${op} (overwrite)`, upd.etag, "weak");
  expectChanged(`${op} (overwrite)`, first, second);
  const again = await mustRead(table, "rk", `read after ${op}`);
  expectSameEtag(`ETag read after ${op} (overwrite)`, again.etag, second);
  expectEqual(`entity after ${op} (overwrite)`, again.props, written(mode, read.props, { state: "overwritten" }));
}

/** A raw read carrying a failing If-Match is not evaluated; when served, it serves the entity. */
async function readIgnoresIfMatch(t: RowContext, what: string, path: string, query?: Record<string, string>): Promise<void> {
  t.step(`${what} with a stale If-Match`);
  const res = await t.raw("table", { method: "GET", path, query, headers: { "if-match": STALE_TABLE_ETAG } });
  expectSent(what, lastSent(), "If-Match");
  const outcome = expectNotEvaluated(`${what} with a stale If-Match`, res.status);
  if (outcome === "ignored")
    expectTrue(`${what} with a stale If-Match: the entity is not in the answer`, res.body.includes('"state":"original"'));
  t.note(`${what} with a stale If-Match`, outcome);
}

/** The code that checks each row's two cells, by slug (the claims: entity-ops-claims.ts). */
const TESTS: Record<string, EntityTests> = {
  "query-entities": {
    async etagTest(t) {
      const { table, rk, etag: created } = await newEntity(t, { state: "original" });
      const second = await table.createEntity(entity("rk2", { state: "second" }));
      t.step("query the partition");
      const listed = await partition(table);
      expectEqual("entities listed", [...listed.keys()].sort(), [rk, "rk2"]);
      expectSameEtag("odata.etag of the first entity", expectEtag("Query Entities (odata.etag)", listed.get(rk)!.etag, "weak"), created);
      expectSameEtag(
        "odata.etag of the second entity",
        expectEtag("Query Entities (odata.etag)", listed.get("rk2")!.etag, "weak"),
        second.etag,
      );
      t.step("single-entity GET");
      const single = await t.raw("table", { method: "GET", path: entityPath(table.tableName, rk) });
      expectEqual("Get Entity status", single.status, 200);
      expectSameEtag("Get Entity ETag header", expectEtag("Get Entity", single.headers["etag"], "weak"), created);
      t.step("update one entity, query again");
      const upd = await table.updateEntity(entity(rk, { state: "updated" }), "Replace", { etag: created });
      const again = await partition(table);
      expectChanged("odata.etag after Update Entity", created, again.get(rk)!.etag);
      expectSameEtag("odata.etag after Update Entity", again.get(rk)!.etag, upd.etag);
      expectSameEtag("odata.etag of the untouched entity", again.get("rk2")!.etag, second.etag);
    },
    async ifMatchTest(t) {
      const { table, rk } = await newEntity(t, { state: "original" });
      t.step("query without If-Match");
      const listed = await expectSucceeds("Query Entities without If-Match", partition(table));
      expectNotSent("Query Entities", lastSent(), "If-Match");
      expectEqual("entities listed without If-Match", [...listed.keys()], [rk]);
      await readIgnoresIfMatch(t, "Query Entities", `/${table.tableName}()`, { $filter: `PartitionKey eq '${PK}'` });
      await readIgnoresIfMatch(t, "Get Entity", entityPath(table.tableName, rk));
    },
  },
  "insert-entity": {
    async etagTest(t) {
      const table = await t.newTable();
      const res = await table.createEntity(entity("rk", { state: "inserted" }));
      const etag = expectEtag("Insert Entity", res.etag, "weak");
      const read = await mustRead(table, "rk", "read after Insert Entity");
      expectSameEtag("ETag read after Insert Entity", read.etag, etag);
      expectEqual("entity after Insert Entity", read.props, { state: "inserted" });
    },
    async ifMatchTest(t) {
      const table = await t.newTable();
      t.step("Insert Entity without If-Match");
      await expectSucceeds("Insert Entity without If-Match", table.createEntity(entity("rk", { state: "inserted" })));
      expectNotSent("Insert Entity", lastSent(), "If-Match");
      expectEqual("entity after Insert Entity", (await mustRead(table, "rk", "read after Insert Entity")).props, { state: "inserted" });
      t.step("Insert Entity with a stale If-Match (raw)");
      const res = await rawEntity(t, {
        method: "POST",
        table: table.tableName,
        rk: "rk2",
        ifMatch: STALE_TABLE_ETAG,
        body: { state: "raw" },
      });
      const outcome = expectNotEvaluated("Insert Entity with a stale If-Match", res.status);
      t.note("Insert Entity with a stale If-Match", outcome);
      const inserted = await readEntity(table, "rk2");
      expectTrue(
        `Insert Entity with a stale If-Match answered ${res.status} but the entity was ${inserted ? "" : "not "}inserted`,
        (outcome === "ignored") === (inserted !== undefined),
      );
    },
  },
  "update-entity": {
    etagTest: (t) => writeReturnsNewEtag(t, "Replace"),
    ifMatchTest: (t) => writeEvaluatesIfMatch(t, "Replace"),
  },
  "merge-entity": {
    etagTest: (t) => writeReturnsNewEtag(t, "Merge"),
    ifMatchTest: (t) => writeEvaluatesIfMatch(t, "Merge"),
  },
  "delete-entity": {
    async etagTest(t) {
      const { table, rk } = await newEntity(t, { state: "original" });
      const res = await rawEntity(t, { method: "DELETE", table: table.tableName, rk, ifMatch: "*" });
      expectEqual("Delete Entity status", res.status, 204);
      expectNoEtag("Delete Entity", res.headers["etag"]);
      expectTrue("the entity is gone after Delete Entity", (await readEntity(table, rk)) === undefined);
    },
    async ifMatchTest(t) {
      const { table, rk, etag: seen } = await newEntity(t, { state: "original" });
      const other = otherWriter(t, table);
      t.step("another writer changes the entity");
      await other.updateEntity(entity(rk, { state: "other" }), "Replace", { etag: seen });
      const before = await mustRead(table, rk, "read after the other writer");
      t.step("Delete Entity with the stale ETag");
      await expectRefused("Delete Entity, If-Match = stale ETag", table.deleteEntity(PK, rk, { etag: seen }), CONDITION_FAILED);
      expectSent("Delete Entity", lastSent(), "If-Match");
      const after = await mustRead(table, rk, "read after the refused Delete Entity");
      expectEqual("entity after the refused Delete Entity", after.props, before.props);
      expectSameEtag("ETag after the refused Delete Entity", after.etag, before.etag);
      t.step("Delete Entity with the current ETag");
      await expectSucceeds("Delete Entity, If-Match = current ETag", table.deleteEntity(PK, rk, { etag: before.etag }));
      expectTrue("the entity is gone after Delete Entity with the current ETag", (await readEntity(table, rk)) === undefined);
      t.step("Delete Entity with If-Match: * after a concurrent change");
      const second = await table.createEntity(entity("rk2", { state: "original" }));
      await other.updateEntity(entity("rk2", { state: "other" }), "Replace", { etag: second.etag });
      await expectSucceeds("Delete Entity, If-Match = *", table.deleteEntity(PK, "rk2", { etag: "*" }));
      expectEqual("Delete Entity If-Match sent", lastSent()["if-match"], "*");
      expectTrue("the entity is gone after Delete Entity with If-Match: *", (await readEntity(table, "rk2")) === undefined);
    },
  },
  "insert-or-replace-entity": {
    etagTest: (t) => upsertReturnsEtag(t, "Replace"),
    ifMatchTest: (t) => upsertIgnoresConcurrentChange(t, "Replace"),
  },
  "insert-or-merge-entity": {
    etagTest: (t) => upsertReturnsEtag(t, "Merge"),
    ifMatchTest: (t) => upsertIgnoresConcurrentChange(t, "Merge"),
  },
};

const METHOD: Record<string, "PUT" | "MERGE" | "DELETE"> = { "update-entity": "PUT", "merge-entity": "MERGE", "delete-entity": "DELETE" };

const rows: RowDef[] = ENTITY_OPS.flatMap((op) => [
  {
    id: `${P}${op.slug}/etag`,
    claim: entityOpAt(op.slug),
    title: `${op.operation} ${op.etag ? "returns an ETag" : "returns no ETag"}`,
    level: "doc" as const,
    source: entitySource(op.rest),
    service: "table" as const,
    matrix: [{ section: "TB", row: op.operation, column: "etag", claim: op.etag ? "Yes" : "No" }],
    run: TESTS[op.slug].etagTest,
  },
  {
    id: `${P}${op.slug}/if-match`,
    claim: entityOpAt(op.slug),
    title: op.ifMatch
      ? `${op.operation} evaluates If-Match: stale ETag → 412 and unchanged, current ETag or * → succeeds`
      : `${op.operation} needs no If-Match and performs no concurrency check`,
    level: "doc" as const,
    source: entitySource(op.rest),
    service: "table" as const,
    matrix: [{ section: "TB", row: op.operation, column: "ifMatch", claim: op.ifMatch ? "Yes" : "No" }],
    ...(op.writes === "conditional"
      ? {
          answers: [
            claimOn("table", ENTITY_REQUEST(METHOD[op.slug]), { params: { "if-match": "other" }, exists: true }, [
              answer(412, "UpdateConditionNotSatisfied"),
            ]),
            claimOn("table", ENTITY_REQUEST(METHOD[op.slug]), { params: { "if-match": ["current", "*"] }, exists: true }, SUCCESS),
          ],
        }
      : {}),
    run: TESTS[op.slug].ifMatchTest,
  },
]);

defineTable({ table: "TB Table entities", service: "table" }, rows);

defineMatrix({
  key: "TB",
  title: "Table entity operations",
  source: "seed article, table of entity operations",
  order: 40,
  columns: [
    { key: "etag", header: "Returns ETag value" },
    { key: "ifMatch", header: "Requires If-Match" },
  ],
  rowOrder: ENTITY_OPS.map((op) => op.operation),
});
