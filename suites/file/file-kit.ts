// File helpers shared by the file suites: make a file in a known state, read it
// back (content, ETag, metadata, lease), list a directory, and send FileREST
// requests raw for the headers the SDK does not expose (If-Match).
import type { ShareDirectoryClient, ShareFileClient, ShareServiceClient } from "@azure/storage-file-share";
import { expectNotEvaluated, expectRefused, expectSent } from "../../fixtures/harness/assert.ts";
import { currentEvidence } from "../../fixtures/wire/evidence.ts";
import type { RowContext } from "../../fixtures/harness/engine.ts";
import type { MatrixPlace } from "../../model/matrix.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";

export const fileSource = (rest: string) => `seed: file section; REST: ${rest}`;

/** Every file the suites make has this size; contents are written whole. */
export const SIZE = 8;
export const fill = (ch: string) => ch.repeat(SIZE);

export interface FileState {
  content: string;
  etag: string;
  lastModified: Date;
  metadata: Record<string, string>;
  contentType?: string;
  size: number;
  leaseState?: string;
  leaseStatus?: string;
  leaseDuration?: string;
}

export async function newDirectory(t: RowContext): Promise<ShareDirectoryClient> {
  const share = await t.newShare();
  return share.rootDirectoryClient;
}

/** A file of SIZE bytes holding `content`, with metadata {state: original}. */
export async function newFile(t: RowContext, content = fill("o"), dir?: ShareDirectoryClient): Promise<ShareFileClient> {
  const d = dir ?? (await newDirectory(t));
  const f = d.getFileClient(t.name("f"));
  await f.create(SIZE, { metadata: { state: "original" }, fileHttpHeaders: { fileContentType: "text/original" } });
  await f.uploadRange(content, 0, SIZE);
  return f;
}

/** The same file seen through another, independent client (own pipeline and connections). */
export function viaClient(service: ShareServiceClient, f: ShareFileClient): ShareFileClient {
  return service.getShareClient(f.shareName).rootDirectoryClient.getFileClient(f.path);
}

export function dirViaClient(service: ShareServiceClient, d: ShareDirectoryClient): ShareDirectoryClient {
  const share = service.getShareClient(d.shareName);
  return d.path ? share.getDirectoryClient(d.path) : share.rootDirectoryClient;
}

/** Reads content, ETag, Last-Modified, metadata, size, content type and lease back from the target. */
export async function readFile(f: ShareFileClient): Promise<FileState> {
  const props = await f.getProperties();
  const size = props.contentLength ?? 0;
  const body = size > 0 ? await f.downloadToBuffer(0, size) : Buffer.alloc(0);
  return {
    content: body.toString("utf8"),
    etag: props.etag!,
    lastModified: props.lastModified!,
    metadata: props.metadata ?? {},
    contentType: props.contentType,
    size,
    leaseState: props.leaseState,
    leaseStatus: props.leaseStatus,
    leaseDuration: props.leaseDuration,
  };
}

/** Get File (whole file, one request), body read to the end. */
export async function getFile(f: ShareFileClient): Promise<{ etag?: string; body: string }> {
  const res = await f.download(0);
  const chunks: Buffer[] = [];
  for await (const c of res.readableStreamBody ?? []) chunks.push(Buffer.from(c as Buffer));
  return { etag: res.etag, body: Buffer.concat(chunks).toString("utf8") };
}

/** What a refused write must leave as it was (the ETag is compared apart, so messages carry no ETag). */
export const durable = (s: FileState) => ({ content: s.content, metadata: s.metadata, contentType: s.contentType, size: s.size });

/** Names of the entries directly in a directory (files and directories). */
export async function listNames(d: ShareDirectoryClient): Promise<string[]> {
  const out: string[] = [];
  for await (const e of d.listFilesAndDirectories()) out.push(e.name);
  return out.sort();
}

/** Path of a file or directory below the file endpoint, for raw requests. */
export const rawPath = (x: ShareFileClient | ShareDirectoryClient) =>
  `/${x.shareName}${x.path ? "/" + x.path.split("/").map(encodeURIComponent).join("/") : ""}`;

