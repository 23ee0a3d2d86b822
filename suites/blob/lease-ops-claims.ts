// L, operations that honour a blob lease (the seed's list), as data: each
// operation with its kind, the request that performs it (carrying the lease ID
// when given) and what it leaves behind, and the outcome the catalogue gives
// for each case: on a leased blob without the ID, with the right ID, with a
// wrong ID, and with an ID on an unleased blob. lease-ops.rows.ts runs them;
// lease-ops-conditions.rows.ts and the mutants are generated from them too.
import type { BlockBlobClient, ContainerClient, PageBlobClient } from "@azure/storage-blob";
import { expectEqual, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext } from "../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { preconditionFailed, succeeded } from "../../fixtures/wire/signals.ts";
import { claimAt } from "../../fixtures/harness/locations.ts";
import type { BlobSnapshot } from "./blob-kit.ts";
import type { LeaseTarget } from "./lease-kit.ts";
import { CLAIMS, cellsOf } from "./conditional-claims.ts";
import { answer, claimOn, SUCCESS, type ClaimedAnswer } from "../../fixtures/harness/claims.ts";
import { ACQUIRE } from "./lease-kit.ts";
import { op as record } from "./operations.ts";

export const P = "blob/lease-ops/";
/** The line of an operation's record (its lease rules) in OPS. */
export const leaseOpAt = (slug: string) => claimAt(import.meta.url, `slug: "${slug}",`);
const CHANGED = "changed by a writer";
const STAGED = "staged block content";
const SOURCE = "copy source content";

const BLOCK_ID = Buffer.from("block-000001").toString("base64");

/** A source blob for Copy Blob and Abort Copy Blob, beside the destination. */
async function copySource(t: RowContext, f: Fixture): Promise<void> {
  f.src = f.c.getBlockBlobClient(t.name("b"));
  await f.src.upload(SOURCE, SOURCE.length);
}

export type Kind = "write" | "read" | "snapshot" | "copy" | "abort" | "lease";
export type Case = "without-id" | "with-id" | "wrong-id" | "unleased-with-id";

export interface Fixture {
  c: ContainerClient;
  b: BlockBlobClient | PageBlobClient;
  type: "block" | "page";
  x: LeaseTarget;
  /** Copy source (copy, abort). */
  src?: BlockBlobClient;
  /** The pending copy to abort. */
  copyId?: string;
}

export interface LeaseOp {
  slug: string;
  operation: string;
  kind: Kind;
  type: "block" | "page";
  rest: string;
  /** State the blob needs before it is leased. */
  prepare?(t: RowContext, f: Fixture): Promise<void>;
  /** State the blob needs once leased (or not), given the ID the holder uses. */
  afterLease?(t: RowContext, f: Fixture, holderId: string | undefined): Promise<void>;
  /** The operation, carrying x-ms-lease-id when `leaseId` is given. */
  call(t: RowContext, f: Fixture, leaseId?: string): Promise<unknown>;
  /** For writes: the change is visible in what is read back. */
  applied?(after: BlobSnapshot, before: BlobSnapshot): void;
  /** For reads: the answer carries the blob's data. */
  answered?(result: unknown): void;
}

const leaseHeader = (id?: string): Record<string, string> => (id ? { "x-ms-lease-id": id } : {});
const lc = (id?: string) => ({ conditions: id ? { leaseId: id } : {} });

/** Copy Blob onto the fixture's blob from its source, sent raw (the SDK keeps its start call private). */
async function startCopy(t: RowContext, f: Fixture, id?: string): Promise<RawResponse> {
  return succeeded(await t.raw("blob", { method: "PUT", path: f.x.path, headers: { "x-ms-copy-source": f.src!.url, ...leaseHeader(id) } }));
}

async function waitCopyDone(t: RowContext, b: BlockBlobClient | PageBlobClient): Promise<string | undefined> {
  return t.waitFor(
    "the copy completing",
    async () => {
      const s = (await b.getProperties()).copyStatus;
      return s === "pending" ? undefined : (s ?? "none");
    },
    { timeoutMs: 30_000, intervalMs: 250 },
  );
}

