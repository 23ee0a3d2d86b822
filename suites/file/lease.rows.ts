// F Files, Lease File (REST 2019-02-02+, newer than the seed article): infinite
// leases only; writes on a leased file need the lease ID (412 LeaseIdMissing
// without it, 412 LeaseIdMismatchWithFileOperation with another); reads need
// none; lease operations leave the ETag alone.
import { randomUUID } from "node:crypto";
import type { ShareFileClient } from "@azure/storage-file-share";
import { expectEqual, expectRawStatus, expectRefused, expectSent, expectSucceeds, expectTrue } from "../../fixtures/harness/assert.ts";
import { currentEvidence } from "../../fixtures/wire/evidence.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { claimAt } from "../../fixtures/harness/locations.ts";
import { surfaceOf } from "./surface/surface-claims.ts";
import {
  durable,
  FILE_REQUEST,
  fileCell,
  fileSource,
  fill,
  listNames,
  newFile,
  rawPath,
  readFile,
  SIZE,
  viaClient,
  type FileState,
} from "./file-kit.ts";
import { answer, claimOn, SUCCESS } from "../../fixtures/harness/claims.ts";

const P = "file/lease/";
const source = (rest: string) => fileSource(`Lease File; ${rest}`);

/** A file holding fill("o") with an infinite lease; returns the lease ID. */
async function leasedFile(t: RowContext): Promise<{ f: ShareFileClient; leaseId: string }> {
  const f = await newFile(t);
  const leaseId = randomUUID();
  t.step("acquire an infinite lease");
  const res = await f.getShareLeaseClient(leaseId).acquireLease(-1);
  expectEqual("lease ID returned by acquire", res.leaseId, leaseId);
  return { f, leaseId };
}

interface WriteOp {
  slug: "create" | "put-range" | "set-metadata" | "set-properties" | "delete";
  operation: string;
  /** Performs the write with the given lease ID (none when undefined). */
  write(f: ShareFileClient, leaseId: string | undefined): Promise<unknown>;
  /** Whether the read-back shows the write took effect. */
  applied(before: FileState, after: FileState | "deleted"): boolean;
}

const cond = (leaseId: string | undefined) => (leaseId ? { leaseAccessConditions: { leaseId } } : {});

const WRITES: WriteOp[] = [
  {
    slug: "create",
    operation: "Create File",
    write: (f, id) => f.create(SIZE, { metadata: { state: "created" }, ...cond(id) }),
    applied: (_b, a) => a !== "deleted" && a.metadata.state === "created" && a.content === "\0".repeat(SIZE),
  },
  {
    slug: "put-range",
    operation: "Put Range",
    write: (f, id) => f.uploadRange(fill("w"), 0, SIZE, cond(id)),
    applied: (_b, a) => a !== "deleted" && a.content === fill("w"),
  },
  {
    slug: "set-metadata",
    operation: "Set File Metadata",
    write: (f, id) => f.setMetadata({ state: "changed" }, cond(id)),
    applied: (_b, a) => a !== "deleted" && a.metadata.state === "changed",
  },
  {
    slug: "set-properties",
    operation: "Set File Properties",
    write: (f, id) => f.setHttpHeaders({ fileContentType: "text/changed" }, cond(id)),
    applied: (_b, a) => a !== "deleted" && a.contentType === "text/changed",
  },
  {
    slug: "delete",
    operation: "Delete File",
    write: (f, id) => f.delete(cond(id)),
    applied: (_b, a) => a === "deleted",
  },
];

async function stateOf(f: ShareFileClient): Promise<FileState | "deleted"> {
  return (await f.exists()) ? readFile(f) : "deleted";
}

/** A refused write leaves content, ETag, metadata, content type and size as they were. */
async function expectUnchanged(what: string, f: ShareFileClient, before: FileState): Promise<void> {
  const after = await stateOf(f);
  expectTrue(`${what}: the file was deleted`, after !== "deleted");
  expectEqual(`${what}: the file (content, metadata, type, size)`, durable(after as FileState), durable(before));
  expectTrue(`${what}: the ETag changed`, (after as FileState).etag === before.etag);
  expectEqual(`${what}: lease state`, (after as FileState).leaseState, "leased");
}

