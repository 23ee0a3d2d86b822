// T2 Blob operations: does each operation return an ETag, and does it evaluate
// conditional headers? The claims are data (BLOB_OPS in blob-kit.ts); this file
// holds the code for the basic blob operations and the matrix section. Leases,
// copies and blocks/pages are in blob-ops-lease/-copy/-blocks.spec.ts.
import {
  expectChanged,
  expectEqual,
  expectEtag,
  expectNoEtag,
  expectRawStatus,
  expectRefused,
  expectSucceeds,
  expectTrue,
} from "../../fixtures/assert.ts";
import { defineMatrix, defineTable } from "../../fixtures/registry.ts";
import {
  BLOB_OPS,
  BLOB_OPS_PREFIX,
  blobOpRows,
  blobPath,
  expectUnchanged,
  newBlockBlob,
  readBlob,
  readHonoursConditions,
  snapshotOf,
  STALE_ETAG,
  writeHonoursIfMatch,
  type BlobOpTests,
} from "./blob-kit.ts";
import type { BlockBlobClient } from "@azure/storage-blob";
import type { RowContext } from "../../fixtures/engine.ts";

/** Content-Type, ETag and content as one comparable value. */
async function withContentType(b: BlockBlobClient) {
  const p = await b.getProperties();
  return { etag: p.etag!, contentType: p.contentType, content: (await b.downloadToBuffer()).toString("utf8") };
}

