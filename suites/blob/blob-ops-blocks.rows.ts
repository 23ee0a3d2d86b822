// T2 Blob operations, block and page rows: Put Block, Put Block List, Get Block
// List, Put Page, Get Page Ranges. Claims in BLOB_OPS (blob-kit.ts).
import type { BlockBlobClient } from "@azure/storage-blob";
import { expectChanged, expectEqual, expectEtag, expectNoEtag } from "../../fixtures/harness/assert.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { blobOpRows, blobPath, newBlockBlob, newPageBlob, type BlobOpTests } from "./blob-kit.ts";

/** A block ID (base64 of a fixed-length label, so every ID of a blob has the same length). */
const blockId = (label: string) => Buffer.from(label.padEnd(8, "-")).toString("base64");

async function uncommitted(b: BlockBlobClient): Promise<string[]> {
  return ((await b.getBlockList("uncommitted")).uncommittedBlocks ?? []).map((x) => x.name);
}

function putBlockRaw(b: BlockBlobClient, id: string, body: string) {
  return { method: "PUT", path: blobPath(b), query: { comp: "block", blockid: id }, body };
}

const PAGE = Buffer.alloc(512, "p");

const TESTS: Record<string, BlobOpTests> = {
  "put-block": {
    async etag(t) {
      const b = await newBlockBlob(t);
      const id = blockId("etag");
      const res = await t.raw("blob", putBlockRaw(b, id, "staged"));
      expectEqual("Put Block status", res.status, 201);
      expectNoEtag("Put Block", res.headers["etag"]);
      expectEqual("uncommitted blocks after Put Block", await uncommitted(b), [id]);
    },
  },
  "put-block-list": {
    async etag(t) {
      const b = await newBlockBlob(t);
      const before = (await b.getProperties()).etag;
      await b.stageBlock(blockId("a"), "committed", 9);
      const res = await b.commitBlockList([blockId("a")]);
      const etag = expectEtag("Put Block List", res.etag);
      expectChanged("Put Block List over an existing blob", before, etag);
      expectEqual("ETag read after Put Block List", (await b.getProperties()).etag, etag);
    },
  },
  "get-block-list": {
    async etag(t) {
      const b = await newBlockBlob(t);
      await b.stageBlock(blockId("a"), "one", 3);
      const first = await b.commitBlockList([blockId("a")]);
      const res = await b.getBlockList("committed");
      const etag = expectEtag("Get Block List", res.etag);
      expectEqual("Get Block List ETag = Put Block List's ETag", etag, first.etag);
      await b.stageBlock(blockId("b"), "two", 3);
      const second = await b.commitBlockList([blockId("a"), blockId("b")]);
      const again = await b.getBlockList("committed");
      expectChanged("Get Block List after another Put Block List", etag, again.etag);
      expectEqual("Get Block List ETag = the second Put Block List's ETag", again.etag, second.etag);
    },
  },
  "put-page": {
    async etag(t) {
      const b = await newPageBlob(t);
      const before = (await b.getProperties()).etag;
      const res = await b.uploadPages(PAGE, 0, PAGE.length);
      const etag = expectEtag("Put Page", res.etag);
      expectChanged("Put Page", before, etag);
      expectEqual("ETag read after Put Page", (await b.getProperties()).etag, etag);
    },
  },
  "get-page-ranges": {
    async etag(t) {
      const b = await newPageBlob(t);
      const res = await b.getPageRanges(0, 1024);
      const etag = expectEtag("Get Page Ranges", res.etag);
      expectEqual("Get Page Ranges ETag = Get Blob Properties ETag", etag, (await b.getProperties()).etag);
      const put = await b.uploadPages(PAGE, 0, PAGE.length);
      const again = await b.getPageRanges(0, 1024);
      expectChanged("Get Page Ranges after Put Page", etag, again.etag);
      expectEqual("Get Page Ranges ETag = Put Page's ETag", again.etag, put.etag);
    },
  },
};

defineTable({ table: "T2 Blob operations", service: "blob" }, blobOpRows(TESTS));