async function withoutId(t: RowContext, op: WriteOp): Promise<void> {
  const { f, leaseId } = await leasedFile(t);
  const other = viaClient(t.clients.file(), f);
  const before = await readFile(f);
  t.step(`${op.operation} without the lease ID`);
  await expectRefused(`${op.operation} on a leased file without the lease ID`, op.write(other, undefined), {
    status: 412,
    code: "LeaseIdMissing",
  });
  await expectUnchanged(`${op.operation} refused (no lease ID)`, f, before);
  t.step(`${op.operation} with the lease ID`);
  await expectSucceeds(`${op.operation} with the lease ID`, op.write(f, leaseId));
  expectTrue(`${op.operation} with the lease ID: the write is read back`, op.applied(before, await stateOf(f)));
}

async function wrongId(t: RowContext, op: WriteOp): Promise<void> {
  const { f, leaseId } = await leasedFile(t);
  const before = await readFile(f);
  t.step(`${op.operation} with another lease ID`);
  await expectRefused(`${op.operation} on a leased file with a wrong lease ID`, op.write(f, randomUUID()), {
    status: 412,
    code: "LeaseIdMismatchWithFileOperation",
  });
  await expectUnchanged(`${op.operation} refused (wrong lease ID)`, f, before);
  t.step(`${op.operation} with the holder's lease ID`);
  await expectSucceeds(`${op.operation} with the holder's lease ID`, op.write(f, leaseId));
  expectTrue(`${op.operation} with the holder's lease ID: the write is read back`, op.applied(before, await stateOf(f)));
}

async function acquireInfinite(t: RowContext): Promise<void> {
  const { f, leaseId } = await leasedFile(t);
  const s = await readFile(f);
  expectEqual(
    "lease after acquire (state, status, duration)",
    [s.leaseState, s.leaseStatus, s.leaseDuration],
    ["leased", "locked", "infinite"],
  );
  t.step("another client acquires with another ID");
  const other = viaClient(t.clients.file(), f);
  await expectRefused("acquire on a leased file with another proposed ID", other.getShareLeaseClient(randomUUID()).acquireLease(-1), {
    status: 409,
    code: "LeaseAlreadyPresent",
  });
  t.step("the first lease still holds");
  await expectSucceeds("Set File Metadata with the first lease ID", f.setMetadata({ state: "kept" }, cond(leaseId)));
  expectEqual("metadata written under the first lease", (await readFile(f)).metadata, { state: "kept" });
}

async function finiteRefused(t: RowContext): Promise<void> {
  const f = await newFile(t);
  t.step("acquire with a 15 s duration (raw: the SDK passes it through)");
  const res = await t.raw("file", {
    method: "PUT",
    path: rawPath(f),
    query: { comp: "lease" },
    headers: { "x-ms-lease-action": "acquire", "x-ms-lease-duration": "15", "x-ms-proposed-lease-id": randomUUID() },
  });
  expectSent("Lease File acquire", currentEvidence()!.exchanges.at(-1)!.requestHeaders, "x-ms-lease-duration");
  t.note("finiteAcquire", `${res.status} ${res.errorCode ?? ""}`.trim());
  expectRawStatus("Lease File acquire with a 15 s duration", res, { status: 400 });
  expectEqual("lease state after the refused acquire", (await readFile(f)).leaseState, "available");
  t.step("acquire with -1 (infinite)");
  await expectSucceeds("Lease File acquire with duration -1", f.getShareLeaseClient(randomUUID()).acquireLease(-1));
  expectEqual("lease state after the infinite acquire", (await readFile(f)).leaseState, "leased");
}

async function change(t: RowContext): Promise<void> {
  const { f, leaseId } = await leasedFile(t);
  const next = randomUUID();
  t.step("change the lease ID");
  const res = await f.getShareLeaseClient(leaseId).changeLease(next);
  expectEqual("lease ID returned by change", res.leaseId, next);
  const before = await readFile(f);
  t.step("write with the old ID");
  await expectRefused("Put Range with the lease ID changed away", f.uploadRange(fill("w"), 0, SIZE, cond(leaseId)), {
    status: 412,
    code: "LeaseIdMismatchWithFileOperation",
  });
  await expectUnchanged("Put Range with the old lease ID", f, before);
  t.step("write with the new ID");
  await expectSucceeds("Put Range with the new lease ID", f.uploadRange(fill("w"), 0, SIZE, cond(next)));
  expectEqual("content written under the new lease ID", (await readFile(f)).content, fill("w"));
}