/** Asserts a read is refused with 404 ResourceNotFound. */
export function expectNotFound(what: string, op: Promise<unknown>) {
  return expectRefused(what, op, { status: 404, code: "ResourceNotFound" });
}

export interface RawOp {
  method: string;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * Sends a FileREST request raw with a failing conditional header, checks the
 * header went on the wire and was not evaluated (neither 304 nor 412), and
 * records whether the target ignored it or rejected it as unsupported.
 */
export async function sendNotEvaluated(
  t: RowContext,
  what: string,
  path: string,
  op: RawOp,
  header: string,
  value: string,
): Promise<{ outcome: "ignored" | "rejected"; res: RawResponse }> {
  t.step(`${what} with failing ${header}`);
  const res = await t.raw("file", {
    method: op.method,
    path,
    query: op.query,
    body: op.body,
    headers: { ...(op.headers ?? {}), [header]: value },
  });
  expectSent(what, currentEvidence()!.exchanges.at(-1)!.requestHeaders, header);
  const outcome = expectNotEvaluated(`${what} with a failing ${header}`, res.status);
  t.note(`${what} / ${header}`, outcome === "ignored" ? `ignored (${res.status})` : `rejected (400 ${res.errorCode ?? ""})`.trim());
  return { outcome, res };
}

/** Raw Put Range covering the whole file. */
export const putRangeOp = (content: string, headers: Record<string, string> = {}): RawOp => ({
  method: "PUT",
  query: { comp: "range" },
  headers: { "x-ms-range": `bytes=0-${Buffer.byteLength(content) - 1}`, "x-ms-write": "update", ...headers },
  body: content,
});

/** Raw Set File Metadata (replaces all metadata). */
export const setMetadataOp = (meta: Record<string, string>, headers: Record<string, string> = {}): RawOp => ({
  method: "PUT",
  query: { comp: "metadata" },
  headers: { ...Object.fromEntries(Object.entries(meta).map(([k, v]) => [`x-ms-meta-${k}`, v])), ...headers },
});

/** The seed's file section, a line per claim of the report's F table, in the article's order: the line and what it claims. */
export const FILE_LINES = {
  "last-writer-wins": { label: "REST writes are unconditional: last writer wins, If-Match not evaluated", claim: "Yes" },
  etag: { label: "Create File, Put Range, Set File Metadata/Properties return a new ETag", claim: "Yes" },
  "delete-atomic": { label: "Delete File / Delete Directory commit at once (404, unlisted)", claim: "Yes" },
  "not-found-only-when-deleted": { label: "404 only once the file or directory is deleted", claim: "Yes" },
  lease: { label: "Lease File: infinite only; writes without the lease ID → 412", claim: "412 LeaseIdMissing" },
  "sharing-violation": { label: "SMB handle with share mode None, then REST", claim: "409 SharingViolation" },
  "delete-pending": { label: "SMB delete pending, then REST", claim: "409 SMBDeletePending" },
} as const;

/** A row's line in the report's F table (model/matrix.ts). */
export const fileCell = (line: keyof typeof FILE_LINES): MatrixPlace[] => [
  { section: "F", row: FILE_LINES[line].label, column: "claim", claim: FILE_LINES[line].claim },
];

/** The requests of the file operations the lease rows claim answers for, on a placeholder file (the request classifier names them). */
export const FILE_REQUEST = {
  create: { method: "PUT", path: "/s/f", headers: { "x-ms-type": "file" } },
  "put-range": { method: "PUT", path: "/s/f", query: { comp: "range" } },
  "set-metadata": { method: "PUT", path: "/s/f", query: { comp: "metadata" } },
  "set-properties": { method: "PUT", path: "/s/f", query: { comp: "properties" } },
  delete: { method: "DELETE", path: "/s/f" },
  get: { method: "GET", path: "/s/f" },
  "get-properties": { method: "HEAD", path: "/s/f" },
  lease: (action: string) => ({ method: "PUT", path: "/s/f", query: { comp: "lease" }, headers: { "x-ms-lease-action": action } }),
} as const;
