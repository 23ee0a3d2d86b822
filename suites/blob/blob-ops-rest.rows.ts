// T2 Blob operations, `rest` details from "Specifying Conditional Headers for
// Blob Service Operations" and the operation pages: If-None-Match: * over an
// existing blob, If-Match where no blob exists, Put Block leaving the blob
// alone, Get Block List's ETag. Each is its own ID beneath its T2 row.
import type { BlockBlobClient } from "@azure/storage-blob";
import { expectEqual, expectEtag, expectNoEtag, expectRawStatus, expectRefused, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { downloadAll, blobPath, blobSource, expectUnchanged, newBlockBlob, snapshotOf } from "./blob-kit.ts";

const CONDITIONAL_HEADERS = "Specifying Conditional Headers for Blob Service Operations";
const blockId = (label: string) => Buffer.from(label.padEnd(8, "-")).toString("base64");

/** A blob client for a name nothing has been written to. */
async function missingBlob(t: RowContext): Promise<BlockBlobClient> {
  return (await t.newContainer()).getBlockBlobClient(t.name("b"));
}

/**
 * A missing blob, and an ETag the service issued to another blob beside it: a
 * well-formed condition, so the answer is about the blob's absence, not the value.
 */
async function missingBlobAndIssuedEtag(t: RowContext): Promise<{ b: BlockBlobClient; etag: string }> {
  const other = await newBlockBlob(t);
  const etag = (await other.getProperties()).etag!;
  return { b: t.blob.getContainerClient(other.containerName).getBlockBlobClient(t.name("b")), etag };
}

function row(id: string, title: string, rest: string, run: (t: RowContext) => Promise<void>): RowDef {
  return { id, title, level: "rest", source: blobSource(rest), service: "blob", run };
}

const rows: RowDef[] = [
  row(
    "blob/blob-ops/put-blob/if-none-match-star",
    "Put Blob with If-None-Match: * over an existing blob → 409 BlobAlreadyExists, the blob unchanged",
    `Put Blob; ${CONDITIONAL_HEADERS}`,
    async (t) => {
      const b = await newBlockBlob(t);
      const before = await snapshotOf(b);
      t.step("Put Blob with If-None-Match: *");
      await expectRefused(
        "Put Blob, If-None-Match: * over an existing blob",
        b.upload("rewritten", 9, { conditions: { ifNoneMatch: "*" }, metadata: { state: "rewritten" } }),
        { status: 409, code: "BlobAlreadyExists" },
      );
      expectUnchanged("the blob after the refused Put Blob", before, await snapshotOf(b));
    },
  ),
  row(
    "blob/blob-ops/put-block-list/if-none-match-star",
    "Put Block List with If-None-Match: * over an existing blob → 409 BlobAlreadyExists, the blob unchanged",
    `Put Block List; ${CONDITIONAL_HEADERS}`,
    async (t) => {
      const b = await newBlockBlob(t);
      await b.stageBlock(blockId("a"), "committed", 9);
      const before = await snapshotOf(b);
      t.step("Put Block List with If-None-Match: *");
      await expectRefused(
        "Put Block List, If-None-Match: * over an existing blob",
        b.commitBlockList([blockId("a")], { conditions: { ifNoneMatch: "*" } }),
        { status: 409, code: "BlobAlreadyExists" },
      );
      expectUnchanged("the blob after the refused Put Block List", before, await snapshotOf(b));
    },
  ),
  row(
    "blob/blob-ops/put-blob/if-match-missing-blob",
    "Put Blob with If-Match (an ETag) where no blob exists → 412 ConditionNotMet, no blob created",
    `Put Blob; ${CONDITIONAL_HEADERS}`,
    async (t) => {
      const { b, etag } = await missingBlobAndIssuedEtag(t);
      t.step("Put Blob with If-Match: an ETag, no blob");
      await expectRefused("Put Blob, If-Match: an ETag where no blob exists", b.upload("created", 7, { conditions: { ifMatch: etag } }), {
        status: 412,
        code: "ConditionNotMet",
      });
      expectTrue("no blob exists after the refused Put Blob", !(await b.exists()));
    },
  ),
  row(
    "blob/blob-ops/put-blob/if-match-star-missing-blob",
    "Put Blob with If-Match: * where no blob exists → 412 ConditionNotMet, no blob created",
    `Put Blob; ${CONDITIONAL_HEADERS}`,
    async (t) => {
      const b = await missingBlob(t);
      t.step("Put Blob with If-Match: *, no blob");
      await expectRefused("Put Blob, If-Match: * where no blob exists", b.upload("created", 7, { conditions: { ifMatch: "*" } }), {
        status: 412,
        code: "ConditionNotMet",
      });
      expectTrue("no blob exists after the refused Put Blob", !(await b.exists()));
    },
  ),
  row(
    "blob/blob-ops/get-blob/if-match-missing-blob",
    "Get Blob with If-Match on a missing blob → 404 BlobNotFound",
    `Get Blob; ${CONDITIONAL_HEADERS}`,
    async (t) => {
      const { b, etag } = await missingBlobAndIssuedEtag(t);
      for (const ifMatch of [etag, "*"]) {
        t.step(`Get Blob with If-Match: ${ifMatch === "*" ? "*" : "an ETag"}`);
        await expectRefused(
          `Get Blob, If-Match: ${ifMatch === "*" ? "*" : "an ETag"} on a missing blob`,
          b.download(0, undefined, { conditions: { ifMatch } }),
          { status: 404, code: "BlobNotFound" },
        );
      }
    },
  ),
  row(
    "blob/blob-ops/get-blob-properties/if-match-missing-blob",
    "Get Blob Properties with If-Match on a missing blob → 404 BlobNotFound",
    `Get Blob Properties; ${CONDITIONAL_HEADERS}`,
    async (t) => {
      const { b, etag } = await missingBlobAndIssuedEtag(t);
      for (const ifMatch of [etag, "*"]) {
        t.step(`Get Blob Properties with If-Match: ${ifMatch === "*" ? "*" : "an ETag"}`);
        await expectRefused(
          `Get Blob Properties, If-Match: ${ifMatch === "*" ? "*" : "an ETag"} on a missing blob`,
          b.getProperties({ conditions: { ifMatch } }),
          { status: 404, code: "BlobNotFound" },
        );
      }
    },
  ),
  row(
    "blob/blob-ops/put-block/leaves-etag",
    "Put Block leaves the blob's ETag and Last-Modified unchanged",
    "Put Block (uncommitted blocks are not part of the blob)",
    async (t) => {
      const b = await newBlockBlob(t);
      const props = async () => {
        const p = await b.getProperties();
        return { etag: p.etag!, lastModified: p.lastModified!, content: (await downloadAll(b)).toString("utf8") };
      };
      const before = await props();
      // Last-Modified has one-second granularity: let a second pass so a change could show.
      await t.sleep(1100);
      t.step("Put Block");
      await b.stageBlock(blockId("a"), "staged", 6);
      expectUnchanged("the blob after Put Block", before, await props());
    },
  ),
  row(
    "blob/blob-ops/get-block-list/etag-after-commit",
    "Get Block List returns an ETag only once the blob has committed blocks",
    "Get Block List (ETag: returned only if the blob has committed blocks)",
    async (t) => {
      const b = await missingBlob(t);
      const list = () => t.raw("blob", { method: "GET", path: blobPath(b), query: { comp: "blocklist", blocklisttype: "all" } });
      await b.stageBlock(blockId("a"), "staged", 6);
      t.step("Get Block List with only uncommitted blocks");
      const uncommitted = await list();
      expectRawStatus("Get Block List with only uncommitted blocks", uncommitted, { status: 200 });
      expectTrue("Get Block List lists the uncommitted block", uncommitted.body.includes(blockId("a")));
      expectNoEtag("Get Block List with only uncommitted blocks", uncommitted.headers["etag"]);
      const commit = await b.commitBlockList([blockId("a")]);
      t.step("Get Block List after Put Block List");
      const committed = await list();
      expectRawStatus("Get Block List after Put Block List", committed, { status: 200 });
      expectEqual(
        "Get Block List ETag after Put Block List = Put Block List's ETag",
        expectEtag("Get Block List after Put Block List", committed.headers["etag"]),
        commit.etag,
      );
    },
  ),
];

defineTable({ table: "T2 Blob operations", service: "blob" }, rows);
