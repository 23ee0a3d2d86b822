// T2 Blob operations, Lease Blob: the table row's ETag cell and the
// table's footnote that lease operations leave the blob's ETag alone.
import { randomUUID } from "node:crypto";
import type { BlockBlobClient } from "@azure/storage-blob";
import { expectChanged, expectEqual, expectEtag, expectSucceeds, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { blobOpRows, blobSource, expectUnchanged, newBlockBlob, type BlobOpTests } from "./blob-kit.ts";

const TESTS: Record<string, BlobOpTests> = {
  "lease-blob": {
    async etag(t) {
      const b = await newBlockBlob(t);
      const lease = b.getBlobLeaseClient(randomUUID());
      const acquired = await lease.acquireLease(15);
      const etag = expectEtag("Lease Blob (acquire)", acquired.etag);
      expectEqual("Lease Blob ETag = the blob's ETag", etag, (await b.getProperties()).etag);
      // After the blob changes, the next lease operation reports the new ETag.
      const put = await b.upload("rewritten", 9, { conditions: { leaseId: lease.leaseId } });
      const renewed = await lease.renewLease();
      expectChanged("Lease Blob (renew) after the blob changed", etag, renewed.etag);
      expectEqual("Lease Blob (renew) ETag = Put Blob's ETag", renewed.etag, put.etag);
    },
  },
};

/**
 * Runs every lease action on one blob (acquire, renew, change, release,
 * acquire again, break) and hands the blob's state before and after each to `check`.
 */
async function leaseActions(
  t: RowContext,
  check: (
    action: string,
    before: { etag: string; lastModified: Date },
    after: { etag: string; lastModified: Date },
    responseEtag: string | undefined,
  ) => void,
): Promise<void> {
  const b: BlockBlobClient = await newBlockBlob(t);
  const state = async () => {
    const p = await b.getProperties();
    return { etag: p.etag!, lastModified: p.lastModified! };
  };
  const before = await state();
  // Last-Modified has one-second granularity: let a second pass so a change could show.
  await t.sleep(1100);
  const lease = b.getBlobLeaseClient(randomUUID());
  const actions: [string, () => Promise<{ etag?: string }>][] = [
    ["acquire", () => lease.acquireLease(15)],
    ["renew", () => lease.renewLease()],
    ["change", () => lease.changeLease(randomUUID())],
    ["release", () => lease.releaseLease()],
    ["acquire again", () => lease.acquireLease(15)],
    ["break", () => lease.breakLease(0)],
  ];
  for (const [action, run] of actions) {
    t.step(`Lease Blob ${action}`);
    const res = await expectSucceeds(`Lease Blob ${action}`, run());
    check(action, before, await state(), res.etag);
  }
  expectEqual("lease state at the end", (await b.getProperties()).leaseState, "broken");
}

const extra: RowDef[] = [
  {
    id: "blob/blob-ops/lease-blob/etag-unchanged",
    title: "Acquiring, renewing, changing, releasing and breaking a lease do not change the blob's ETag",
    level: "doc",
    source: blobSource("Lease Blob (the table's footnote: lease operations do not change the ETag)"),
    service: "blob",
    async run(t) {
      await leaseActions(t, (action, before, after, responseEtag) => {
        expectTrue(`the blob's ETag changed after Lease Blob ${action}`, after.etag === before.etag);
        if (responseEtag !== undefined)
          expectTrue(`Lease Blob ${action} answered with an ETag other than the blob's`, responseEtag === before.etag);
      });
    },
  },
  {
    id: "blob/blob-ops/lease-blob/last-modified-unchanged",
    title: "Lease operations do not change the blob's Last-Modified either",
    level: "rest",
    source: blobSource("Lease Blob: lease operations do not update Last-Modified"),
    service: "blob",
    async run(t) {
      await leaseActions(t, (action, before, after) => {
        expectUnchanged(
          `Last-Modified after Lease Blob ${action}`,
          { lastModified: before.lastModified },
          { lastModified: after.lastModified },
        );
      });
    },
  },
];

defineTable({ table: "T2 Blob operations", service: "blob" }, [...blobOpRows(TESTS), ...extra]);
