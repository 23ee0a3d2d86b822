// Blob helpers shared by the blob suites: make a resource in a known state,
// read it back, and derive condition dates from the server's own clock.
import type { BlobClient, BlockBlobClient, ContainerClient, PageBlobClient } from "@azure/storage-blob";
import { expectEqual, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { currentEvidence } from "../../fixtures/wire/evidence.ts";
import { allAnswered } from "../../fixtures/wire/signals.ts";
import { claimAt } from "../../fixtures/harness/locations.ts";

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

/**
 * Get Blob of the whole blob in one request, its body read to the end (the
 * SDK's downloadToBuffer asks Get Blob Properties for the size first: a round
 * trip more on every read-back).
 */
export async function downloadAll(b: BlobClient): Promise<Buffer> {
  const res = await b.download();
  const chunks: Buffer[] = [];
  for await (const c of res.readableStreamBody ?? []) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

/** Reads content, ETag, Last-Modified and metadata back from the target. */
export async function readBlob(b: BlockBlobClient | PageBlobClient): Promise<BlobState> {
  const [props, body] = await allAnswered([b.getProperties(), downloadAll(b)]);
  return { content: body.toString("utf8"), etag: props.etag!, lastModified: props.lastModified!, metadata: props.metadata ?? {} };
}

/** One second before a server timestamp (conditions have one-second granularity). */
export const secondBefore = (d: Date) => new Date(d.getTime() - 1000);

export const STALE_ETAG = '"0x8D0000000000000"';

/** The seed's table of blob operations: the claims, one entry per row, in the article's order. */
export interface BlobOpClaim {
  slug: string;
  operation: string;
  etag: boolean;
  /** REST reference page(s) behind the row. */
  rest: string;
}

export const BLOB_OPS: BlobOpClaim[] = [
  { slug: "put-blob", operation: "Put Blob", etag: true, rest: "Put Blob; Specifying Conditional Headers for Blob Service Operations" },
  { slug: "get-blob", operation: "Get Blob", etag: true, rest: "Get Blob; Specifying Conditional Headers for Blob Service Operations" },
  {
    slug: "get-blob-properties",
    operation: "Get Blob Properties",
    etag: true,
    rest: "Get Blob Properties (HEAD); Specifying Conditional Headers",
  },
  {
    slug: "set-blob-properties",
    operation: "Set Blob Properties",
    etag: true,
    rest: "Set Blob Properties; Specifying Conditional Headers",
  },
  {
    slug: "get-blob-metadata",
    operation: "Get Blob Metadata",
    etag: true,
    rest: "Get Blob Metadata (GET ?comp=metadata); Specifying Conditional Headers",
  },
  { slug: "set-blob-metadata", operation: "Set Blob Metadata", etag: true, rest: "Set Blob Metadata; Specifying Conditional Headers" },
  { slug: "lease-blob", operation: "Lease Blob", etag: true, rest: "Lease Blob; Specifying Conditional Headers" },
  { slug: "snapshot-blob", operation: "Snapshot Blob", etag: true, rest: "Snapshot Blob; Specifying Conditional Headers" },
  {
    slug: "copy-blob",
    operation: "Copy Blob",
    etag: true,
    rest: "Copy Blob (If-* on the destination, x-ms-source-if-* on the source)",
  },
  { slug: "abort-copy-blob", operation: "Abort Copy Blob", etag: false, rest: "Abort Copy Blob" },
  { slug: "delete-blob", operation: "Delete Blob", etag: false, rest: "Delete Blob; Specifying Conditional Headers" },
  { slug: "put-block", operation: "Put Block", etag: false, rest: "Put Block" },
  { slug: "put-block-list", operation: "Put Block List", etag: true, rest: "Put Block List; Specifying Conditional Headers" },
  { slug: "get-block-list", operation: "Get Block List", etag: true, rest: "Get Block List" },
  { slug: "put-page", operation: "Put Page", etag: true, rest: "Put Page; Specifying Conditional Headers" },
  { slug: "get-page-ranges", operation: "Get Page Ranges", etag: true, rest: "Get Page Ranges; Specifying Conditional Headers" },
];

export const BLOB_OPS_PREFIX = "blob/blob-ops/";

export function blobOpClaim(slug: string): BlobOpClaim {
  const c = BLOB_OPS.find((o) => o.slug === slug);
  if (!c) throw new Error(`no T2 row ${slug}`);
  return c;
}

/** The code that checks one T2 row's ETag cell (its conditional cell is generated: conditional.rows.ts). */
export interface BlobOpTests {
  etag(t: RowContext): Promise<void>;
}

/** The `<row>/etag` rows of T2 for the given tests, claims taken from BLOB_OPS. */
export function blobOpRows(tests: Record<string, BlobOpTests>): RowDef[] {
  return Object.entries(tests).map(([slug, test]) => {
    const c = blobOpClaim(slug);
    return {
      id: `${BLOB_OPS_PREFIX}${slug}/etag`,
      claim: claimAt(import.meta.url, `slug: "${slug}"`),
      title: `${c.operation} ${c.etag ? "returns an ETag" : "returns no ETag"}`,
      level: "doc" as const,
      source: blobSource(c.rest),
      service: "blob" as const,
      matrix: [{ section: "T2", row: c.operation, column: "etag", claim: c.etag ? "Yes" : "No" }],
      run: test.etag,
    };
  });
}

/** Path of a blob below the blob endpoint, for raw requests. */
export const blobPath = (b: { containerName: string; name: string }) => `/${b.containerName}/${encodeURIComponent(b.name)}`;

/** The request headers of the last exchange recorded for this row (what went on the wire). */
export function lastSent(): Record<string, string> {
  return currentEvidence()?.exchanges.at(-1)?.requestHeaders ?? {};
}

/** Blob content and ETag as one comparable value (metadata too when asked). */
export async function snapshotOf(
  b: BlockBlobClient | PageBlobClient,
): Promise<{ content: string; etag: string; metadata: Record<string, string> }> {
  const s = await readBlob(b);
  return { content: s.content, etag: s.etag, metadata: s.metadata };
}

export interface BlobSnapshot {
  exists: boolean;
  content?: string;
  etag?: string;
  contentType?: string;
  metadata?: Record<string, string>;
  uncommitted?: string[];
  snapshots?: number;
}

async function snapshotCount(b: BlockBlobClient | PageBlobClient, container: ContainerClient): Promise<number> {
  let snaps = 0;
  for await (const item of container.listBlobsFlat({ prefix: b.name, includeSnapshots: true }))
    if (item.name === b.name && item.snapshot) snaps++;
  return snaps;
}

/**
 * Everything a refused write could have changed, read back from the target.
 * The reads are independent, so they go out together; a missing blob answers
 * 404 to them.
 */
export async function blobSnapshot(
  b: BlockBlobClient | PageBlobClient,
  container: ContainerClient,
  kind: "block" | "page",
): Promise<BlobSnapshot> {
  try {
    const [props, body, list, snapshots] = await allAnswered([
      b.getProperties(),
      downloadAll(b),
      kind === "block" ? (b as BlockBlobClient).getBlockList("uncommitted") : undefined,
      snapshotCount(b, container),
    ]);
    const out: BlobSnapshot = {
      exists: true,
      content: kind === "page" ? body.toString("base64") : body.toString("utf8"),
      etag: props.etag,
      contentType: props.contentType,
      metadata: props.metadata ?? {},
    };
    if (list) out.uncommitted = (list.uncommittedBlocks ?? []).map((x) => x.name);
    out.snapshots = snapshots;
    return out;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return { exists: false };
    throw err;
  }
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
    if (key === "etag" || key === "lastModified" || value instanceof Date)
      expectTrue(`${what}: the ${label} changed`, same, { expected: `the same ${label}`, got: "changed" });
    else expectEqual(`${what}: ${key}`, a[key], value);
  }
}
