// What the generated conditional cells (conditional.rows.ts) stand on: a
// resource with a history (a client reads its validators, another writer
// changes it at least one second later by the server's clock), its full state
// read back, and the header values section C prescribes.
import type { BlobClient, ContainerClient } from "@azure/storage-blob";
import { expectDate, expectPresent, expectRawStatus, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext } from "../../fixtures/harness/engine.ts";
import { allAnswered, preconditionFailed } from "../../fixtures/wire/signals.ts";
import { downloadAll, blobPath, newBlockBlob, newPageBlob } from "./blob-kit.ts";
import {
  BLOCK_ID,
  NEW_CONTENT,
  OTHER,
  SOURCE_CONTENT,
  type Cell,
  type CondHeader,
  type ResourceState,
  type Subject,
} from "./conditional-claims.ts";

export type { ResourceState, Subject } from "./conditional-claims.ts";

const notFound = (err: unknown) => (err as { statusCode?: number }).statusCode === 404;

// The reads of a state are independent: they go out together.
export async function containerState(c: ContainerClient): Promise<ResourceState> {
  try {
    const [p, acl] = await allAnswered([c.getProperties(), c.getAccessPolicy()]);
    return {
      exists: true,
      etag: p.etag,
      lastModified: p.lastModified?.toUTCString(),
      metadata: p.metadata,
      leaseState: p.leaseState,
      acl: acl.signedIdentifiers.map((s) => s.id),
    };
  } catch (err) {
    if (notFound(err)) return { exists: false };
    throw err;
  }
}

async function snapshotCount(b: BlobClient, c: ContainerClient): Promise<number> {
  let n = 0;
  for await (const item of c.listBlobsFlat({ prefix: b.name, includeSnapshots: true })) if (item.name === b.name && item.snapshot) n++;
  return n;
}

export type BlobKind = "block-blob" | "page-blob" | "append-blob";

async function blocksOrPages(b: BlobClient, kind: BlobKind): Promise<Partial<ResourceState>> {
  // An append blob's blocks show in its content and ETag.
  if (kind === "append-blob") return {};
  if (kind === "block-blob") {
    const list = await b.getBlockBlobClient().getBlockList("all");
    return { committed: (list.committedBlocks ?? []).map((x) => x.name), uncommitted: (list.uncommittedBlocks ?? []).map((x) => x.name) };
  }
  // The SDK reports a range as offset and count (end − start).
  const ranges = await b.getPageBlobClient().getPageRanges();
  return { pages: (ranges.pageRange ?? []).map((r) => `${r.offset}-${r.offset + (r.count ?? 0)}`).join(",") };
}

export async function blobState(b: BlobClient, c: ContainerClient, kind: BlobKind): Promise<ResourceState> {
  try {
    const [p, body, snapshots, parts] = await allAnswered([b.getProperties(), downloadAll(b), snapshotCount(b, c), blocksOrPages(b, kind)]);
    return {
      exists: true,
      etag: p.etag,
      lastModified: p.lastModified?.toUTCString(),
      metadata: p.metadata,
      leaseState: p.leaseState,
      contentType: p.contentType,
      copyStatus: p.copyStatus,
      content: body.toString("utf8").replace(/\0+$/, ""),
      snapshots,
      ...parts,
    };
  } catch (err) {
    if (notFound(err)) return { exists: false };
    throw err;
  }
}

/**
 * Section C's values: failing is what a client read before the other writer's
 * change (old ETag, old Last-Modified) or, for the "not" headers, the current
 * validator; holding is the opposite.
 */
export function headerValue(header: CondHeader, fails: boolean, before: ResourceState, after: ResourceState): string {
  const v = {
    "if-match": fails ? before.etag : after.etag,
    "if-none-match": fails ? after.etag : before.etag,
    "if-modified-since": fails ? after.lastModified : before.lastModified,
    "if-unmodified-since": fails ? before.lastModified : after.lastModified,
  }[header];
  if (!v) throw new Error(`no validator for ${header}`);
  return v;
}

export interface History {
  subject: Subject;
  /** Validators of the resource the header is about, before and after the other writer. */
  before: ResourceState;
  after: ResourceState;
  /** With `older`: the ETag of a version before `before`. */
  older?: string;
  /** Full state of the resource the request acts on. */
  read(): Promise<ResourceState>;
}

/**
 * Waits until the server's clock (its Date header) is a whole second past
 * `lastModified`, so the next change is dated later. Time spent queueing for
 * the pool does not count: only the probes' answers decide (t.waitForServerTime:
 * a clock that stops fails; a target too slow to answer meets the row's time
 * limit, INCONCLUSIVE). A Last-Modified ahead of the server's own Date by more than
 * its granularity is no date of a past change: that answer fails at once.
 */
