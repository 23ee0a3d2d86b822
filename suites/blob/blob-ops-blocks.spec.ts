// T2 Blob operations, block and page rows: Put Block, Put Block List, Get Block
// List, Put Page, Get Page Ranges. Claims in BLOB_OPS (blob-kit.ts).
import type { BlockBlobClient, PageBlobClient } from "@azure/storage-blob";
import { expectChanged, expectEqual, expectEtag, expectNoEtag, expectTrue } from "../../fixtures/assert.ts";
import { defineTable } from "../../fixtures/registry.ts";
import {
  blobOpRows,
  blobPath,
  conditionalNotEvaluated,
  newBlockBlob,
  newPageBlob,
  notEvaluatedResponse,
  readHonoursConditions,
  snapshotOf,
  STALE_ETAG,
  writeHonoursIfMatch,
  type BlobOpTests,
} from "./blob-kit.ts";

/** A block ID (base64 of a fixed-length label, so every ID of a blob has the same length). */
const blockId = (label: string) => Buffer.from(label.padEnd(8, "-")).toString("base64");

async function uncommitted(b: BlockBlobClient): Promise<string[]> {
  return ((await b.getBlockList("uncommitted")).uncommittedBlocks ?? []).map((x) => x.name);
}

function putBlockRaw(b: BlockBlobClient, id: string, body: string) {
  return { method: "PUT", path: blobPath(b), query: { comp: "block", blockid: id }, body };
}

const PAGE = Buffer.alloc(512, "p");

async function pageState(b: PageBlobClient) {
  const p = await b.getProperties();
  const head = (await b.downloadToBuffer(0, 512)).subarray(0, 16).toString("latin1").replace(/\0/g, ".");
  return { etag: p.etag!, firstBytes: head };
}

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
    async conditional(t) {
      const b = await newBlockBlob(t);
      const current = (await b.getProperties()).etag!;
      for (const [header, value, label] of [
        ["If-Match", STALE_ETAG, "ifmatch"],
        ["If-None-Match", current, "ifnone"],
      ] as const) {
        const id = blockId(label);
        const outcome = await conditionalNotEvaluated(t, "Put Block", putBlockRaw(b, id, "staged"), header, value);
        // Ignored means the block was staged; rejected means it was not.
        expectEqual(`Put Block with a failing ${header} (${outcome}): block staged`, (await uncommitted(b)).includes(id), outcome === "ignored");
      }
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
    async conditional(t) {
      const b = await newBlockBlob(t);
      await b.stageBlock(blockId("a"), "committed", 9);
      await writeHonoursIfMatch(t, "Put Block List", {
        read: () => snapshotOf(b),
        write: (ifMatch) => b.commitBlockList([blockId("a")], { conditions: { ifMatch } }),
        applied: (after) => expectEqual("content after the permitted Put Block List", after.content, "committed"),
      });
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
    async conditional(t) {
      const b = await newBlockBlob(t);
      await b.stageBlock(blockId("a"), "one", 3);
      await b.commitBlockList([blockId("a")]);
      const current = (await b.getProperties()).etag!;
      const req = { method: "GET", path: blobPath(b), query: { comp: "blocklist", blocklisttype: "committed" } };
      for (const [header, value] of [
        ["If-Match", STALE_ETAG],
        ["If-None-Match", current],
      ] as const) {
        const { outcome, res } = await notEvaluatedResponse(t, "Get Block List", req, header, value);
        if (outcome === "ignored") {
          expectTrue(`Get Block List with a failing ${header} (ignored) lists the committed block`, res.body.includes(blockId("a")));
        }
      }
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
    async conditional(t) {
      const b = await newPageBlob(t);
      await writeHonoursIfMatch(t, "Put Page", {
        read: () => pageState(b),
        write: (ifMatch) => b.uploadPages(PAGE, 0, PAGE.length, { conditions: { ifMatch } }),
        applied: (after) => expectEqual("first bytes after the permitted Put Page", after.firstBytes, "pppppppppppppppp"),
      });
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
    async conditional(t) {
      const b = await newPageBlob(t);
      const etag = (await b.uploadPages(PAGE, 0, PAGE.length)).etag!;
      await readHonoursConditions(t, "Get Page Ranges", {
        etag,
        read: (conditions) => b.getPageRanges(0, 1024, { conditions }),
        check: (res) =>
          expectEqual(
            "page ranges with the current If-Match",
            // The SDK reports ranges as offset and count (end − start).
            ((res as { pageRange?: { offset: number; count?: number }[] }).pageRange ?? []).map((r) => [r.offset, r.count]),
            [[0, 511]],
          ),
      });
    },
  },
};

defineTable({ table: "T2 Blob operations", service: "blob" }, blobOpRows(TESTS));
