// TB Table entities, `rest` details beneath the rows of entity-ops.rows.ts:
// If-Match (a stale ETag, and *) on a missing entity, a malformed If-Match, no
// If-Match at all (Delete Entity refuses it; Update and Merge Entity, disputed,
// act as upserts or refuse it), Insert Entity over an existing entity. Each is
// its own ID beneath its TB row.
import type { UpdateMode } from "@azure/data-tables";
import { expectChanged, expectEqual, expectRawStatus, expectRefused, expectSent, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowDef } from "../../fixtures/harness/engine.ts";
import { claimAt } from "../../fixtures/harness/locations.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { ENTITY_OPS_PREFIX } from "./entity-ops-claims.ts";
import {
  entity,
  entitySource,
  expectSameEtag,
  lastSent,
  MALFORMED_IF_MATCH,
  mustRead,
  newEntity,
  otherWriter,
  PK,
  rawEntity,
  readEntity,
  STALE_TABLE_ETAG,
  written,
} from "./table-kit.ts";
import { answer, claimOn } from "../../fixtures/harness/claims.ts";
import { ENTITY_REQUEST } from "./table-kit.ts";

const P = ENTITY_OPS_PREFIX;
const NOT_FOUND = { status: 404, code: "ResourceNotFound" };

type Writer = { slug: string; operation: string; method: "PUT" | "MERGE" | "DELETE"; mode?: UpdateMode };
const WRITERS: Writer[] = [
  { slug: "update-entity", operation: "Update Entity", method: "PUT", mode: "Replace" },
  { slug: "merge-entity", operation: "Merge Entity", method: "MERGE", mode: "Merge" },
  { slug: "delete-entity", operation: "Delete Entity", method: "DELETE" },
];

const rows: RowDef[] = [];

for (const w of WRITERS) {
  rows.push({
    id: `${P}${w.slug}/if-match/missing-entity`,
    claim: claimAt(import.meta.url, `slug: "${w.slug}",`),
    title: `${w.operation} with If-Match (a stale ETag, and *) on a missing entity → 404 ResourceNotFound`,
    level: "rest",
    source: entitySource(`${w.operation}: If-Match on an entity that does not exist`),
    service: "table",
    answers: [
      claimOn("table", ENTITY_REQUEST(w.method), { params: { "if-match": ["*", "other"] }, exists: false }, [
        answer(404, "ResourceNotFound"),
      ]),
    ],
    async run(t) {
      const table = await t.newTable();
      for (const [label, ifMatch] of [
        ["*", "*"],
        ["a stale ETag", STALE_TABLE_ETAG],
      ] as const) {
        t.step(`${w.operation} with If-Match ${label} on a missing entity`);
        const op = w.mode
          ? table.updateEntity(entity("missing", { state: "mine" }), w.mode, { etag: ifMatch })
          : table.deleteEntity(PK, "missing", { etag: ifMatch });
        await expectRefused(`${w.operation}, If-Match ${label}, missing entity`, op, NOT_FOUND);
        expectSent(w.operation, lastSent(), "If-Match");
        expectTrue(
          `${w.operation} with If-Match ${label} on a missing entity created it`,
          (await readEntity(table, "missing")) === undefined,
        );
      }
    },
  });
  rows.push({
    id: `${P}${w.slug}/if-match/malformed`,
    claim: claimAt(import.meta.url, `slug: "${w.slug}",`),
    title: `${w.operation} with a malformed If-Match → 400, entity unchanged`,
    level: "rest",
    source: entitySource(`${w.operation}: If-Match must be an ETag or *`),
    service: "table",
    async run(t) {
      const { table, rk } = await newEntity(t, { state: "original" });
      const before = await mustRead(table, rk, "read before");
      const res = await rawEntity(t, {
        method: w.method,
        table: table.tableName,
        rk,
        ifMatch: MALFORMED_IF_MATCH,
        body: w.mode ? { state: "mine" } : undefined,
      });
      expectRawStatus(`${w.operation} with a malformed If-Match`, res, { status: 400 });
      t.note("errorCode", res.errorCode ?? null);
      const after = await mustRead(table, rk, `read after the refused ${w.operation}`);
      expectEqual(`entity after the refused ${w.operation}`, after.props, before.props);
      expectSameEtag(`ETag after the refused ${w.operation}`, after.etag, before.etag);
    },
  });
}

