// Blob helpers shared by the blob suites: make a resource in a known state,
// read it back, and derive condition dates from the server's own clock.
import type { BlockBlobClient, ContainerClient, PageBlobClient } from "@azure/storage-blob";
import { expectNotEvaluated, expectSent } from "../../fixtures/assert.ts";
import { currentEvidence } from "../../fixtures/evidence.ts";
import type { RowContext } from "../../fixtures/engine.ts";

export const blobSource = (rest: string) => `seed: table of blob operations; REST: ${rest}`;
export const containerSource = (rest: string) => `seed: table of container operations; REST: ${rest}`;

export interface BlobState {
  content: string;
  etag: string;
  lastModified: Date;
  metadata: Record<string, string>;
}

export async function newBlockBlob(t: RowContext, content = "original", container?: ContainerClient): Promise<BlockBlobClient> {
  const c = container ?? (await t.newContainer());
  const b = c.getBlockBlobClient(t.name("b"));
  await b.upload(content, Buffer.byteLength(content), { metadata: { state: "original" } });
  return b;
}

export async function newPageBlob(t: RowContext, container?: ContainerClient): Promise<PageBlobClient> {
  const c = container ?? (await t.newContainer());
  const b = c.getPageBlobClient(t.name("b"));
  await b.create(1024, { metadata: { state: "original" } });
  return b;
}

/** Reads content, ETag, Last-Modified and metadata back from the target. */
export async function readBlob(b: BlockBlobClient | PageBlobClient): Promise<BlobState> {
  const props = await b.getProperties();
  const body = await b.downloadToBuffer();
  return { content: body.toString("utf8"), etag: props.etag!, lastModified: props.lastModified!, metadata: props.metadata ?? {} };
}

/** One second before a server timestamp (conditions have one-second granularity). */
export const secondBefore = (d: Date) => new Date(d.getTime() - 1000);
/** One second after a server timestamp. */
export const secondAfter = (d: Date) => new Date(d.getTime() + 1000);

export const STALE_ETAG = '"0x8D0000000000000"';

/**
 * Sends a raw request carrying a failing conditional header, and checks it was
 * not evaluated (neither 304 nor 412). The evidence shows the header was sent.
 * Records in the notes whether the target ignored or rejected it.
 */
export async function conditionalNotEvaluated(
  t: RowContext,
  what: string,
  req: { method: string; path: string; query?: Record<string, string>; body?: string; headers?: Record<string, string> },
  header: string,
  value: string,
): Promise<"ignored" | "rejected"> {
  t.step(`${what} with failing ${header}`);
  const res = await t.raw("blob", { ...req, headers: { ...(req.headers ?? {}), [header]: value } });
  const ex = currentEvidence()!.exchanges.at(-1)!;
  expectSent(what, ex.requestHeaders, header);
  const outcome = expectNotEvaluated(`${what} with a failing ${header}`, res.status);
  t.note(`${header}`, outcome);
  return outcome;
}

// ---- T2 Blob operations (appended for the blob-ops suites) ----
import { expectChanged, expectEqual, expectRefused, expectSucceeds, expectTrue } from "../../fixtures/assert.ts";
import type { RowDef } from "../../fixtures/engine.ts";
import type { RawResponse } from "../../fixtures/raw.ts";

/** The seed's table of blob operations: the claims, one entry per row, in the article's order. */
export interface BlobOpClaim {
  slug: string;
  operation: string;
  etag: boolean;
  conditional: boolean;
  /** The matrix cell text when it says more than Yes/No. */
  conditionalClaim?: string;
  /** REST reference page(s) behind the row. */
  rest: string;
}