export async function secondLater(t: RowContext, probe: () => Promise<Date | undefined>, lastModified: string | undefined): Promise<void> {
  const changed = expectDate("general/validators-advance: the resource's Last-Modified, as read", lastModified);
  let first = true;
  await t.waitForServerTime(
    "general/validators-advance: the server's Date a second past the resource's Last-Modified",
    async () => {
      const date = expectPresent("the server's Date (an answer's Date header)", await probe()).getTime();
      if (first && Number.isFinite(date))
        expectTrue(
          `general/validators-advance: the resource's Last-Modified (${lastModified}) is later than the server's Date (${new Date(date).toUTCString()}) by more than a second`,
          changed < date + 2000,
        );
      first = false;
      return date;
    },
    (date) => date,
    changed + 1000,
    // No budget of its own: time queueing for the pool is no answer, and the row's time limit bounds a slow target.
    // Dates count whole seconds: a probe each half second finds the next one without a train of probes.
    { timeoutMs: Number.POSITIVE_INFINITY, intervalMs: 500 },
  );
}

/**
 * Puts a fresh resource through the history section C assumes: this client
 * reads it, another writer changes it (a metadata write by a second client, or
 * for Abort Copy Blob a copy started onto it) a second later.
 */
export async function history(t: RowContext, cell: Cell, opts: { older?: boolean } = {}): Promise<History> {
  const { claim } = cell;
  const other = t.clients.blob();
  const c = await t.newContainer();
  if (claim.resource === "container") {
    const target = claim.creates ? t.blob.getContainerClient(t.name("c")) : c;
    t.step("read the container (this client)");
    const before = await containerState(c);
    await secondLater(t, async () => (await c.getProperties()).date, before.lastModified);
    t.step("another writer changes the container");
    await other.getContainerClient(c.containerName).setMetadata({ state: OTHER });
    const after = await containerState(c);
    expectLater(before, after);
    return { subject: { container: target.containerName }, before, after, read: () => containerState(target) };
  }
  const kind = claim.resource;
  const b = await newBlobOf(t, kind, c);
  const subject: Subject = { container: c.containerName, blob: b.name };
  let validated: BlobClient = b;
  if (claim.source || claim.pendingCopy) {
    const src = await newBlockBlob(t, SOURCE_CONTENT, c);
    subject.sourceUrl = src.url;
    if (cell.onSource) validated = src;
  }
  if (claim.row.endsWith("/put-block-list")) await c.getBlockBlobClient(b.name).stageBlock(BLOCK_ID, NEW_CONTENT, NEW_CONTENT.length);
  let older: string | undefined;
  if (opts.older) {
    // A version before the one this client reads: an ETag older than the old one.
    older = (await validated.getProperties()).etag;
    await other.getContainerClient(c.containerName).getBlobClient(validated.name).setMetadata({ state: "first change" });
  }
  const read = (x: BlobClient, k: typeof kind = kind) => blobState(x, c, k);
  t.step("read the blob (this client)");
  const before = await read(validated, cell.onSource ? "block-blob" : kind);
  await secondLater(t, async () => (await validated.getProperties()).date, before.lastModified);
  if (claim.pendingCopy) {
    t.step("another writer starts a copy onto the blob");
    const res = await t.raw("blob", { method: "PUT", path: blobPath(b), headers: { "x-ms-copy-source": subject.sourceUrl! } });
    expectRawStatus("Copy Blob to start a copy", res, { status: 202 });
    subject.copyId = res.headers["x-ms-copy-id"];
    const status = (await b.getProperties()).copyStatus;
    t.note("copyStatusOnServer", status ?? null);
    if (status !== "pending")
      preconditionFailed(
        `the target completed the copy at once (x-ms-copy-status: ${status ?? "none"}); there is no pending copy to abort`,
      );
  } else {
    t.step("another writer changes the blob");
    await other.getContainerClient(c.containerName).getBlobClient(validated.name).setMetadata({ state: OTHER });
  }
  const after = await read(validated, cell.onSource ? "block-blob" : kind);
  expectLater(before, after);
  return { subject, before, after, older, read: () => read(b) };
}

/** A copy may answer 202 while still pending: the state read back once it settled. */
export function afterCopySettles(t: RowContext, read: () => Promise<ResourceState>): Promise<ResourceState> {
  return t.waitFor(
    "the permitted copy to settle",
    async () => {
      const s = await read();
      return s.copyStatus === "pending" ? undefined : s;
    },
    { timeoutMs: 30_000, intervalMs: 250 },
  );
}

/** A fresh blob of a kind, with content "original" (a page blob: empty pages) and metadata state=original. */
export async function newBlobOf(t: RowContext, kind: BlobKind, c: ContainerClient): Promise<BlobClient> {
  if (kind === "page-blob") return newPageBlob(t, c);
  if (kind === "block-blob") return newBlockBlob(t, "original", c);
  const b = c.getAppendBlobClient(t.name("b"));
  await b.create({ metadata: { state: "original" } });
  await b.appendBlock("original", 8);
  return b;
}

/** The history the cells stand on relies on general/validators-advance: a target breaking it fails here, naming it. */
function expectLater(before: ResourceState, after: ResourceState): void {
  expectTrue("general/validators-advance: the other writer's change did not give the resource a new ETag", after.etag !== before.etag, {
    expected: "a new ETag",
    got: after.etag ? "the same ETag" : "none",
  });
  expectTrue(
    "general/validators-advance: the other writer's change, a second later, did not move Last-Modified a second forward",
    Date.parse(after.lastModified!) >= Date.parse(before.lastModified!) + 1000,
    {
      expected: "a Last-Modified a second later",
      got: after.lastModified ? "not a second later" : "none",
    },
  );
}