export const OPS: LeaseOp[] = [
  {
    slug: "put-blob",
    operation: "Put Blob",
    kind: "write",
    type: "block",
    rest: "Put Blob, x-ms-lease-id",
    call: (t, f, id) => (f.b as BlockBlobClient).upload(CHANGED, CHANGED.length, lc(id)),
    applied: (after) => expectEqual("content after Put Blob", after.content, CHANGED),
  },
  {
    slug: "get-blob",
    operation: "Get Blob",
    kind: "read",
    type: "block",
    rest: "Get Blob, x-ms-lease-id",
    // Raw: the SDK's download helpers send a HEAD first, which would answer for Get Blob.
    call: async (t, f, id) => succeeded(await t.raw("blob", { method: "GET", path: f.x.path, headers: leaseHeader(id) })),
    answered: (r) => expectEqual("content returned by Get Blob", (r as RawResponse).body, "original"),
  },
  {
    slug: "get-blob-properties",
    operation: "Get Blob Properties",
    kind: "read",
    type: "block",
    rest: "Get Blob Properties, x-ms-lease-id",
    call: (t, f, id) => f.b.getProperties(lc(id)),
    answered: (r) =>
      expectEqual("metadata returned by Get Blob Properties", (r as { metadata?: Record<string, string> }).metadata, { state: "original" }),
  },
  {
    slug: "set-blob-properties",
    operation: "Set Blob Properties",
    kind: "write",
    type: "block",
    rest: "Set Blob Properties, x-ms-lease-id",
    call: (t, f, id) => f.b.setHTTPHeaders({ blobContentType: "text/x-changed" }, lc(id)),
    applied: (after) => expectEqual("Content-Type after Set Blob Properties", after.contentType, "text/x-changed"),
  },
  {
    slug: "get-blob-metadata",
    operation: "Get Blob Metadata",
    kind: "read",
    type: "block",
    rest: "Get Blob Metadata, x-ms-lease-id",
    call: async (t, f, id) =>
      succeeded(await t.raw("blob", { method: "GET", path: f.x.path, query: { comp: "metadata" }, headers: leaseHeader(id) })),
    answered: (r) =>
      expectEqual("x-ms-meta-state returned by Get Blob Metadata", (r as RawResponse).headers["x-ms-meta-state"], "original"),
  },
  {
    slug: "set-blob-metadata",
    operation: "Set Blob Metadata",
    kind: "write",
    type: "block",
    rest: "Set Blob Metadata, x-ms-lease-id",
    call: (t, f, id) => f.b.setMetadata({ state: "changed" }, lc(id)),
    applied: (after) => expectEqual("metadata after Set Blob Metadata", after.metadata, { state: "changed" }),
  },
  {
    slug: "delete-blob",
    operation: "Delete Blob",
    kind: "write",
    type: "block",
    rest: "Delete Blob, x-ms-lease-id",
    call: (t, f, id) => f.b.delete(lc(id)),
    applied: (after) => expectEqual("the blob exists after Delete Blob", after.exists, false),
  },
  {
    slug: "put-block",
    operation: "Put Block",
    kind: "write",
    type: "block",
    rest: "Put Block, x-ms-lease-id",
    call: (t, f, id) => (f.b as BlockBlobClient).stageBlock(BLOCK_ID, CHANGED, CHANGED.length, lc(id)),
    applied: (after) => expectEqual("uncommitted blocks after Put Block", after.uncommitted, [BLOCK_ID]),
  },
  {
    slug: "put-block-list",
    operation: "Put Block List",
    kind: "write",
    type: "block",
    rest: "Put Block List, x-ms-lease-id",
    prepare: async (t, f) => void (await (f.b as BlockBlobClient).stageBlock(BLOCK_ID, STAGED, STAGED.length)),
    call: (t, f, id) => (f.b as BlockBlobClient).commitBlockList([BLOCK_ID], lc(id)),
    applied: (after) => expectEqual("content after Put Block List", after.content, STAGED),
  },
  {
    slug: "get-block-list",
    operation: "Get Block List",
    kind: "read",
    type: "block",
    rest: "Get Block List, x-ms-lease-id",
    prepare: async (t, f) => {
      const b = f.b as BlockBlobClient;
      await b.stageBlock(BLOCK_ID, STAGED, STAGED.length);
      await b.commitBlockList([BLOCK_ID], { metadata: { state: "original" } });
    },
    call: (t, f, id) => (f.b as BlockBlobClient).getBlockList("committed", lc(id)),
    answered: (r) =>
      expectEqual(
        "committed blocks returned by Get Block List",
        ((r as { committedBlocks?: { name: string }[] }).committedBlocks ?? []).map((b) => b.name),
        [BLOCK_ID],
      ),
  },
  {
    slug: "put-page",
    operation: "Put Page",
    kind: "write",
    type: "page",
    rest: "Put Page, x-ms-lease-id",
    call: (t, f, id) => (f.b as PageBlobClient).uploadPages("x".repeat(512), 0, 512, lc(id)),
    applied: (after, before) =>
      expectTrue(
        "the page written by Put Page reads back",
        after.content !== before.content && Buffer.from(after.content!, "base64")[0] === 0x78,
      ),
  },
  {
    slug: "get-page-ranges",
    operation: "Get Page Ranges",
    kind: "read",
    type: "page",
    rest: "Get Page Ranges, x-ms-lease-id",
    prepare: async (t, f) => void (await (f.b as PageBlobClient).uploadPages("p".repeat(512), 0, 512)),
    call: async (t, f, id) =>
      succeeded(await t.raw("blob", { method: "GET", path: f.x.path, query: { comp: "pagelist" }, headers: leaseHeader(id) })),
    answered: (r) =>
      expectEqual(
        "page ranges returned by Get Page Ranges",
        [...(r as RawResponse).body.matchAll(/<PageRange><Start>(\d+)<\/Start><End>(\d+)<\/End><\/PageRange>/g)].map((m) => [
          Number(m[1]),
          Number(m[2]),
        ]),
        [[0, 511]],
      ),
  },
  {
    slug: "snapshot-blob",
    operation: "Snapshot Blob",
    kind: "snapshot",
    type: "block",
    rest: "Snapshot Blob, x-ms-lease-id optional",
    call: (t, f, id) => f.b.createSnapshot(lc(id)),
    applied: (after, before) => {
      expectEqual("snapshots of the blob after Snapshot Blob", after.snapshots, (before.snapshots ?? 0) + 1);
      expectEqual("the base blob's content after Snapshot Blob", after.content, before.content);
    },
  },
  {
    slug: "copy-blob",
    operation: "Copy Blob",
    kind: "copy",
    type: "block",
    rest: "Copy Blob, x-ms-lease-id (destination)",
    prepare: copySource,
    call: async (t, f, id) => {
      const res = await startCopy(t, f, id);
      await waitCopyDone(t, f.b);
      return res;
    },
    applied: (after) => expectEqual("destination content after Copy Blob", after.content, SOURCE),
  },
  {
    slug: "abort-copy-blob",
    operation: "Abort Copy Blob",
    kind: "abort",
    type: "block",
    rest: "Abort Copy Blob, x-ms-lease-id required with an infinite lease on the destination",
    prepare: copySource,
    afterLease: async (t, f, holderId) => {
      t.step("start a copy onto the destination (setup)");
      const res = await startCopy(t, f, holderId);
      f.copyId = res.headers["x-ms-copy-id"];
      const status = (await f.b.getProperties()).copyStatus;
      if (res.headers["x-ms-copy-status"] !== "pending" || status !== "pending") {
        preconditionFailed(
          `no pending copy to abort: the target completed the copy at once (copy status ${status ?? res.headers["x-ms-copy-status"] ?? "none"})`,
        );
      }
    },
    call: (t, f, id) => f.b.abortCopyFromURL(f.copyId!, lc(id)),
  },
  {
    slug: "lease-blob",
    operation: "Lease Blob",
    kind: "lease",
    type: "block",
    rest: "Lease Blob (see blob/lease/state/*)",
    call: () => Promise.resolve(),
  },
];