/** Get Blob (one GET, conditions on it) and its body as text. */
async function downloadText(b: BlockBlobClient, conditions: { ifMatch?: string; ifNoneMatch?: string }): Promise<string> {
  const res = await b.download(0, undefined, { conditions });
  const chunks: Buffer[] = [];
  for await (const chunk of res.readableStreamBody!) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/** Get Blob Metadata is not in the SDK: GET ?comp=metadata, raw. */
function getMetadataRaw(t: RowContext, b: BlockBlobClient, headers: Record<string, string> = {}) {
  return t.raw("blob", { method: "GET", path: blobPath(b), query: { comp: "metadata" }, headers });
}

const TESTS: Record<string, BlobOpTests> = {
  "put-blob": {
    async etag(t) {
      const b = await newBlockBlob(t);
      const before = (await b.getProperties()).etag;
      const res = await b.upload("rewritten", 9);
      const etag = expectEtag("Put Blob", res.etag);
      expectChanged("Put Blob over an existing blob", before, etag);
      expectEqual("ETag read after Put Blob", (await b.getProperties()).etag, etag);
    },
    async conditional(t) {
      const b = await newBlockBlob(t);
      await writeHonoursIfMatch(t, "Put Blob", {
        read: () => snapshotOf(b),
        write: (ifMatch) => b.upload("rewritten", 9, { conditions: { ifMatch }, metadata: { state: "rewritten" } }),
        applied: (after) => expectEqual("content after the permitted Put Blob", after.content, "rewritten"),
      });
    },
  },
  "get-blob": {
    async etag(t) {
      const b = await newBlockBlob(t);
      // Raw: the SDK's download throws on an answer without an ETag before this row could judge it.
      const get = async (what: string) => {
        const res = await t.raw("blob", { method: "GET", path: blobPath(b) });
        expectRawStatus(what, res, { status: 200 });
        return res.headers["etag"];
      };
      const etag = expectEtag("Get Blob", await get("Get Blob"));
      expectEqual("Get Blob ETag = Get Blob Properties ETag", etag, (await b.getProperties()).etag);
      const put = await b.upload("rewritten", 9);
      const second = await get("Get Blob after the blob changed");
      expectChanged("Get Blob after the blob changed", etag, second);
      expectEqual("Get Blob ETag after the change = Put Blob's ETag", second, put.etag);
    },
    async conditional(t) {
      const b = await newBlockBlob(t);
      const etag = (await b.getProperties()).etag!;
      await readHonoursConditions(t, "Get Blob", {
        etag,
        read: (conditions) => downloadText(b, conditions),
        check: (content) => expectEqual("Get Blob content with the current If-Match", content, "original"),
      });
    },
  },
  "get-blob-properties": {
    async etag(t) {
      const b = await newBlockBlob(t);
      const uploaded = (await b.upload("v1", 2)).etag;
      const etag = expectEtag("Get Blob Properties", (await b.getProperties()).etag);
      expectEqual("Get Blob Properties ETag = Put Blob's ETag", etag, uploaded);
      const meta = await b.setMetadata({ state: "changed" });
      const after = (await b.getProperties()).etag;
      expectChanged("Get Blob Properties after Set Blob Metadata", etag, after);
      expectEqual("Get Blob Properties ETag = Set Blob Metadata's ETag", after, meta.etag);
    },
    async conditional(t) {
      const b = await newBlockBlob(t);
      const etag = (await b.getProperties()).etag!;
      await readHonoursConditions(t, "Get Blob Properties", {
        etag,
        read: (conditions) => b.getProperties({ conditions }),
        check: (res) => expectEqual("Get Blob Properties metadata with the current If-Match", (res as { metadata?: Record<string, string> }).metadata, { state: "original" }),
      });
    },
  },
  "set-blob-properties": {
    async etag(t) {
      const b = await newBlockBlob(t);
      const before = (await b.getProperties()).etag;
      const res = await b.setHTTPHeaders({ blobContentType: "text/x-changed" });
      const etag = expectEtag("Set Blob Properties", res.etag);
      expectChanged("Set Blob Properties", before, etag);
      const read = await b.getProperties();
      expectEqual("Content-Type read after Set Blob Properties", read.contentType, "text/x-changed");
      expectEqual("ETag read after Set Blob Properties", read.etag, etag);
    },
    async conditional(t) {
      const b = await newBlockBlob(t);
      await writeHonoursIfMatch(t, "Set Blob Properties", {
        read: () => withContentType(b),
        write: (ifMatch) => b.setHTTPHeaders({ blobContentType: "text/x-changed" }, { conditions: { ifMatch } }),
        applied: (after) => expectEqual("Content-Type after the permitted Set Blob Properties", after.contentType, "text/x-changed"),
      });
    },
  },
  "get-blob-metadata": {
    async etag(t) {
      const b = await newBlockBlob(t);
      const res = await getMetadataRaw(t, b);
      expectEqual("Get Blob Metadata status", res.status, 200);
      const etag = expectEtag("Get Blob Metadata", res.headers["etag"]);
      expectEqual("Get Blob Metadata x-ms-meta-state", res.headers["x-ms-meta-state"], "original");
      expectEqual("Get Blob Metadata ETag = Get Blob Properties ETag", etag, (await b.getProperties()).etag);
      const set = await b.setMetadata({ state: "changed" });
      const again = await getMetadataRaw(t, b);
      expectChanged("Get Blob Metadata after Set Blob Metadata", etag, again.headers["etag"]);
      expectEqual("Get Blob Metadata ETag = Set Blob Metadata's ETag", again.headers["etag"], set.etag);
    },
    async conditional(t) {
      const b = await newBlockBlob(t);
      const etag = (await b.getProperties()).etag!;
      t.step("Get Blob Metadata with a stale If-Match");
      const stale = await getMetadataRaw(t, b, { "If-Match": STALE_ETAG });
      expectRawStatus("Get Blob Metadata, stale If-Match", stale, { status: 412, code: "ConditionNotMet" });
      t.step("Get Blob Metadata with the current If-Match");
      const current = await getMetadataRaw(t, b, { "If-Match": etag });
      expectRawStatus("Get Blob Metadata, current If-Match", current, { status: 200 });
      expectEqual("Get Blob Metadata, current If-Match: x-ms-meta-state", current.headers["x-ms-meta-state"], "original");
      t.step("Get Blob Metadata with the current If-None-Match");
      const none = await getMetadataRaw(t, b, { "If-None-Match": etag });
      expectRawStatus("Get Blob Metadata, current If-None-Match", none, { status: 304 });
    },
  },
  "set-blob-metadata": {
    async etag(t) {
      const b = await newBlockBlob(t);
      const before = (await b.getProperties()).etag;
      const res = await b.setMetadata({ state: "changed" });
      const etag = expectEtag("Set Blob Metadata", res.etag);
      expectChanged("Set Blob Metadata", before, etag);
      const read = await b.getProperties();
      expectEqual("metadata read after Set Blob Metadata", read.metadata, { state: "changed" });
      expectEqual("ETag read after Set Blob Metadata", read.etag, etag);
    },
    async conditional(t) {
      const b = await newBlockBlob(t);
      await writeHonoursIfMatch(t, "Set Blob Metadata", {
        read: () => snapshotOf(b),
        write: (ifMatch) => b.setMetadata({ state: "changed" }, { conditions: { ifMatch } }),
        applied: (after) => expectEqual("metadata after the permitted Set Blob Metadata", after.metadata, { state: "changed" }),
      });
    },
  },
  "snapshot-blob": {
    async etag(t) {
      const b = await newBlockBlob(t);
      const base = (await b.getProperties()).etag;
      const res = await b.createSnapshot();
      const etag = expectEtag("Snapshot Blob", res.etag);
      // The ETag returned is the snapshot's: reading the snapshot returns it.
      const snap = b.withSnapshot(res.snapshot!);
      expectEqual("ETag read from the snapshot", (await snap.getProperties()).etag, etag);
      t.note("snapshotEtagEqualsBase", etag === base);
    },
    async conditional(t) {
      const b = await newBlockBlob(t);
      const c = t.blob.getContainerClient(b.containerName);
      const snapshots = async () => {
        const out: string[] = [];
        for await (const item of c.listBlobsFlat({ includeSnapshots: true })) if (item.snapshot) out.push(item.snapshot);
        return out;
      };
      const before = await readBlob(b);
      t.step("Snapshot Blob with a stale If-Match");
      await expectRefused("Snapshot Blob, stale If-Match", b.createSnapshot({ conditions: { ifMatch: STALE_ETAG } }), { status: 412, code: "ConditionNotMet" });
      expectEqual("snapshots after the refused Snapshot Blob", (await snapshots()).length, 0);
      expectUnchanged("the blob after the refused Snapshot Blob", before, await readBlob(b));
      t.step("Snapshot Blob with the current If-Match");
      const res = await expectSucceeds("Snapshot Blob, current If-Match", b.createSnapshot({ conditions: { ifMatch: before.etag } }));
      expectEqual("snapshots after the permitted Snapshot Blob", (await snapshots()).length, 1);
      expectEqual("content of the snapshot", (await b.withSnapshot(res.snapshot!).downloadToBuffer()).toString("utf8"), "original");
    },
  },
  "delete-blob": {
    async etag(t) {
      const b = await newBlockBlob(t);
      const res = await t.raw("blob", { method: "DELETE", path: blobPath(b) });
      expectEqual("Delete Blob status", res.status, 202);
      expectNoEtag("Delete Blob", res.headers["etag"]);
      expectTrue("the blob is gone after Delete Blob", !(await b.exists()));
    },
    async conditional(t) {
      const b = await newBlockBlob(t);
      const before = await readBlob(b);
      t.step("Delete Blob with a stale If-Match");
      await expectRefused("Delete Blob, stale If-Match", b.delete({ conditions: { ifMatch: STALE_ETAG } }), { status: 412, code: "ConditionNotMet" });
      expectUnchanged("the blob after the refused Delete Blob", before, await readBlob(b));
      t.step("Delete Blob with the current If-Match");
      await expectSucceeds("Delete Blob, current If-Match", b.delete({ conditions: { ifMatch: before.etag } }));
      expectTrue("the blob is gone after the permitted Delete Blob", !(await b.exists()));
    },
  },
};

defineTable({ table: "T2 Blob operations", service: "blob" }, blobOpRows(TESTS));

defineMatrix({
  key: "T2",
  title: "Blob operations",
  source: "seed article, table of blob operations",
  order: 20,
  columns: [
    { key: "etag", header: "Returns ETag value" },
    { key: "conditional", header: "Accepts conditional headers" },
  ],
  rows: BLOB_OPS.map((op) => ({
    label: op.operation,
    cells: {
      etag: { claim: op.etag ? "Yes" : "No", id: `${BLOB_OPS_PREFIX}${op.slug}/etag` },
      conditional: { claim: op.conditionalClaim ?? (op.conditional ? "Yes" : "No"), id: `${BLOB_OPS_PREFIX}${op.slug}/conditional` },
    },
  })),
});
