// TB validators beyond If-Match: an entity's ETag and Timestamp change
// together, and a 204 insert still hands out the ETag a later If-Match takes
// (catalogue TB; REST: Insert Entity, Update Entity, Merge Entity, Get Entity).
// Raw requests: the wire's own ETag headers, odata.etag and Timestamp.
import { expectEqual, expectRawStatus, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { secondLater } from "../blob/conditional-kit.ts";
import { entityPath, entitySource, PK, STALE_TABLE_ETAG } from "./table-kit.ts";

interface Version {
  /** The ETag header of Get Entity, and the odata.etag of its body. */
  etag?: string;
  bodyEtag?: string;
  timestamp?: string;
  date: Date;
}

async function getEntity(t: RowContext, table: string, rk: string): Promise<Version> {
  const res = await t.raw("table", {
    method: "GET",
    path: entityPath(table, rk),
    headers: { accept: "application/json;odata=minimalmetadata" },
  });
  expectRawStatus("Get Entity", res, { status: 200 });
  const body = JSON.parse(res.body) as { Timestamp?: string; "odata.etag"?: string };
  return { etag: res.headers["etag"], bodyEtag: body["odata.etag"], timestamp: body.Timestamp, date: new Date(res.headers["date"]) };
}

const write = (t: RowContext, table: string, rk: string, method: "PUT" | "MERGE", ifMatch: string, state: string) =>
  t.raw("table", {
    method,
    path: entityPath(table, rk),
    headers: { "content-type": "application/json", "if-match": ifMatch },
    body: JSON.stringify({ PartitionKey: PK, RowKey: rk, state }),
  });

const rows: RowDef[] = [
  {
    id: "table/etag/timestamp-coupled",
    title:
      "An entity's ETag and Timestamp change together: each write that gives a new ETag gives a later Timestamp, Get Entity returns both of one version, a read or a refused write changes neither, and a Timestamp the client sends is not stored",
    level: "rest",
    source: entitySource("Insert Entity, Update Entity, Merge Entity, Get Entity (Timestamp is set by the server)"),
    service: "table",
    // Two one-second gaps between writes (the pool slot is lent meanwhile).
    waitSeconds: 4,
    async run(t) {
      const table = await t.newTable();
      const rk = "rk";
      t.step("Insert Entity carrying a Timestamp of its own");
      const inserted = await t.raw("table", {
        method: "POST",
        path: `/${table.tableName}`,
        headers: { "content-type": "application/json", prefer: "return-no-content" },
        body: JSON.stringify({
          PartitionKey: PK,
          RowKey: rk,
          state: "original",
          Timestamp: "2000-01-01T00:00:00Z",
          "Timestamp@odata.type": "Edm.DateTime",
        }),
      });
      expectRawStatus("Insert Entity", inserted, { status: [201, 204] });
      const v0 = await getEntity(t, table.tableName, rk);
      expectTrue("Get Entity: the ETag header and odata.etag differ", !!v0.etag && v0.etag === v0.bodyEtag);
      expectTrue(`the client's Timestamp was stored (${v0.timestamp})`, !!v0.timestamp && !v0.timestamp.startsWith("2000-01-01"));
      t.step("read again, and a refused write");
      const again = await getEntity(t, table.tableName, rk);
      expectEqual("a second read: ETag and Timestamp", [again.etag, again.timestamp], [v0.etag, v0.timestamp]);
      expectRawStatus("Update Entity with a stale If-Match", await write(t, table.tableName, rk, "PUT", STALE_TABLE_ETAG, "refused"), {
        status: 412,
      });
      const refused = await getEntity(t, table.tableName, rk);
      expectEqual("after the refused write: ETag and Timestamp", [refused.etag, refused.timestamp], [v0.etag, v0.timestamp]);
      let last = v0;
      for (const method of ["PUT", "MERGE"] as const) {
        const what = method === "PUT" ? "Update Entity" : "Merge Entity";
        await secondLater(t, async () => (await getEntity(t, table.tableName, rk)).date, last.timestamp);
        t.step(`${what}, a second later by the server's clock`);
        const res = await write(t, table.tableName, rk, method, last.etag!, method.toLowerCase());
        expectRawStatus(`${what} with the current If-Match`, res, { status: 204 });
        const now = await getEntity(t, table.tableName, rk);
        expectTrue(`${what}: a new ETag`, !!now.etag && now.etag !== last.etag);
        expectEqual(`${what}: the ETag it answered is the one Get Entity returns`, res.headers["etag"], now.etag);
        expectTrue(
          `${what}: the ETag changed but the Timestamp did not move forward (${last.timestamp} → ${now.timestamp})`,
          Date.parse(now.timestamp ?? "") > Date.parse(last.timestamp!),
        );
        last = now;
      }
    },
  },
  {
    id: "table/insert/no-content-etag",
    title:
      "Insert Entity with Prefer: return-no-content → 204 with an ETag header; Get Entity returns the same odata.etag, and Update Entity with If-Match set to it succeeds",
    level: "rest",
    source: entitySource("Insert Entity (Prefer: return-no-content, ETag header)"),
    service: "table",
    async run(t) {
      const table = await t.newTable();
      t.step("Insert Entity with Prefer: return-no-content");
      const res = await t.raw("table", {
        method: "POST",
        path: `/${table.tableName}`,
        headers: { "content-type": "application/json", prefer: "return-no-content" },
        body: JSON.stringify({ PartitionKey: PK, RowKey: "rk", state: "original" }),
      });
      expectRawStatus("Insert Entity with Prefer: return-no-content", res, { status: 204 });
      const etag = res.headers["etag"];
      expectTrue("the 204 Insert Entity answer carries no ETag header", !!etag);
      const read = await getEntity(t, table.tableName, "rk");
      expectEqual("odata.etag of Get Entity is the ETag the insert answered", read.bodyEtag, etag);
      t.step("Update Entity with If-Match set to the insert's ETag");
      expectRawStatus(
        "Update Entity with If-Match set to the 204 insert's ETag",
        await write(t, table.tableName, "rk", "PUT", etag!, "updated"),
        { status: 204 },
      );
    },
  },
];

defineTable({ table: "TB Table entities", service: "table" }, rows);
