// X-N Snapshots: a snapshot's validators, its immutability, its lease (none,
// and none to take), and Delete Blob's rule for a base that has snapshots.
import type { BlobClient, BlockBlobClient, ContainerClient } from "@azure/storage-blob";
import { expectDate, expectEqual, expectRawStatus, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext } from "../../fixtures/harness/engine.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { expectUnchanged, newBlockBlob } from "./blob-kit.ts";
import { blobState, secondLater } from "./conditional-kit.ts";
import { LEASE_ID } from "./operations.ts";
import { expectOk, refOf, restRow, sendRaw, type BlobRef } from "./rest-kit.ts";

const SNAPSHOT = "Snapshot Blob";

/** Snapshot Blob, raw; the answer's snapshot time, ETag and Last-Modified. */
async function snapshot(t: RowContext, ref: BlobRef, what = "Snapshot Blob", headers: Record<string, string> = {}) {
  const res = await sendRaw(t, what, ref, { method: "PUT", query: { comp: "snapshot" }, headers });
  expectOk(what, res, 201);
  const time = res.headers["x-ms-snapshot"];
  expectTrue(`${what}: no x-ms-snapshot in the answer`, !!time);
  return { time, etag: res.headers["etag"], lastModified: res.headers["last-modified"] };
}

/** Get Blob on the snapshot, raw. */
const readSnapshot = (t: RowContext, ref: BlobRef, time: string, headers: Record<string, string> = {}) =>
  sendRaw(t, "Get Blob on the snapshot", ref, { method: "GET", query: { snapshot: time }, headers });

async function base(t: RowContext): Promise<{ c: ContainerClient; b: BlockBlobClient; ref: BlobRef }> {
  const c = await t.newContainer();
  const b = await newBlockBlob(t, "original", c);
  return { c, b, ref: refOf(c, b.name) };
}

/** The base as it reads back, without its snapshot count (the rows compare the snapshots by listing). */
async function baseState(c: ContainerClient, b: BlobClient) {
  const { snapshots: _, ...rest } = await blobState(b, c, "block-blob");
  return rest;
}

/** The base's snapshots, by listing (List Blobs, include=snapshots). */
async function snapshotsOf(c: ContainerClient, b: BlobClient): Promise<string[]> {
  const out: string[] = [];
  for await (const item of c.listBlobsFlat({ prefix: b.name, includeSnapshots: true }))
    if (item.name === b.name && item.snapshot) out.push(item.snapshot);
  return out.sort();
}

