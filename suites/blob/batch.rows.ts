// X-B Blob Batch: one POST ?comp=batch carries Delete Blob and Set Blob Tier
// sub-requests (the SDK builds and signs each); the batch answers 202 and
// each sub-request is judged on its own: its conditions, its lease, and no
// atomicity across the batch.
import { BlobBatch, type BlobClient, type ContainerClient } from "@azure/storage-blob";
import { expectEqual, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext } from "../../fixtures/harness/engine.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { notAvailable } from "../../fixtures/wire/signals.ts";
import { expectUnchanged, newBlockBlob } from "./blob-kit.ts";
import { blobState } from "./conditional-kit.ts";
import { LEASE_ID } from "./operations.ts";
import { restRow } from "./rest-kit.ts";

const BATCH = "Blob Batch";

interface SubAnswer {
  status: number;
  code?: string;
}

/**
 * Submits a batch: the batch must answer 202; returns each sub-request's
 * answer in the order the sub-requests were added (the sub-responses carry
 * the request they answer). They go into the result's notes too: the
 * multipart body is not in the evidence.
 */
async function submit(t: RowContext, what: string, build: (batch: BlobBatch) => Promise<void>): Promise<SubAnswer[]> {
  const batch = new BlobBatch();
  await build(batch);
  t.step(what);
  const res = await t.blob.getBlobBatchClient().submitBatch(batch);
  expectEqual(`${what}: the batch's status`, res._response.status, 202);
  const answers = [...batch.getSubRequests().values()].map((req): SubAnswer => {
    const r = res.subResponses.find((s) => s._request === req);
    return r ? { status: r.status, code: r.errorCode } : { status: 0, code: "no sub-response" };
  });
  t.note(
    what,
    answers.map((a) => `${a.status}${a.code ? " " + a.code : ""}`),
  );
  return answers;
}

function expectSub(what: string, got: SubAnswer, status: number, code?: string): void {
  const [wanted, came] = [`${status}${code ? " " + code : ""}`, `${got.status}${got.code ? " " + got.code : ""}`];
  expectTrue(`${what}: expected ${wanted}, got ${came}`, got.status === status && (code === undefined || got.code === code), {
    expected: wanted,
    got: came,
  });
}

/** Three blobs; the first's ETag is stale: another writer set its metadata after this client read it. */
async function threeBlobs(t: RowContext): Promise<{ c: ContainerClient; blobs: BlobClient[]; stale: string }> {
  const c = await t.newContainer();
  const blobs: BlobClient[] = [await newBlockBlob(t, "first", c), await newBlockBlob(t, "second", c), await newBlockBlob(t, "third", c)];
  const stale = (await blobs[0].getProperties()).etag!;
  t.step("another writer sets the first blob's metadata");
  await t.clients.blob().getContainerClient(c.containerName).getBlobClient(blobs[0].name).setMetadata({ state: "other writer" });
  return { c, blobs, stale };
}

/** The batch both rows on Delete Blob's If-Match send: the stale one first, then one unconditional, then one with the current ETag. */
async function mixedBatch(t: RowContext) {
  const { c, blobs, stale } = await threeBlobs(t);
  const before = await blobState(blobs[0], c, "block-blob");
  const current = (await blobs[2].getProperties()).etag!;
  const res = await submit(t, "Blob Batch: Delete Blob with a stale If-Match, unconditional, with the current ETag", async (batch) => {
    await batch.deleteBlob(blobs[0], { conditions: { ifMatch: stale } });
    await batch.deleteBlob(blobs[1]);
    await batch.deleteBlob(blobs[2], { conditions: { ifMatch: current } });
  });
  return { c, blobs, before, res };
}

const tierOf = async (b: BlobClient) => (await b.getProperties()).accessTier;

