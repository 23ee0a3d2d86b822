// G: every read path agrees with the strongest one (path-claims.ts). Right
// after each change, the path (a listing, a batch's sub-responses, a peek, a
// copy's or a snapshot's answer, a query) shows what the resource's own read
// shows, and a validator it hands out is usable: an If-Match with it succeeds.
import type { BlockBlobClient, ContainerClient } from "@azure/storage-blob";
import { expectEqual, expectRawStatus, expectTrue, sameEtag } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { allAnswered, preconditionFailed } from "../../fixtures/wire/signals.ts";
import { blobPath, newBlockBlob } from "../blob/blob-kit.ts";
import { secondLater } from "../blob/conditional-kit.ts";
import { blobTarget, containerTarget, guid, leaseAction } from "../blob/lease-kit.ts";
import { peek, queueWithMessage, receiptOf, receiveOne } from "../queue/queue-kit.ts";
import { entityPath, expectSameEtag, mustRead, newEntity, PK, rawBatch, rawEntity, readEntity, type BatchOp } from "../table/table-kit.ts";
import { PATHS, type PathClaim } from "./path-claims.ts";

/** One listed item: its name and the elements of its Properties. */
type Listed = Record<string, string>;

const element = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

/** The items of an XML listing, each with its name, snapshot and properties. */
function items(body: string, item: string): Listed[] {
  return [...body.matchAll(new RegExp(`<${item}>([\\s\\S]*?)</${item}>`, "g"))].map(([, x]) => {
    const out: Listed = {};
    for (const n of ["Name", "Snapshot", "Etag", "Last-Modified", "LeaseState", "LeaseStatus"]) {
      const v = element(x, n);
      if (v !== undefined) out[n] = v;
    }
    return out;
  });
}

async function listBlobs(t: RowContext, c: ContainerClient, snapshots = false): Promise<Listed[]> {
  const res = await t.raw("blob", {
    method: "GET",
    path: `/${c.containerName}`,
    query: { restype: "container", comp: "list", ...(snapshots ? { include: "snapshots" } : {}) },
  });
  expectRawStatus("List Blobs", res, { status: 200 });
  return items(res.body, "Blob");
}

async function listContainers(t: RowContext, prefix: string): Promise<Listed[]> {
  const res = await t.raw("blob", { method: "GET", path: "/", query: { comp: "list", prefix } });
  expectRawStatus("List Containers", res, { status: 200 });
  return items(res.body, "Container");
}

/** The same four things as the strongest read shows them (HEAD of the blob or the container). */
function shown(res: RawResponse): Listed {
  const h = res.headers;
  return { Etag: h["etag"], "Last-Modified": h["last-modified"], LeaseState: h["x-ms-lease-state"], LeaseStatus: h["x-ms-lease-status"] };
}

/** A listed item agrees with the strongest read: same ETag, Last-Modified, lease state and status. */
function agree(path: string, when: string, item: Listed | undefined, read: Listed): void {
  expectTrue(`${path} ${when}: the item is not listed`, item !== undefined);
  for (const k of ["Etag", "Last-Modified", "LeaseState", "LeaseStatus"]) {
    const label = k === "Etag" ? "ETag" : k;
    if (k === "Etag") expectTrue(`${path} ${when}: the ETag is not the one the resource's own read shows`, sameEtag(item![k], read[k]));
    else if (k === "Last-Modified")
      expectTrue(`${path} ${when}: the ${label} is not the one the resource's own read shows`, item![k] === read[k]);
    else expectEqual(`${path} ${when}: ${label}`, item![k], read[k]);
  }
}

const headBlob = (t: RowContext, b: BlockBlobClient) => t.raw("blob", { method: "HEAD", path: blobPath(b) });
const headContainer = (t: RowContext, c: ContainerClient) =>
  t.raw("blob", { method: "GET", path: `/${c.containerName}`, query: { restype: "container" } });