const rows = [
  restRow(
    "blob/snapshot/etag-equals-base",
    "Snapshot Blob without metadata answers the base's ETag and Last-Modified, which Get Blob on ?snapshot= returns; the base unchanged",
    SNAPSHOT,
    async (t) => {
      const { c, b, ref } = await base(t);
      const before = await baseState(c, b);
      const snap = await snapshot(t, ref);
      expectTrue("Snapshot Blob: the answer's ETag is not the base's", snap.etag === before.etag);
      expectEqual("Snapshot Blob: the answer's Last-Modified", snap.lastModified, before.lastModified);
      const read = await readSnapshot(t, ref, snap.time);
      expectRawStatus("Get Blob on the snapshot", read, { status: 200 });
      expectTrue("Get Blob on the snapshot: its ETag is not the one Snapshot Blob answered", read.headers["etag"] === snap.etag);
      expectEqual("Get Blob on the snapshot: Last-Modified", read.headers["last-modified"], snap.lastModified);
      expectUnchanged("the base after Snapshot Blob", before, await baseState(c, b));
    },
  ),
  restRow(
    "blob/snapshot/etag-with-metadata",
    "Snapshot Blob with metadata, a second after the base's last write: the snapshot's ETag and Last-Modified differ from the base's (neither earlier); its metadata is the metadata sent; the base unchanged",
    SNAPSHOT,
    async (t) => {
      const { c, b, ref } = await base(t);
      const before = await baseState(c, b);
      await secondLater(t, async () => (await b.getProperties()).date, before.lastModified);
      const snap = await snapshot(t, ref, "Snapshot Blob with x-ms-meta-snapshot", { "x-ms-meta-snapshot": "taken" });
      expectTrue("Snapshot Blob with metadata: the snapshot has the base's ETag", snap.etag !== before.etag, {
        expected: "an ETag of its own",
        got: "the base's ETag",
      });
      // The page says the validators "differ"; a snapshot taken after the base's last write cannot predate it.
      const [taken, baseAt] = [
        expectDate("Snapshot Blob with metadata: the answer's Last-Modified", snap.lastModified),
        expectDate("the base's Last-Modified", before.lastModified),
      ];
      expectTrue("Snapshot Blob with metadata: the snapshot has the base's Last-Modified", taken !== baseAt, {
        expected: "a Last-Modified of its own",
        got: "the base's Last-Modified",
      });
      expectTrue("Snapshot Blob with metadata: the snapshot's Last-Modified is earlier than the base's", taken > baseAt, {
        expected: "a Last-Modified not earlier than the base's",
        got: "earlier",
      });
      const read = await readSnapshot(t, ref, snap.time);
      expectRawStatus("Get Blob on the snapshot", read, { status: 200 });
      expectEqual(
        "the snapshot's metadata",
        { state: read.headers["x-ms-meta-state"], snapshot: read.headers["x-ms-meta-snapshot"] },
        { state: undefined, snapshot: "taken" },
      );
      expectUnchanged("the base after Snapshot Blob", before, await baseState(c, b));
    },
  ),
  restRow(
    "blob/snapshot/immutable",
    "After the base is rewritten, the snapshot returns the old content and its ETag; If-Match with that ETag holds on the snapshot and fails on the base (412, the base unchanged)",
    SNAPSHOT,
    async (t) => {
      const { c, b, ref } = await base(t);
      const snap = await snapshot(t, ref);
      t.step("rewrite the base");
      await b.upload("rewritten", 9);
      const rewritten = await baseState(c, b);
      const read = await readSnapshot(t, ref, snap.time, { "if-match": snap.etag });
      expectRawStatus("Get Blob on the snapshot, If-Match: the snapshot's ETag", read, { status: 200 });
      expectEqual("the snapshot's content after the base was rewritten", read.body, "original");
      expectTrue(
        "the snapshot's ETag after the base was rewritten is not the one Snapshot Blob answered",
        read.headers["etag"] === snap.etag,
      );
      const what = "Set Blob Metadata on the base, If-Match: the snapshot's ETag";
      expectRawStatus(
        what,
        await sendRaw(t, what, ref, {
          method: "PUT",
          query: { comp: "metadata" },
          headers: { "if-match": snap.etag, "x-ms-meta-state": "refused" },
        }),
        { status: 412, code: "ConditionNotMet" },
      );
      expectUnchanged("the base after the refused write", rewritten, await baseState(c, b));
    },
  ),
  restRow(
    "blob/snapshot/no-lease-copied",
    "A snapshot of a leased base is not leased (available/unlocked, or no lease headers); the base stays leased by the same holder",
    `${SNAPSHOT}; Lease Blob`,
    async (t) => {
      const { b, ref } = await base(t);
      await b.getBlobLeaseClient(LEASE_ID).acquireLease(-1);
      const snap = await snapshot(t, ref);
      const read = await sendRaw(t, "Get Blob Properties on the snapshot", ref, { method: "HEAD", query: { snapshot: snap.time } });
      expectRawStatus("Get Blob Properties on the snapshot", read, { status: 200 });
      const [state, status] = [read.headers["x-ms-lease-state"], read.headers["x-ms-lease-status"]];
      t.note("snapshot lease headers", { state: state ?? null, status: status ?? null });
      expectTrue(
        `the snapshot's lease: ${state ?? "none"}/${status ?? "none"}, expected available/unlocked or none`,
        (state === undefined && status === undefined) || (state === "available" && status === "unlocked"),
      );
      t.step("the holder renews the base's lease");
      const renew = await sendRaw(t, "Lease Blob (renew) on the base with the holder's ID", ref, {
        method: "PUT",
        query: { comp: "lease" },
        headers: { "x-ms-lease-action": "renew", "x-ms-lease-id": LEASE_ID },
      });
      expectOk("Lease Blob (renew) on the base with the holder's ID", renew, 200);
      expectEqual("the base's lease state", (await b.getProperties()).leaseState, "leased");
    },
  ),
  restRow(
    "blob/snapshot/lease-refused",
    "Lease Blob (acquire) on ?snapshot= → 400 (code recorded); the snapshot reads back unleased and the base unchanged",
    `${SNAPSHOT}; Lease Blob`,
    async (t) => {
      const { c, b, ref } = await base(t);
      const snap = await snapshot(t, ref);
      const before = await baseState(c, b);
      const what = "Lease Blob (acquire) on the snapshot";
      const res = await sendRaw(t, what, ref, {
        method: "PUT",
        query: { comp: "lease", snapshot: snap.time },
        headers: { "x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1", "x-ms-proposed-lease-id": LEASE_ID },
      });
      expectRawStatus(what, res, { status: 400 });
      t.note("code", res.errorCode ?? null);
      const read = await sendRaw(t, "Get Blob Properties on the snapshot", ref, { method: "HEAD", query: { snapshot: snap.time } });
      expectTrue(
        "the snapshot reads back leased",
        read.headers["x-ms-lease-state"] === undefined || read.headers["x-ms-lease-state"] === "available",
      );
      expectUnchanged("the base after the refused lease", before, await baseState(c, b));
    },
  ),
  restRow(
    "blob/snapshot/delete-base-needs-option",
    "Delete Blob on a base with snapshots: without x-ms-delete-snapshots → 409 SnapshotsPresent, all read back; with only → 202, the snapshots gone and the base unchanged; with include → all gone",
    "Delete Blob (x-ms-delete-snapshots)",
    async (t) => {
      const { c, b, ref } = await base(t);
      const taken = [
        (await snapshot(t, ref, "Snapshot Blob (first)")).time,
        (await snapshot(t, ref, "Snapshot Blob (second)")).time,
      ].sort();
      const before = await baseState(c, b);
      const del = (what: string, option?: string) =>
        sendRaw(t, what, ref, { method: "DELETE", headers: option ? { "x-ms-delete-snapshots": option } : {} });
      expectRawStatus("Delete Blob without x-ms-delete-snapshots", await del("Delete Blob without x-ms-delete-snapshots"), {
        status: 409,
        code: "SnapshotsPresent",
      });
      expectEqual("the snapshots after the refused delete", await snapshotsOf(c, b), taken);
      expectUnchanged("the base after the refused delete", before, await baseState(c, b));
      expectOk("Delete Blob, x-ms-delete-snapshots: only", await del("Delete Blob, x-ms-delete-snapshots: only", "only"), 202);
      expectEqual("the snapshots after Delete Blob (only)", await snapshotsOf(c, b), []);
      expectUnchanged("the base after Delete Blob (only)", before, await baseState(c, b));
      await snapshot(t, ref, "Snapshot Blob (third)");
      expectOk("Delete Blob, x-ms-delete-snapshots: include", await del("Delete Blob, x-ms-delete-snapshots: include", "include"), 202);
      expectEqual("the snapshots after Delete Blob (include)", await snapshotsOf(c, b), []);
      expectTrue("the base exists after Delete Blob (include)", !(await b.exists()));
    },
  ),
];

defineTable({ table: "X-N Snapshots", service: "blob" }, rows);