const rows = [
  restRow(
    "blob/batch/sub-if-match",
    "A Delete Blob sub-request with a stale If-Match gets its own 412 ConditionNotMet; the batch answers 202 and the blob reads back unchanged",
    BATCH,
    async (t) => {
      const { c, blobs, before, res } = await mixedBatch(t);
      expectSub("the sub-request with a stale If-Match", res[0], 412, "ConditionNotMet");
      expectUnchanged("the blob of the refused sub-request", before, await blobState(blobs[0], c, "block-blob"));
    },
  ),
  restRow(
    "blob/batch/not-atomic",
    "In the same batch the other Delete Blob sub-requests (unconditional, current ETag) → 202 and their blobs are gone; the refused one undoes nothing",
    BATCH,
    async (t) => {
      const { blobs, res } = await mixedBatch(t);
      expectSub("the unconditional sub-request", res[1], 202);
      expectSub("the sub-request with the current ETag", res[2], 202);
      t.step("read back");
      expectTrue("the blob of the unconditional sub-request exists", !(await blobs[1].exists()));
      expectTrue("the blob of the sub-request with the current ETag exists", !(await blobs[2].exists()));
    },
  ),
  restRow(
    "blob/batch/sub-lease",
    "A Delete Blob sub-request on a leased blob without the lease ID → 412 LeaseIdMissing, the blob stays; with the ID → 202, deleted",
    `${BATCH}; Delete Blob`,
    async (t) => {
      const c = await t.newContainer();
      const b = await newBlockBlob(t, "leased", c);
      await b.getBlobLeaseClient(LEASE_ID).acquireLease(-1);
      const before = await blobState(b, c, "block-blob");
      const without = await submit(t, "Blob Batch: Delete Blob without the lease ID", (batch) => batch.deleteBlob(b));
      expectSub("the sub-request without the lease ID", without[0], 412, "LeaseIdMissing");
      expectUnchanged("the leased blob after the refused sub-request", before, await blobState(b, c, "block-blob"));
      const withId = await submit(t, "Blob Batch: Delete Blob with the lease ID", (batch) =>
        batch.deleteBlob(b, { conditions: { leaseId: LEASE_ID } }),
      );
      expectSub("the sub-request with the lease ID", withId[0], 202);
      expectTrue("the blob exists after the sub-request with the lease ID", !(await b.exists()));
    },
  ),
  restRow(
    "blob/batch/sub-set-tier-if-tags",
    "A Set Blob Tier sub-request with a false x-ms-if-tags → 412 ConditionNotMet, the tier unchanged; a true one → 200, the tier set (no tiers: NOT_AVAILABLE)",
    `${BATCH}; Set Blob Tier`,
    async (t) => {
      const c = await t.newContainer();
      const b = await newBlockBlob(t, "tiered", c);
      await b.setTags({ state: "v1" });
      t.step("another writer replaces the tags");
      await t.clients.blob().getContainerClient(c.containerName).getBlobClient(b.name).setTags({ state: "v2" });
      const before = await tierOf(b);
      if (!before) notAvailable("the target shows no access tier (no x-ms-access-tier on Get Blob Properties): it has no tiers");
      const other = before === "Cool" ? "Hot" : "Cool";
      const failing = await submit(t, "Blob Batch: Set Blob Tier with a false x-ms-if-tags", (batch) =>
        batch.setBlobAccessTier(b, other, { conditions: { tagConditions: `"state" = 'v1'` } }),
      );
      expectSub("the Set Blob Tier sub-request with a false x-ms-if-tags", failing[0], 412, "ConditionNotMet");
      expectEqual("the tier after the refused sub-request", await tierOf(b), before);
      const holding = await submit(t, "Blob Batch: Set Blob Tier with a true x-ms-if-tags", (batch) =>
        batch.setBlobAccessTier(b, other, { conditions: { tagConditions: `"state" = 'v2'` } }),
      );
      expectSub("the Set Blob Tier sub-request with a true x-ms-if-tags", holding[0], 200);
      expectEqual("the tier after the permitted sub-request", await tierOf(b), other);
    },
  ),
];

defineTable({ table: "X-B Blob Batch", service: "blob" }, rows);