async function release(t: RowContext): Promise<void> {
  const { f, leaseId } = await leasedFile(t);
  t.step("release");
  await f.getShareLeaseClient(leaseId).releaseLease();
  expectEqual("lease state after release", (await readFile(f)).leaseState, "available");
  t.step("write without an ID, another client");
  const other = viaClient(t.clients.file(), f);
  await expectSucceeds("Put Range without a lease ID after release", other.uploadRange(fill("r"), 0, SIZE));
  expectEqual("content after the write", (await readFile(f)).content, fill("r"));
  await expectSucceeds("another client acquires at once after release", other.getShareLeaseClient(randomUUID()).acquireLease(-1));
}

async function breakLease(t: RowContext): Promise<void> {
  const { f } = await leasedFile(t);
  const other = viaClient(t.clients.file(), f);
  t.step("break, from a client without the ID");
  await other.getShareLeaseClient().breakLease();
  const s = await readFile(f);
  expectEqual("lease after break (state, status)", [s.leaseState, s.leaseStatus], ["broken", "unlocked"]);
  t.step("write without an ID");
  await expectSucceeds("Set File Metadata without a lease ID after break", other.setMetadata({ state: "after-break" }));
  expectEqual("metadata after the write", (await readFile(f)).metadata, { state: "after-break" });
  await expectSucceeds("another client acquires at once after break", other.getShareLeaseClient(randomUUID()).acquireLease(-1));
}

async function readsNeedNoId(t: RowContext): Promise<void> {
  const { f } = await leasedFile(t);
  const other = viaClient(t.clients.file(), f);
  t.step("reads without the lease ID, another client");
  const props = await expectSucceeds("Get File Properties without the lease ID", other.getProperties());
  expectEqual("lease state seen by the reader", props.leaseState, "leased");
  const body = await expectSucceeds("Get File without the lease ID", other.downloadToBuffer(0, SIZE));
  expectEqual("content read without the lease ID", body.toString("utf8"), fill("o"));
  const meta = await t.raw("file", { method: "GET", path: rawPath(f), query: { comp: "metadata" } });
  expectRawStatus("Get File Metadata without the lease ID", meta, { status: 200 });
  const parent = t.clients.file().getShareClient(f.shareName).rootDirectoryClient;
  expectTrue("List Files and Directories lists the leased file", (await listNames(parent)).includes(f.name));
}

async function etagUnchanged(t: RowContext): Promise<void> {
  const f = await newFile(t);
  const start = await readFile(f);
  const ids = [randomUUID(), randomUUID(), randomUUID()];
  const ops: [string, () => Promise<{ etag?: string }>][] = [
    ["acquire", () => f.getShareLeaseClient(ids[0]).acquireLease(-1)],
    ["change", () => f.getShareLeaseClient(ids[0]).changeLease(ids[1])],
    ["release", () => f.getShareLeaseClient(ids[1]).releaseLease()],
    ["acquire again", () => f.getShareLeaseClient(ids[2]).acquireLease(-1)],
    ["break", () => f.getShareLeaseClient().breakLease()],
  ];
  for (const [what, op] of ops) {
    t.step(what);
    const res = await op();
    if (res.etag !== undefined) expectTrue(`Lease File ${what} returned another ETag than the file's`, res.etag === start.etag);
    const now = await readFile(f);
    expectTrue(`Lease File ${what} changed the file's ETag`, now.etag === start.etag);
    expectTrue(`Lease File ${what} changed the file's Last-Modified`, now.lastModified.getTime() === start.lastModified.getTime());
  }
}

