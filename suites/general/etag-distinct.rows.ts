// G general/etag-distinct: the ETag changes every time the resource is
// updated (the article's definition), so no two versions share one, also
// for writes that land in the same millisecond (Azurite issue #1286: entity
// ETags derived from the timestamp repeated). On a blob and on an entity:
// writes back to back, then ten at a time, each answer an ETag no earlier
// version had; then an If-Match with every superseded ETag is refused (412)
// and the resource reads back as it was. The row holds when both its finer
// rows (/blob, /entity) hold.
import { expectEqual, expectRawStatus, expectTrue, fail, sameEtag } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { judgeFinerRows } from "../../fixtures/harness/finer-rows.ts";
import { entityPath, newEntity, PK } from "../table/table-kit.ts";

// 100 versions: 20 back to back (a few ms apart on a local target), 80 ten at a
// time (the ones that can land in the same millisecond at any distance); the
// superseded ETags are then tried 20 at a time.
const SEQUENTIAL = 20;
const CONCURRENT = 80;
const AT_ONCE = 10;
const CONDITIONS_AT_ONCE = 20;
const SOURCE =
  'seed: "The ETag changes every time the resource is updated"; REST: ETag (Get Blob Properties, Update Entity); Azurite issue #1286 (entity ETags equal for writes in the same millisecond)';

/** A resource of one kind: an unconditional write of version `n`, a write with an If-Match, and a read of the current version. */
interface Versioned {
  operation: string;
  refusal: { status: number; code: string };
  write(n: number): Promise<RawResponse>;
  writeIfMatch(etag: string): Promise<RawResponse>;
  read(): Promise<{ etag?: string; version?: string }>;
}

async function blob(t: RowContext): Promise<Versioned> {
  const c = await t.newContainer();
  const path = `/${c.containerName}/${t.name("b")}`;
  const put = (body: string, headers: Record<string, string> = {}) =>
    t.raw("blob", { method: "PUT", path, headers: { "x-ms-blob-type": "BlockBlob", ...headers }, body });
  return {
    operation: "Put Blob",
    refusal: { status: 412, code: "ConditionNotMet" },
    write: (n) => put(`version ${n}`),
    writeIfMatch: (etag) => put("stale writer", { "if-match": etag }),
    read: async () => {
      const res = await t.raw("blob", { method: "GET", path });
      expectRawStatus("Get Blob", res, { status: 200 });
      return { etag: res.headers["etag"], version: res.body };
    },
  };
}

async function entity(t: RowContext): Promise<Versioned> {
  const { table, rk } = await newEntity(t, { state: "version 0" });
  const path = entityPath(table.tableName, rk);
  const put = (state: string, ifMatch: string) =>
    t.raw("table", {
      method: "PUT",
      path,
      headers: { "content-type": "application/json", "if-match": ifMatch },
      body: JSON.stringify({ PartitionKey: PK, RowKey: rk, state }),
    });
  return {
    operation: "Update Entity",
    refusal: { status: 412, code: "UpdateConditionNotSatisfied" },
    write: (n) => put(`version ${n}`, "*"),
    writeIfMatch: (etag) => put("stale writer", etag),
    read: async () => {
      const res = await t.raw("table", { method: "GET", path });
      expectRawStatus("Get Entity", res, { status: 200 });
      let state: string | undefined;
      try {
        state = (JSON.parse(res.body) as { state?: string }).state;
      } catch {
        fail("Get Entity: the answer's body is not JSON", { expected: "an entity as JSON", got: "another body" });
      }
      return { etag: res.headers["etag"], version: state };
    },
  };
}

