// T1 Container operations: does each operation return an ETag? The claims are
// data (container-ops-claims.ts); this file holds the code that checks each
// row's ETag cell and the matrix section, whose conditional column is
// generated from the claims in conditional-claims.ts (conditional.rows.ts).
import type { ContainerClient } from "@azure/storage-blob";
import { expectChanged, expectEqual, expectEtag, expectNoEtag, expectPresent, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { defineMatrix, defineTable } from "../../fixtures/harness/registry.ts";
import { containerSource, secondBefore, STALE_ETAG } from "./blob-kit.ts";
import { CONTAINER_OPS, CONTAINER_OPS_PREFIX, containerOpAt } from "./container-ops-claims.ts";

const P = CONTAINER_OPS_PREFIX;
const path = (c: ContainerClient) => `/${c.containerName}`;

async function props(c: ContainerClient) {
  return c.getProperties();
}

/** Another write changes the container (a new ETag), so a read answering the one before it is caught. */
async function changed(c: ContainerClient): Promise<void> {
  await c.setMetadata({ changed: "yes" });
}

/** The code that checks each row's ETag cell, by slug (the claims: container-ops-claims.ts). */
const ETAG_TESTS: Record<string, (t: RowContext) => Promise<void>> = {
  "create-container": async (t) => {
    const c = t.blob.getContainerClient(t.name("c"));
    const res = await c.create();
    const etag = expectEtag("Create Container", res.etag);
    expectEqual("Get Container Properties ETag after create", (await props(c)).etag, etag);
  },
  "get-container-properties": async (t) => {
    const c = await t.newContainer();
    const created = (await c.getProperties()).etag;
    expectEtag("Get Container Properties", created);
    await c.setMetadata({ k: "v" });
    expectChanged("Get Container Properties after Set Container Metadata", created, (await props(c)).etag);
  },
  "get-container-metadata": async (t) => {
    const c = await t.newContainer();
    const created = (await props(c)).etag;
    await changed(c);
    const res = await t.raw("blob", { method: "GET", path: path(c), query: { restype: "container", comp: "metadata" } });
    expectEqual("Get Container Metadata status", res.status, 200);
    const etag = expectEtag("Get Container Metadata", res.headers["etag"]);
    expectChanged("Get Container Metadata after the container changed", created, etag);
    expectEqual("Get Container Metadata ETag = Get Container Properties ETag", etag, (await props(c)).etag);
  },
  "set-container-metadata": async (t) => {
    const c = await t.newContainer();
    const before = (await props(c)).etag;
    const res = await c.setMetadata({ k: "v" });
    const etag = expectEtag("Set Container Metadata", res.etag);
    expectChanged("Set Container Metadata", before, etag);
    expectEqual("ETag read after Set Container Metadata", (await props(c)).etag, etag);
  },
  "get-container-acl": async (t) => {
    const c = await t.newContainer();
    const created = (await props(c)).etag;
    await changed(c);
    const res = await c.getAccessPolicy();
    const etag = expectEtag("Get Container ACL", res.etag);
    expectChanged("Get Container ACL after the container changed", created, etag);
    expectEqual("Get Container ACL ETag = Get Container Properties ETag", etag, (await props(c)).etag);
  },
  "set-container-acl": async (t) => {
    const c = await t.newContainer();
    const before = (await props(c)).etag;
    const res = await c.setAccessPolicy(undefined, [{ id: "policy1", accessPolicy: { permissions: "r" } }]);
    const etag = expectEtag("Set Container ACL", res.etag);
    expectChanged("Set Container ACL", before, etag);
    expectEqual("ETag read after Set Container ACL", (await props(c)).etag, etag);
  },
  "delete-container": async (t) => {
    const c = await t.newContainer();
    const res = await t.raw("blob", { method: "DELETE", path: path(c), query: { restype: "container" } });
    expectEqual("Delete Container status", res.status, 202);
    expectNoEtag("Delete Container", res.headers["etag"]);
  },
  "lease-container": async (t) => {
    const c = await t.newContainer();
    const created = (await props(c)).etag;
    await changed(c);
    const res = await c.getBlobLeaseClient().acquireLease(15);
    expectChanged("Lease Container (acquire) after the container changed", created, res.etag);
    const etag = expectEtag("Lease Container (acquire)", res.etag);
    // The ETag answered is the container's: the one Get Container Properties reads next.
    expectEqual("Get Container Properties ETag after Lease Container", (await props(c)).etag, etag);
  },
  "list-blobs": async (t) => {
    const c = await t.newContainer();
    await c.getBlockBlobClient("listed").upload("x", 1);
    const res = await t.raw("blob", { method: "GET", path: path(c), query: { restype: "container", comp: "list" } });
    expectEqual("List Blobs status", res.status, 200);
    expectTrue("List Blobs lists the blob", res.body.includes("<Name>listed</Name>"));
    expectNoEtag("List Blobs", res.headers["etag"]);
  },
};

// The `<row>/conditional` cells are generated from the claims (conditional.rows.ts).
const rows: RowDef[] = CONTAINER_OPS.map((op) => ({
  id: `${P}${op.slug}/etag`,
  claim: containerOpAt(op.slug),
  title: `${op.operation} ${op.etag ? "returns an ETag" : "returns no ETag"}`,
  level: "doc" as const,
  source: containerSource(op.rest),
  service: "blob" as const,
  matrix: [{ section: "T1", row: op.operation, column: "etag", claim: op.etag ? "Yes" : "No" }],
  run: ETAG_TESTS[op.slug],
}));

rows.push({
  id: "blob/container-ops/set-container-acl/propagation",
  title: "Set Container ACL takes effect (observed delay recorded; informational, never fails on the delay)",
  level: "info",
  source: containerSource("Set Container ACL: changes may take up to 30 s"),
  service: "blob",
  async run(t) {
    const c = await t.newContainer();
    const start = Date.now();
    await c.setAccessPolicy(undefined, [{ id: "p", accessPolicy: { permissions: "r" } }]);
    const seen = await t.waitFor(
      "the new policy read back",
      async () => ((await c.getAccessPolicy()).signedIdentifiers.some((s) => s.id === "p") ? true : undefined),
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    t.note("observedDelayMs", Date.now() - start);
    expectTrue("the policy is eventually read back", seen);
  },
});

rows.push({
  id: "blob/container-ops/set-container-metadata/unsupported-headers",
  title: "Set Container Metadata with If-Match or If-Unmodified-Since (undocumented): record what the target does",
  level: "rest",
  source: containerSource("Set Container Metadata accepts If-Modified-Since only"),
  service: "blob",
  async run(t) {
    const c = await t.newContainer();
    const before = await props(c);
    for (const [header, value] of [
      ["If-Match", STALE_ETAG],
      [
        "If-Unmodified-Since",
        secondBefore(expectPresent("Get Container Properties: the answer's Last-Modified", before.lastModified)).toUTCString(),
      ],
    ] as const) {
      t.step(`failing ${header}`);
      const res = await t.raw("blob", {
        method: "PUT",
        path: path(c),
        query: { restype: "container", comp: "metadata" },
        headers: { [header]: value, "x-ms-meta-probe": header },
      });
      const changed = (await props(c)).metadata?.probe === header;
      t.note(header, { status: res.status, code: res.errorCode ?? null, applied: changed });
      // Whatever the target chooses, its answer and its state must agree.
      expectTrue(
        `Set Container Metadata with a failing ${header}: answered ${res.status} but the metadata was ${changed ? "" : "not "}written`,
        res.status >= 200 && res.status < 300 ? changed : !changed,
      );
    }
  },
});

defineTable({ table: "T1 Container operations", service: "blob" }, rows);

defineMatrix({
  key: "T1",
  title: "Container operations",
  source: "seed article, table of container operations",
  order: 10,
  columns: [
    { key: "etag", header: "Returns ETag value" },
    { key: "conditional", header: "Accepts conditional headers" },
  ],
  rowOrder: CONTAINER_OPS.map((op) => op.operation),
});