const RUN: Record<string, (t: RowContext) => Promise<void>> = {
  async "general/paths/list-blobs"(t) {
    const c = await t.newContainer();
    const [a, gone] = await allAnswered([newBlockBlob(t, "original", c), newBlockBlob(t, "to delete", c)]);
    const check = async (when: string) => {
      const [list, head] = await allAnswered([listBlobs(t, c), headBlob(t, a)]);
      agree(
        "List Blobs",
        when,
        list.find((i) => i.Name === a.name),
        shown(head),
      );
      return list;
    };
    const before = await check("before any change");
    // A second later by the server's clock, so the write's Last-Modified differs from the one listed before it.
    await secondLater(t, async () => (await a.getProperties()).date, before.find((i) => i.Name === a.name)!["Last-Modified"]);
    t.step("a write");
    await a.upload("rewritten", 9);
    await check("after a write");
    t.step("a lease acquired, then broken");
    expectRawStatus("acquire a lease", await leaseAction(t, blobTarget(a), "acquire", { proposed: guid(), duration: -1 }), { status: 201 });
    await check("after a lease was acquired");
    expectRawStatus("break the lease", await leaseAction(t, blobTarget(a), "break", { breakPeriod: 0 }), { status: 202 });
    await check("after the lease was broken");
    t.step("a new blob, a deleted one");
    const fresh = await newBlockBlob(t, "new", c);
    await gone.delete();
    const names = (await check("after a blob was added and another deleted")).map((i) => i.Name);
    expectTrue("List Blobs right after a blob was created: it is not listed", names.includes(fresh.name));
    expectTrue("List Blobs right after a blob was deleted: it is still listed", !names.includes(gone.name));
    t.step("a write with If-Match and the listed ETag");
    const etag = (await listBlobs(t, c)).find((i) => i.Name === a.name)?.Etag ?? "";
    const res = await t.raw("blob", {
      method: "PUT",
      path: blobPath(a),
      headers: { "x-ms-blob-type": "BlockBlob", "if-match": etag },
      body: "written with the listed ETag",
    });
    expectRawStatus("Put Blob with If-Match and the ETag List Blobs showed", res, { status: 201 });
  },

  async "general/paths/list-containers"(t) {
    const base = t.name("c");
    const c = t.blob.getContainerClient(t.nameAfter(base, "a"));
    await c.create();
    const check = async (when: string) => {
      const [list, head] = await allAnswered([listContainers(t, base), headContainer(t, c)]);
      agree(
        "List Containers",
        when,
        list.find((i) => i.Name === c.containerName),
        shown(head),
      );
      return list;
    };
    const before = await check("before any change");
    await secondLater(t, async () => (await c.getProperties()).date, before.find((i) => i.Name === c.containerName)!["Last-Modified"]);
    t.step("a metadata write");
    await c.setMetadata({ state: "changed" });
    await check("after a metadata write");
    t.step("a lease acquired, then released");
    const id = guid();
    expectRawStatus("acquire a lease", await leaseAction(t, containerTarget(c), "acquire", { proposed: id, duration: -1 }), {
      status: 201,
    });
    await check("after a lease was acquired");
    expectRawStatus("release the lease", await leaseAction(t, containerTarget(c), "release", { id }), { status: 200 });
    await check("after the lease was released");
    t.step("a new container");
    const fresh = t.blob.getContainerClient(t.nameAfter(base, "c"));
    await fresh.create();
    const names = (await check("after a container was added")).map((i) => i.Name);
    expectTrue("List Containers right after a container was created: it is not listed", names.includes(fresh.containerName));
  },

  async "general/paths/batch-etags"(t) {
    const { table } = await newEntity(t, { state: "original" }, "a");
    const b = await table.createEntity({ partitionKey: PK, rowKey: "b", state: "original" });
    const a = (await mustRead(table, "a", "read a")).etag;
    t.step("a batch: insert, update, merge, insert or replace, insert or merge");
    const ops: BatchOp[] = [
      { method: "POST" as const, rk: "c", body: { state: "inserted" } },
      { method: "PUT" as const, rk: "a", ifMatch: a, body: { state: "updated" } },
      { method: "MERGE" as const, rk: "b", ifMatch: b.etag!, body: { extra: "merged" } },
      { method: "PUT" as const, rk: "d", body: { state: "upserted" } },
      { method: "MERGE" as const, rk: "e", body: { state: "upmerged" } },
    ];
    const res = await rawBatch(t, table.tableName, ops);
    expectEqual("batch status", res.status, 202);
    expectEqual("failing sub-responses", res.subResponses.filter((s) => s.status >= 300).length, 0);
    expectEqual("sub-responses", res.subResponses.length, ops.length);
    for (const [i, op] of ops.entries()) {
      t.step(`entity ${op.rk}: its sub-response's ETag`);
      const etag = res.subResponses[i].etag;
      expectTrue(`sub-response ${i + 1} (${op.method} ${op.rk}): no ETag`, !!etag);
      expectSameEtag(
        `entity ${op.rk}: Get Entity's ETag after the batch = its sub-response's`,
        (await readEntity(table, op.rk))?.etag,
        etag,
      );
      const upd = await rawEntity(t, {
        method: "PUT",
        table: table.tableName,
        rk: op.rk,
        ifMatch: etag,
        body: { state: "after the batch" },
      });
      expectRawStatus(`Update Entity ${op.rk} with If-Match and its sub-response's ETag`, upd, { status: 204 });
      expectEqual(`entity ${op.rk} after that update`, (await mustRead(table, op.rk, `read ${op.rk}`)).props, { state: "after the batch" });
    }
  },

  async "general/paths/peek"(t) {
    const { q, id } = await queueWithMessage(t, "v1");
    const texts = async () => (await peek(t, q)).map((m) => [m.messageId, m.text]);
    t.step("right after Put Message");
    expectEqual("Peek Messages right after Put Message", await texts(), [[id, "v1"]]);
    t.step("right after Update Message with visibility 0");
    const receipt = (await receiveOne(q, 30)).popReceipt;
    expectTrue("the message was not dequeued (setup)", !!receipt);
    const updated = await q.updateMessage(id, receipt!, "v2", 0);
    expectEqual("Peek Messages right after Update Message (visibility 0)", await texts(), [[id, "v2"]]);
    t.step("right after Delete Message");
    await q.deleteMessage(id, receiptOf(updated));
    expectEqual("Peek Messages right after Delete Message", await texts(), []);
  },

  async "general/paths/copy-destination"(t) {
    const c = await t.newContainer();
    const [src, dest] = await allAnswered([newBlockBlob(t, "source", c), newBlockBlob(t, "destination", c)]);
    t.step("Copy Blob onto an existing blob");
    const res = await t.raw("blob", { method: "PUT", path: blobPath(dest), headers: { "x-ms-copy-source": src.url } });
    expectRawStatus("Copy Blob", res, { status: 202 });
    // A copy still pending answers the ETag it started with; only a completed one hands out the destination's.
    if (res.headers["x-ms-copy-status"] !== "success")
      preconditionFailed(
        `the copy did not complete at once (x-ms-copy-status: ${res.headers["x-ms-copy-status"] ?? "none"}): its answer's ETag is not the final one`,
      );
    const etag = res.headers["etag"];
    expectTrue("Copy Blob: no ETag", !!etag);
    const [head, list] = await allAnswered([headBlob(t, dest), listBlobs(t, c)]);
    expectTrue("Get Blob Properties after Copy Blob: the ETag is not the copy's", head.headers["etag"] === etag);
    expectTrue("List Blobs after Copy Blob: the ETag is not the copy's", sameEtag(list.find((i) => i.Name === dest.name)?.Etag, etag));
    t.step("a write with If-Match and the copy's ETag");
    const w = await t.raw("blob", {
      method: "PUT",
      path: blobPath(dest),
      query: { comp: "metadata" },
      headers: { "if-match": etag, "x-ms-meta-state": "after the copy" },
    });
    expectRawStatus("Set Blob Metadata with If-Match and the copy's ETag", w, { status: 200 });
  },

  async "general/paths/snapshot"(t) {
    const c = await t.newContainer();
    const b = await newBlockBlob(t, "original", c);
    await b.setMetadata({ state: "changed" });
    t.step("Snapshot Blob");
    const res = await t.raw("blob", { method: "PUT", path: blobPath(b), query: { comp: "snapshot" } });
    expectRawStatus("Snapshot Blob", res, { status: 201 });
    const [etag, snapshot] = [res.headers["etag"], res.headers["x-ms-snapshot"]];
    expectTrue("Snapshot Blob: no ETag or no x-ms-snapshot", !!etag && !!snapshot);
    const [head, list] = await allAnswered([
      t.raw("blob", { method: "HEAD", path: blobPath(b), query: { snapshot } }),
      listBlobs(t, c, true),
    ]);
    expectTrue("Get Blob Properties of the snapshot: the ETag is not the one Snapshot Blob answered", head.headers["etag"] === etag);
    expectTrue(
      "List Blobs (snapshots): the snapshot's ETag is not the one Snapshot Blob answered",
      sameEtag(list.find((i) => i.Name === b.name && i.Snapshot === snapshot)?.Etag, etag),
    );
    t.step("a read of the snapshot with If-Match and that ETag");
    const read = await t.raw("blob", { method: "GET", path: blobPath(b), query: { snapshot }, headers: { "if-match": etag } });
    expectRawStatus("Get Blob of the snapshot with If-Match and its ETag", read, { status: 200 });
    expectEqual("content of the snapshot", read.body, "original");
  },

  async "general/paths/query-entities"(t) {
    const { table, rk } = await newEntity(t, { state: "original" });
    const seen = await mustRead(table, rk, "read the entity");
    t.step("a write, then a query");
    await table.updateEntity({ partitionKey: PK, rowKey: rk, state: "updated" }, "Replace", { etag: seen.etag });
    const listed: { rowKey?: string; etag: string }[] = [];
    for await (const e of table.listEntities({ queryOptions: { filter: `PartitionKey eq '${PK}'` } })) listed.push(e);
    const etag = listed.find((e) => e.rowKey === rk)?.etag;
    expectSameEtag(
      "Query Entities right after Update Entity: odata.etag = Get Entity's ETag",
      etag,
      (await mustRead(table, rk, "read after the update")).etag,
    );
    t.step("Update Entity with If-Match and the listed ETag");
    const res = await t.raw("table", {
      method: "PUT",
      path: entityPath(table.tableName, rk),
      headers: { "if-match": etag!, "content-type": "application/json" },
      body: JSON.stringify({ state: "with the listed ETag" }),
    });
    expectRawStatus("Update Entity with If-Match and the odata.etag Query Entities listed", res, { status: 204 });
  },
};

// Listings wait a second between the first listing and the write (the pool slot is lent meanwhile).
const rows: RowDef[] = PATHS.map((p: PathClaim) => ({
  id: p.id,
  title: p.title,
  level: p.level,
  source: p.source,
  service: p.service,
  waitSeconds: p.items && p.service === "blob" ? 1 : undefined,
  run: RUN[p.id],
}));

for (const service of [...new Set(rows.map((r) => r.service))])
  defineTable(
    { table: "G General behaviour", service },
    rows.filter((r) => r.service === service),
  );