const rows: RowDef[] = [
  {
    id: "file/lease/acquire/infinite",
    answers: [
      claimOn(
        "file",
        FILE_REQUEST.lease("acquire"),
        { params: { "x-ms-lease-duration": "infinite", "x-ms-proposed-lease-id": "other" }, lease: "leased" },
        [answer(409, "LeaseAlreadyPresent")],
      ),
    ],
    title: "Acquire an infinite lease: leased/locked/infinite; another ID cannot acquire it",
    level: "rest",
    source: source("acquire, x-ms-lease-duration -1"),
    service: "file",
    run: acquireInfinite,
  },
  {
    id: "file/lease/acquire/finite-refused",
    answers: [
      claimOn(
        "file",
        FILE_REQUEST.lease("acquire"),
        { params: { "x-ms-lease-duration": "in-range" }, also: { "x-ms-proposed-lease-id": ["other"] }, lease: ["available", "released"] },
        [answer(400)],
      ),
    ],
    title: "Acquire with a finite duration is refused (400); -1 succeeds",
    level: "rest",
    source: source("x-ms-lease-duration: only -1 for files"),
    service: "file",
    run: finiteRefused,
  },
  {
    id: "file/lease/change",
    title: "Change: the new ID writes, the old one gets 412 LeaseIdMismatchWithFileOperation",
    level: "rest",
    source: source("change"),
    service: "file",
    run: change,
  },
  {
    id: "file/lease/release",
    title: "Release: the file is available; writes need no ID; another client acquires at once",
    level: "rest",
    source: source("release"),
    service: "file",
    run: release,
  },
  {
    id: "file/lease/break",
    title: "Break: the lease is broken at once; writes need no ID; another client acquires",
    level: "rest",
    source: source("break"),
    service: "file",
    run: breakLease,
  },
  ...WRITES.flatMap((op) => [
    {
      id: `${P}${op.slug}/without-id`,
      answers: [
        claimOn("file", FILE_REQUEST[op.slug], { params: {}, lease: "leased" }, [answer(412, "LeaseIdMissing")]),
        claimOn("file", FILE_REQUEST[op.slug], { params: { "x-ms-lease-id": "holder" }, lease: "leased" }, SUCCESS),
      ],
      claim: claimAt(import.meta.url, `slug: "${op.slug}",`),
      title: `${op.operation} on a leased file without the lease ID → 412 LeaseIdMissing, file unchanged; with the ID it succeeds`,
      level: "rest" as const,
      source: source(`${op.operation} (x-ms-lease-id)`),
      service: "file" as const,
      run: (t: RowContext) => withoutId(t, op),
    },
    {
      id: `${P}${op.slug}/wrong-id`,
      answers: [
        claimOn("file", FILE_REQUEST[op.slug], { params: { "x-ms-lease-id": "other" }, lease: "leased" }, [
          answer(412, "LeaseIdMismatchWithFileOperation"),
        ]),
        claimOn("file", FILE_REQUEST[op.slug], { params: { "x-ms-lease-id": "holder" }, lease: "leased" }, SUCCESS),
      ],
      claim: claimAt(import.meta.url, `slug: "${op.slug}",`),
      title: `${op.operation} on a leased file with another lease ID → 412 LeaseIdMismatchWithFileOperation, file unchanged; with the holder's ID it succeeds`,
      level: "rest" as const,
      source: source(`${op.operation} (x-ms-lease-id)`),
      service: "file" as const,
      run: (t: RowContext) => wrongId(t, op),
    },
  ]),
  {
    id: "file/lease/reads-need-no-id",
    answers: [FILE_REQUEST.get, FILE_REQUEST["get-properties"]].map((r) => claimOn("file", r, { params: {}, lease: "leased" }, SUCCESS)),
    title: "Get File, Get File Properties/Metadata and List need no lease ID on a leased file",
    level: "rest",
    source: source("Get File, Get File Properties, Get File Metadata"),
    service: "file",
    run: readsNeedNoId,
  },
  {
    id: "file/lease/etag-unchanged",
    title: "Lease operations (acquire, change, release, break) change neither ETag nor Last-Modified",
    level: "rest",
    source: source("response ETag / Last-Modified"),
    service: "file",
    run: etagUnchanged,
  },
];

// The seed's one line for Lease File: every row here stands in it. The pairs of
// catalogue S each row covers are the file surface claims' (surface-claims.ts).
const LEASE_CELL = fileCell("lease");
defineTable(
  { table: "F Files (Lease File)", service: "file" },
  rows.map((r) => ({ ...r, surface: surfaceOf(r.id), matrix: LEASE_CELL })),
);