async function distinct(t: RowContext, make: (t: RowContext) => Promise<Versioned>): Promise<void> {
  const r = await make(t);
  const answered: { n: number; etag: string }[] = [];
  const take = (n: number, how: string, res: RawResponse) => {
    expectTrue(
      `${r.operation} ${how}: expected success, got ${res.status} ${res.errorCode ?? ""}`.trim(),
      res.status >= 200 && res.status < 300,
      { expected: "success", got: `${r.operation}: ${res.status}` },
    );
    const etag = res.headers["etag"];
    expectTrue(`${r.operation} ${how} answered no ETag`, !!etag, { expected: "ETag", got: "none" });
    const earlier = answered.find((a) => sameEtag(a.etag, etag));
    if (earlier)
      fail(`${r.operation} ${how} answered the ETag version ${earlier.n} already had`, {
        expected: "an ETag no earlier version had",
        got: "an earlier version's ETag",
      });
    answered.push({ n, etag });
  };
  t.step(`${SEQUENTIAL} writes back to back`);
  for (let n = 1; n <= SEQUENTIAL; n++) take(n, `(version ${n}, back to back)`, await r.write(n));
  t.step(`${CONCURRENT} writes, ${AT_ONCE} at a time`);
  for (let from = SEQUENTIAL + 1; from <= SEQUENTIAL + CONCURRENT; from += AT_ONCE) {
    const ns = Array.from({ length: AT_ONCE }, (_, i) => from + i);
    const answers = await Promise.all(ns.map((n) => r.write(n)));
    answers.forEach((res, i) => take(ns[i], `(version ${ns[i]}, ${AT_ONCE} at a time)`, res));
  }
  t.step("read the current version");
  const current = await r.read();
  const last = answered.find((a) => sameEtag(a.etag, current.etag));
  expectTrue(`the ETag read back is none of the ${answered.length} the writes answered`, !!last, {
    expected: "the ETag of the version read",
    got: "another ETag",
  });
  expectEqual("the version read back (the one whose write answered its ETag)", current.version, `version ${last!.n}`);
  t.step("If-Match with each superseded ETag");
  const superseded = answered.filter((a) => a !== last);
  for (let i = 0; i < superseded.length; i += CONDITIONS_AT_ONCE) {
    const batch = superseded.slice(i, i + CONDITIONS_AT_ONCE);
    const answers = await Promise.all(batch.map((a) => r.writeIfMatch(a.etag)));
    answers.forEach((res, j) =>
      expectRawStatus(`${r.operation} with If-Match: the ETag of version ${batch[j].n} (superseded)`, res, r.refusal),
    );
  }
  t.step("read back after the refused writes");
  const after = await r.read();
  expectTrue("the resource changed after the refused writes", sameEtag(after.etag, current.etag) && after.version === current.version, {
    expected: "unchanged",
    got: "changed",
  });
}

const label = (r: { id: string }) => r.id.slice(r.id.lastIndexOf("/") + 1);

const rows: RowDef[] = [
  {
    id: "general/etag-distinct/blob",
    title: `A blob's ETags are distinct: ${SEQUENTIAL} Put Blob back to back and ${CONCURRENT} ${AT_ONCE} at a time each answer an ETag no earlier version had; an If-Match with any superseded ETag → 412 ConditionNotMet, the blob unchanged`,
    level: "doc",
    source: SOURCE,
    service: "blob",
    run: (t) => distinct(t, blob),
  },
  {
    id: "general/etag-distinct/entity",
    title: `An entity's ETags are distinct: ${SEQUENTIAL} Update Entity back to back and ${CONCURRENT} ${AT_ONCE} at a time each answer an ETag no earlier version had; an If-Match with any superseded ETag → 412 UpdateConditionNotSatisfied, the entity unchanged`,
    level: "doc",
    source: SOURCE,
    service: "table",
    run: (t) => distinct(t, entity),
  },
  {
    id: "general/etag-distinct",
    title:
      "No two versions share an ETag, also for writes in the same millisecond, on blobs and entities (holds when /blob and /entity hold)",
    level: "doc",
    source: SOURCE,
    service: "blob",
    derivedFrom: ["general/etag-distinct/blob", "general/etag-distinct/entity"],
    async run(t) {
      for (const r of t.derived) t.note(label(r), r.observed === "PASS" ? "PASS" : `${r.observed}: ${r.message ?? ""}`);
      judgeFinerRows(t, label);
    },
  },
];

for (const service of ["blob", "table"] as const)
  defineTable(
    { table: "G General behaviour", service },
    rows.filter((r) => r.service === service),
  );
