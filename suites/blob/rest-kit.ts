// What the rows beyond the article (catalogue, section X) stand on: the
// operation under test goes out raw, so the evidence shows each condition
// header on the wire; the blob is read back whole (content, validators and
// the property the row is about) to show a refusal changed nothing.
import {
  BlobSASPermissions,
  generateBlobSASQueryParameters,
  StorageSharedKeyCredential,
  type BlobClient,
  type ContainerClient,
} from "@azure/storage-blob";
import { createHash } from "node:crypto";
import { expectPresent, expectRawStatus, expectSent, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { isRecordedRequestHeader } from "../../fixtures/wire/evidence.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { lastSent } from "./blob-kit.ts";
import type { BlobOperation, Subject } from "./operations.ts";

/** A blob by name: the subject of raw requests. */
export interface BlobRef {
  container: string;
  blob: string;
}

export const refOf = (c: ContainerClient, blob: string): BlobRef => ({ container: c.containerName, blob });
export const pathOf = (b: BlobRef) => `/${b.container}/${encodeURIComponent(b.blob)}`;

/** A row of section X: `rest` unless the catalogue marks it otherwise. */
export function restRow(
  id: string,
  title: string,
  source: string,
  run: (t: RowContext) => Promise<void>,
  extra: Partial<RowDef> = {},
): RowDef {
  return { id, title, level: "rest", source: `REST: ${source}`, service: "blob", run, ...extra };
}

export interface Request {
  method: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** Sends a request raw as a labelled step, and shows that each header the claims are about (those the evidence records) left the client. */
export async function sendRaw(t: RowContext, what: string, b: BlobRef, req: Request): Promise<RawResponse> {
  t.step(what);
  const res = await t.raw("blob", { ...req, path: pathOf(b) });
  const sent = lastSent();
  for (const h of Object.keys(req.headers ?? {})) if (isRecordedRequestHeader(h)) expectSent(what, sent, h);
  return res;
}

/** An operation's record sent raw on its subject, with `headers` added (the conditions a row is about). */
export function sendOperation(
  t: RowContext,
  what: string,
  record: BlobOperation,
  s: Subject,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const req = record.request(s);
  return sendRaw(
    t,
    what,
    { container: s.container, blob: s.blob! },
    { ...req, headers: { ...(req.headers as Record<string, string>), ...headers } },
  );
}

/** A 2xx answer, or a failure naming the status and code. */
export function expectOk(what: string, res: RawResponse, status?: number): void {
  if (status !== undefined) return expectRawStatus(what, res, { status });
  const got = `${res.status}${res.errorCode ? " " + res.errorCode : ""}`;
  expectTrue(`${what}: expected success, got ${got}`, res.status >= 200 && res.status < 300, { expected: "success", got });
}

/** Everything a refused write could have changed on a blob, as Get Blob answers it. */
export interface BlobView {
  exists: boolean;
  etag?: string;
  lastModified?: string;
  length?: number;
  /** Short digest of the content (deterministic, so a message may show it). */
  content?: string;
  blockCount?: string;
  sealed?: boolean;
  sequenceNumber?: string;
  metadata?: Record<string, string>;
}

const digest = (body: Buffer) => createHash("sha256").update(body).digest("hex").slice(0, 12);

/** The metadata an answer's x-ms-meta-* headers carry, by name (so two reads compare whatever the headers' order). */
export const metadataOf = (h: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(h)
      .filter(([k]) => k.startsWith("x-ms-meta-"))
      .map(([k, v]) => [k.slice(10), v])
      .sort(),
  );

/** Reads the blob back with one Get Blob (content and properties together). */
export async function viewOf(t: RowContext, b: BlobRef, what = "read back"): Promise<BlobView> {
  t.step(what);
  const res = await t.raw("blob", { method: "GET", path: pathOf(b) });
  if (res.status === 404) return { exists: false };
  expectRawStatus(`${what}: Get Blob`, res, { status: 200 });
  const h = res.headers;
  const metadata = metadataOf(h);
  return {
    exists: true,
    etag: h["etag"],
    lastModified: h["last-modified"],
    length: Number(h["content-length"]),
    content: digest(Buffer.from(res.body, "utf8")),
    ...(h["x-ms-blob-committed-block-count"] !== undefined ? { blockCount: h["x-ms-blob-committed-block-count"] } : {}),
    sealed: h["x-ms-blob-sealed"] === "true",
    ...(h["x-ms-blob-sequence-number"] !== undefined ? { sequenceNumber: h["x-ms-blob-sequence-number"] } : {}),
    metadata,
  };
}

/** The digest viewOf gives a content. */
export const contentDigest = (content: string) => digest(Buffer.from(content, "utf8"));

/**
 * A URL by which the target can read `b` (a From-URL operation's source): with
 * the account key, a read SAS of the blob valid for an hour from the blob's
 * Last-Modified (the server's clock); with a SAS target, the target's own SAS.
 */
export async function readableUrl(t: RowContext, b: BlobClient): Promise<string> {
  const { accountKey, sas } = t.target.credentials;
  if (sas || !accountKey) return `${b.url}${b.url.includes("?") ? "&" : "?"}${sas ?? ""}`;
  const lastModified = expectPresent(
    "Get Blob Properties (the copy source): the answer's Last-Modified",
    (await b.getProperties()).lastModified,
  );
  const query = generateBlobSASQueryParameters(
    {
      containerName: b.containerName,
      blobName: b.name,
      permissions: BlobSASPermissions.parse("r"),
      expiresOn: new Date(lastModified.getTime() + 3_600_000),
    },
    new StorageSharedKeyCredential(t.target.credentials.accountName, accountKey),
  );
  return `${b.url}?${query.toString()}`;
}