export const BLOB_OPS: BlobOpClaim[] = [
  { slug: "put-blob", operation: "Put Blob", etag: true, conditional: true, rest: "Put Blob; Specifying Conditional Headers for Blob Service Operations" },
  { slug: "get-blob", operation: "Get Blob", etag: true, conditional: true, rest: "Get Blob; Specifying Conditional Headers for Blob Service Operations" },
  { slug: "get-blob-properties", operation: "Get Blob Properties", etag: true, conditional: true, rest: "Get Blob Properties (HEAD); Specifying Conditional Headers" },
  { slug: "set-blob-properties", operation: "Set Blob Properties", etag: true, conditional: true, rest: "Set Blob Properties; Specifying Conditional Headers" },
  { slug: "get-blob-metadata", operation: "Get Blob Metadata", etag: true, conditional: true, rest: "Get Blob Metadata (GET ?comp=metadata); Specifying Conditional Headers" },
  { slug: "set-blob-metadata", operation: "Set Blob Metadata", etag: true, conditional: true, rest: "Set Blob Metadata; Specifying Conditional Headers" },
  { slug: "lease-blob", operation: "Lease Blob", etag: true, conditional: true, rest: "Lease Blob; Specifying Conditional Headers" },
  { slug: "snapshot-blob", operation: "Snapshot Blob", etag: true, conditional: true, rest: "Snapshot Blob; Specifying Conditional Headers" },
  { slug: "copy-blob", operation: "Copy Blob", etag: true, conditional: true, conditionalClaim: "Yes (source and destination)", rest: "Copy Blob (If-* on the destination, x-ms-source-if-* on the source)" },
  { slug: "abort-copy-blob", operation: "Abort Copy Blob", etag: false, conditional: false, rest: "Abort Copy Blob" },
  { slug: "delete-blob", operation: "Delete Blob", etag: false, conditional: true, rest: "Delete Blob; Specifying Conditional Headers" },
  { slug: "put-block", operation: "Put Block", etag: false, conditional: false, rest: "Put Block" },
  { slug: "put-block-list", operation: "Put Block List", etag: true, conditional: true, rest: "Put Block List; Specifying Conditional Headers" },
  { slug: "get-block-list", operation: "Get Block List", etag: true, conditional: false, rest: "Get Block List" },
  { slug: "put-page", operation: "Put Page", etag: true, conditional: true, rest: "Put Page; Specifying Conditional Headers" },
  { slug: "get-page-ranges", operation: "Get Page Ranges", etag: true, conditional: true, rest: "Get Page Ranges; Specifying Conditional Headers" },
];

export const BLOB_OPS_PREFIX = "blob/blob-ops/";

export function blobOpClaim(slug: string): BlobOpClaim {
  const c = BLOB_OPS.find((o) => o.slug === slug);
  if (!c) throw new Error(`no T2 row ${slug}`);
  return c;
}

/** The code that checks one T2 row's two cells. */
export interface BlobOpTests {
  etag(t: RowContext): Promise<void>;
  conditional(t: RowContext): Promise<void>;
}

/** The `<row>/etag` and `<row>/conditional` rows of T2 for the given tests, claims taken from BLOB_OPS. */
export function blobOpRows(tests: Record<string, BlobOpTests>): RowDef[] {
  return Object.entries(tests).flatMap(([slug, test]) => {
    const c = blobOpClaim(slug);
    const source = blobSource(c.rest);
    return [
      {
        id: `${BLOB_OPS_PREFIX}${slug}/etag`,
        title: `${c.operation} ${c.etag ? "returns an ETag" : "returns no ETag"}`,
        level: "doc" as const,
        source,
        service: "blob" as const,
        run: test.etag,
      },
      {
        id: `${BLOB_OPS_PREFIX}${slug}/conditional`,
        title: `${c.operation} ${c.conditional ? "evaluates" : "does not evaluate"} conditional headers`,
        level: "doc" as const,
        source,
        service: "blob" as const,
        run: test.conditional,
      },
    ];
  });
}

/** Path of a blob below the blob endpoint, for raw requests. */
export const blobPath = (b: { containerName: string; name: string }) => `/${b.containerName}/${encodeURIComponent(b.name)}`;

/** The request headers of the last exchange recorded for this row (what went on the wire). */
export function lastSent(): Record<string, string> {
  return currentEvidence()?.exchanges.at(-1)?.requestHeaders ?? {};
}