rows.push({
  id: "table/entity-ops/delete-entity/if-match/absent",
  title: "Delete Entity without If-Match → 400, entity unchanged",
  level: "rest",
  source: entitySource("Delete Entity: If-Match is required"),
  service: "table",
  async run(t) {
    const { table, rk } = await newEntity(t, { state: "original" });
    const before = await mustRead(table, rk, "read before");
    const res = await rawEntity(t, { method: "DELETE", table: table.tableName, rk });
    expectRawStatus("Delete Entity without If-Match", res, { status: 400 });
    const after = await mustRead(table, rk, "read after the refused Delete Entity");
    expectEqual("entity after the refused Delete Entity", after.props, before.props);
    expectSameEtag("ETag after the refused Delete Entity", after.etag, before.etag);
  },
});

for (const w of WRITERS.filter((x) => x.mode)) {
  const upsert = w.mode === "Replace" ? "Insert Or Replace" : "Insert Or Merge";
  rows.push({
    id: `${P}${w.slug}/if-match/absent`,
    claim: claimAt(import.meta.url, `slug: "${w.slug}",`),
    title: `${w.operation} without If-Match: acts as ${upsert} (since 2011-08-18) or is refused (the article: "required"); record which`,
    level: "disputed",
    source: entitySource(
      `${w.operation}: "If the If-Match header is missing, the operation is an ${upsert}" vs the seed's "Requires If-Match: Yes"`,
    ),
    service: "table",
    async run(t) {
      const { table, rk } = await newEntity(t, { state: "original", keep: "yes" });
      const before = await mustRead(table, rk, "read before");
      t.step(`${w.operation} without If-Match on an existing entity`);
      const existing = await rawEntity(t, { method: w.method, table: table.tableName, rk, body: { state: "raw" } });
      const after = await mustRead(table, rk, `read after ${w.operation} without If-Match`);
      t.step(`${w.operation} without If-Match on a missing entity`);
      const missing = await rawEntity(t, { method: w.method, table: table.tableName, rk: "absent", body: { state: "raw" } });
      const created = await readEntity(table, "absent");
      const ok = (s: number) => s >= 200 && s < 300;
      t.note("existing entity", { status: existing.status, code: existing.errorCode ?? null, replaced: after.etag !== before.etag });
      t.note("missing entity", { status: missing.status, code: missing.errorCode ?? null, inserted: created !== undefined });
      // Whichever reading the target follows, its answers and its state must agree.
      if (ok(existing.status)) {
        expectEqual(
          `entity after ${w.operation} without If-Match (answered ${existing.status})`,
          after.props,
          written(w.mode!, before.props, { state: "raw" }),
        );
        expectChanged(`${w.operation} without If-Match (answered ${existing.status})`, before.etag, after.etag);
      } else {
        expectRawStatus(`${w.operation} without If-Match on an existing entity`, existing, { status: 400 });
        expectEqual(`entity after the refused ${w.operation}`, after.props, before.props);
        expectSameEtag(`ETag after the refused ${w.operation}`, after.etag, before.etag);
      }
      if (ok(missing.status))
        expectEqual(`entity inserted by ${w.operation} without If-Match (answered ${missing.status})`, created?.props, { state: "raw" });
      else {
        expectRawStatus(`${w.operation} without If-Match on a missing entity`, missing, { status: [400, 404] });
        expectTrue(`${w.operation} without If-Match was refused but inserted the entity`, created === undefined);
      }
      t.note(
        "behaviour",
        ok(existing.status) && ok(missing.status)
          ? `upserts (acts as ${upsert})`
          : !ok(existing.status) && !ok(missing.status)
            ? "refused (If-Match required)"
            : "mixed",
      );
    },
  });
}

rows.push({
  id: "table/entity-ops/insert-entity/existing-entity",
  title: "Insert Entity over an existing entity → 409 EntityAlreadyExists, entity unchanged",
  level: "rest",
  source: entitySource("Insert Entity: EntityAlreadyExists"),
  service: "table",
  answers: [claimOn("table", ENTITY_REQUEST("POST"), { params: {}, exists: true }, [answer(409, "EntityAlreadyExists")])],
  async run(t) {
    const { table, rk } = await newEntity(t, { state: "original" });
    const before = await mustRead(table, rk, "read before");
    await expectRefused("Insert Entity over an existing entity", otherWriter(t, table).createEntity(entity(rk, { state: "mine" })), {
      status: 409,
      code: "EntityAlreadyExists",
    });
    const after = await mustRead(table, rk, "read after the refused Insert Entity");
    expectEqual("entity after the refused Insert Entity", after.props, before.props);
    expectSameEtag("ETag after the refused Insert Entity", after.etag, before.etag);
  },
});

defineTable({ table: "TB Table entities", service: "table" }, rows);