export const CODES: Record<Case, string | undefined> = {
  "without-id": "LeaseIdMissing",
  "with-id": undefined,
  "wrong-id": "LeaseIdMismatchWithBlobOperation",
  "unleased-with-id": "LeaseNotPresentWithBlobOperation",
};

export const CASE_TEXT: Record<Case, string> = {
  "without-id": "on a leased blob without the lease ID",
  "with-id": "on a leased blob with the lease ID",
  "wrong-id": "on a leased blob with a wrong lease ID",
  "unleased-with-id": "with a lease ID on an unleased blob",
};

/** The outcome the catalogue gives for one operation and one case. */
export function claim(op: LeaseOp, cs: Case): { ok: boolean; status?: number; code?: string; text: string } {
  if (op.kind === "lease") {
    return {
      "without-id": { ok: false, status: 409, code: "LeaseAlreadyPresent", text: "409 (acquire)" },
      "with-id": { ok: true, text: "200 (renew)" },
      "wrong-id": { ok: false, status: 409, text: "409 (renew)" },
      "unleased-with-id": { ok: false, status: 409, text: "409 (renew)" },
    }[cs];
  }
  if (cs === "with-id") return { ok: true, text: op.kind === "copy" ? "Succeeds (infinite lease)" : "Succeeds" };
  if (cs === "without-id" && (op.kind === "read" || op.kind === "snapshot"))
    return { ok: true, text: op.kind === "snapshot" ? "Succeeds (ID optional)" : "Succeeds" };
  return { ok: false, status: 412, code: CODES[cs], text: cs === "without-id" && op.kind === "abort" ? "412 (infinite lease)" : "412" };
}