/** Blob content and ETag as one comparable value (metadata too when asked). */
export async function snapshotOf(b: BlockBlobClient | PageBlobClient): Promise<{ content: string; etag: string; metadata: Record<string, string> }> {
  const s = await readBlob(b);
  return { content: s.content, etag: s.etag, metadata: s.metadata };
}

/**
 * The "yes" conditional claim for a write: a stale If-Match is refused with
 * 412 ConditionNotMet and the resource reads back unchanged; the current
 * If-Match succeeds and the change is visible.
 */
export async function writeHonoursIfMatch<S>(
  t: RowContext,
  what: string,
  opts: {
    read: () => Promise<S & { etag: string }>;
    write: (ifMatch: string) => Promise<unknown>;
    /** Checks the change of the permitted write is visible. */
    applied: (after: S & { etag: string }) => void;
    code?: string | string[];
  },
): Promise<void> {
  const before = await opts.read();
  t.step(`${what} with a stale If-Match`);
  await expectRefused(`${what}, stale If-Match`, opts.write(STALE_ETAG), { status: 412, code: opts.code ?? "ConditionNotMet" });
  t.step("read back after the refused write");
  expectUnchanged(`${what}: after the refused write`, before, await opts.read());
  t.step(`${what} with the current If-Match`);
  await expectSucceeds(`${what}, current If-Match`, opts.write(before.etag));
  t.step("read back after the permitted write");
  const after = await opts.read();
  expectChanged(`${what} with the current If-Match`, before.etag, after.etag);
  opts.applied(after);
}

/**
 * The "yes" conditional claim for a read: a stale If-Match → 412
 * ConditionNotMet, the current If-Match → success, the current If-None-Match → 304.
 */
export async function readHonoursConditions(
  t: RowContext,
  what: string,
  opts: { etag: string; read: (conditions: { ifMatch?: string; ifNoneMatch?: string }) => Promise<unknown>; check?: (res: unknown) => void },
): Promise<void> {
  t.step(`${what} with a stale If-Match`);
  await expectRefused(`${what}, stale If-Match`, opts.read({ ifMatch: STALE_ETAG }), { status: 412, code: "ConditionNotMet" });
  t.step(`${what} with the current If-Match`);
  const res = await expectSucceeds(`${what}, current If-Match`, opts.read({ ifMatch: opts.etag }));
  opts.check?.(res);
  t.step(`${what} with the current If-None-Match`);
  await expectRefused(`${what}, current If-None-Match`, opts.read({ ifNoneMatch: opts.etag }), { status: 304 });
}

/**
 * Field by field: the resource read back equals what it was. Messages name the
 * field only where its value varies run to run (ETag, dates).
 */
export function expectUnchanged(what: string, before: object, after: object): void {
  const a = after as Record<string, unknown>;
  for (const [key, value] of Object.entries(before)) {
    const same = JSON.stringify(a[key]) === JSON.stringify(value);
    const label = ({ etag: "ETag", lastModified: "Last-Modified" } as Record<string, string>)[key] ?? key;
    if (key === "etag" || value instanceof Date) expectTrue(`${what}: the ${label} changed`, same);
    else expectEqual(`${what}: ${key}`, a[key], value);
  }
}

/** conditionalNotEvaluated, also returning the response (to check what an ignored header let through). */
export async function notEvaluatedResponse(
  t: RowContext,
  what: string,
  req: { method: string; path: string; query?: Record<string, string>; body?: string; headers?: Record<string, string> },
  header: string,
  value: string,
): Promise<{ outcome: "ignored" | "rejected"; res: RawResponse }> {
  t.step(`${what} with failing ${header}`);
  const res = await t.raw("blob", { ...req, headers: { ...(req.headers ?? {}), [header]: value } });
  expectSent(what, lastSent(), header);
  const outcome = expectNotEvaluated(`${what} with a failing ${header}`, res.status);
  t.note(header, outcome);
  return { outcome, res };
}
