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