export const CASES: Case[] = ["without-id", "with-id", "wrong-id", "unleased-with-id"];

/**
 * The operations of this table that the conditional claims say evaluate
 * conditional headers (blob/lease-ops/<op>/conditions-with-id): with their
 * claim and the headers it accepts on the blob itself.
 */
export const LEASED_CONDITIONAL = OPS.flatMap((op) => {
  const claim = CLAIMS.find((c) => c.row === `blob/blob-ops/${op.slug}`);
  return claim?.conditional ? [{ op, claim, cells: cellsOf(claim).filter((c) => !c.onSource) }] : [];
});

/** A placeholder subject: enough for the request classifier to name an operation's request. */
const ANY = { container: "c", blob: "b", sourceUrl: "https://a.blob.core.windows.net/c/s", copyId: "0" };

/**
 * What a case claims Azure answers, as data (fixtures/harness/claims.ts): the
 * operation's request without an ID or with the holder's or another, on a
 * leased blob (an infinite lease, where the operation needs one) or, for the
 * last case, on an unleased one.
 */
export function answersOf(op: LeaseOp, cs: Case): ClaimedAnswer[] {
  const lease = op.kind === "lease";
  const request = lease
    ? { method: "PUT", path: "/c/b", query: { comp: "lease" }, headers: { "x-ms-lease-action": cs === "without-id" ? "acquire" : "renew" } }
    : record(op.slug).request(ANY);
  const id: Record<string, string> = cs === "without-id" ? {} : { "x-ms-lease-id": cs === "with-id" ? "holder" : "other" };
  const of = {
    params: id,
    lease: cs === "unleased-with-id" ? ("available" as const) : ("leased" as const),
    ...((op.kind === "copy" || op.kind === "abort") && cs !== "unleased-with-id" ? { leaseDuration: "infinite" as const } : {}),
    // An acquire proposing the holder's own ID is the holder's acquire (201, catalogue L acquire-same): the claim is another's.
    ...(lease && cs === "without-id" ? { also: { ...ACQUIRE, "x-ms-proposed-lease-id": ["other" as const] } } : {}),
  };
  const c = claim(op, cs);
  return [claimOn("blob", request, of, c.ok ? SUCCESS : [answer(c.status!, ...(c.code ? [c.code] : []))])];
}
