// T2 Blob operations: does each operation return an ETag? The claims are data
// (BLOB_OPS in blob-kit.ts); this file holds the code for the basic blob
// operations and the matrix section, whose conditional column comes from
// conditional-claims.ts (rows: conditional.rows.ts). Leases,
// copies and blocks/pages are in blob-ops-lease/-copy/-blocks.rows.ts.
import { expectChanged, expectEqual, expectEtag, expectNoEtag, expectRawStatus, expectTrue } from "../../fixtures/harness/assert.ts";
import { defineMatrix, defineTable } from "../../fixtures/harness/registry.ts";
import { BLOB_OPS, blobOpRows, blobPath, newBlockBlob, type BlobOpTests } from "./blob-kit.ts";
import type { BlockBlobClient } from "@azure/storage-blob";
import type { RowContext } from "../../fixtures/harness/engine.ts";

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
  },
  "snapshot-blob": {
    async etag(t) {
      const b = await newBlockBlob(t);
      // The blob changes first, so a snapshot answering the ETag from before the change is caught.
      await b.setMetadata({ state: "changed" });
      const base = (await b.getProperties()).etag;
      const res = await b.createSnapshot();
      const etag = expectEtag("Snapshot Blob", res.etag);
      // The ETag returned is the snapshot's: reading the snapshot returns it.
      const snap = b.withSnapshot(res.snapshot!);
      expectEqual("ETag read from the snapshot", (await snap.getProperties()).etag, etag);
      t.note("snapshotEtagEqualsBase", etag === base);
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
  rowOrder: BLOB_OPS.map((op) => op.operation),
});
