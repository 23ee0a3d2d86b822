// The subject a surface row works on and how it is read back, for the file
// service's surface (surface-ops.ts, surface-rules.ts): a share, a file in
// it, the lease IDs A (the holder), B (another)
// and C (the next), a source another operation reads, and every request sent
// raw so the parameter is on the wire.
import { randomUUID } from "node:crypto";
import { FileSASPermissions, generateFileSASQueryParameters, StorageSharedKeyCredential } from "@azure/storage-file-share";
import { expectRawStatus } from "../../../fixtures/harness/assert.ts";
import type { RowContext } from "../../../fixtures/harness/engine.ts";
import type { RawRequest, RawResponse } from "../../../fixtures/wire/raw.ts";
import { notAvailable } from "../../../fixtures/wire/signals.ts";
import { metadataOf } from "../../blob/rest-kit.ts";
import { fill, SIZE } from "../file-kit.ts";

/** The content every subject file starts with, and a source's. */
export const CONTENT = fill("o");
export const SOURCE_CONTENT = fill("s");
/** A source large enough that a copy of it may still be pending when Abort Copy File comes (4 MiB, never written: zeros). */
export const BIG = 4 * 1024 * 1024;

export type Resource = "file" | "share";

export interface Subject {
  share: string;
  /** The file the operation acts on: a rename's source, a hard link's target (none for a share). */
  path: string[];
  /** A second path: a rename's destination, a hard link's path. */
  other: string[];
  /** The file the subject's lease is on. */
  leased: string[];
  /** A = the holder's ID, B = another, C = the next (a change's proposed ID). */
  holder: string;
  another: string;
  next: string;
  /** The lease is held by A (the runner acquires it before the first case on a leased subject). */
  leasedNow: boolean;
  /** A file another operation reads: its path and a URL the target can read it by. */
  source?: { path: string[]; url: string; content: string };
  /** Abort Copy File: the copy started onto the subject. */
  copyId?: string;
  /** The URL of a path of the share (a rename's x-ms-file-rename-source). */
  url(path: string[]): string;
}

/** What a refused request could have changed, as read back (the ETag compared apart, so messages carry none). */
export interface State {
  exists: boolean;
  etag?: string;
  content?: string;
  metadata?: Record<string, string>;
  leaseState?: string;
  leaseDuration?: string;
  quota?: string;
  acl?: string[];
  copyStatus?: string;
  linkText?: string;
  /** Which of A and C the lease answers to ("none": neither). */
  heldBy?: "holder" | "next" | "none";
  /** The second path: whether it exists, and its content. */
  otherExists?: boolean;
  otherContent?: string;
}

export const enc = (segs: string[]) => segs.map(encodeURIComponent).join("/");
export const sharePath = (s: Subject) => `/${s.share}`;
export const pathOf = (s: Subject, segs: string[]) => `/${s.share}/${enc(segs)}`;
const SHARE = { restype: "share" };

/** Headers of a request: `null` leaves a header out. */
export type Headers = Record<string, string | null>;
export const headers = (h: Headers): Record<string, string> =>
  Object.fromEntries(Object.entries(h).filter((e): e is [string, string] => e[1] !== null));

/** Creates the row's share (SMB, or NFS for the NFS-only operations: NOT_AVAILABLE where the target cannot make one). */
async function newShare(t: RowContext, nfs: boolean): Promise<string> {
  const share = t.name("s");
  t.step(nfs ? "create an NFS share (setup)" : "create a share (setup)");
  const res = await t.raw("file", {
    method: "PUT",
    path: `/${share}`,
    query: SHARE,
    headers: { "x-ms-meta-state": "original", ...(nfs ? { "x-ms-enabled-protocols": "NFS" } : {}) },
  });
  if (nfs && res.status >= 400 && res.status < 500) {
    notAvailable(
      `the target cannot make an NFS share (Create Share with x-ms-enabled-protocols: NFS answered ${res.status} ${res.errorCode ?? ""}); the operation is NFS-only`,
    );
  }
  expectRawStatus("Create Share (setup)", res, { status: 201 });
  if (nfs) {
    const props = await t.raw("file", { method: "GET", path: `/${share}`, query: SHARE });
    const protocols = props.headers["x-ms-enabled-protocols"];
    if (protocols !== "NFS")
      notAvailable(`the share is not an NFS share (x-ms-enabled-protocols: ${protocols ?? "none"}); the operation is NFS-only`);
  }
  return share;
}

/** Creates a file of `length` bytes holding `content` (when given), with metadata state=original. */
export async function putFile(t: RowContext, share: string, segs: string[], content?: string, length = SIZE): Promise<RawResponse> {
  const path = `/${share}/${enc(segs)}`;
  const created = await t.raw("file", {
    method: "PUT",
    path,
    headers: { "x-ms-type": "file", "x-ms-content-length": String(length), "x-ms-meta-state": "original" },
  });
  expectRawStatus("Create File (setup)", created, { status: 201 });
  if (content === undefined) return created;
  const put = await t.raw("file", {
    method: "PUT",
    path,
    query: { comp: "range" },
    headers: { "x-ms-range": `bytes=0-${Buffer.byteLength(content) - 1}`, "x-ms-write": "update" },
    body: content,
  });
  expectRawStatus("Put Range (setup)", put, { status: 201 });
  return put;
}

/** A URL by which the target can read a file of the share: a read SAS valid for an hour from the file's Last-Modified (server time), or the target's own SAS. */
function readableUrl(t: RowContext, s: Subject, segs: string[], lastModified: string | undefined): string {
  const { accountName, accountKey, sas } = t.target.credentials;
  const url = s.url(segs);
  if (sas || !accountKey) return `${url}?${sas ?? ""}`;
  const from = Date.parse(lastModified ?? "");
  const query = generateFileSASQueryParameters(
    {
      shareName: s.share,
      filePath: segs.join("/"),
      permissions: FileSASPermissions.parse("r"),
      expiresOn: new Date((Number.isFinite(from) ? from : Date.now()) + 3_600_000),
    },
    new StorageSharedKeyCredential(accountName, accountKey),
  );
  return `${url}?${query.toString()}`;
}

export interface SubjectNeeds {
  resource: Resource;
  /** An NFS share (the NFS-only operations). */
  nfs?: boolean;
  /** A source file: "small" holds SOURCE_CONTENT, "big" is BIG bytes. */
  source?: "small" | "big";
}

/** Setup on an NFS share: a file REST operation the target refuses there (a 4xx) makes the row NOT_AVAILABLE. */
async function onTheShare<T>(nfs: boolean, setup: Promise<T>): Promise<T> {
  try {
    return await setup;
  } catch (err) {
    if (nfs && (err as { name?: string }).name === "AssertionError") {
      notAvailable(`the target refused the setup on its NFS share (${(err as Error).message}); the operation is NFS-only`);
    }
    throw err;
  }
}

/** The subject of a row: a share; a file holding CONTENT; the IDs; a source. */
export async function newSubject(t: RowContext, needs: SubjectNeeds): Promise<Subject> {
  const share = await newShare(t, !!needs.nfs);
  const base = t.target.endpoints.file!.replace(/\/+$/, "");
  const path = needs.resource === "share" ? [] : [t.name("f")];
  const s: Subject = {
    share,
    path,
    other: [t.name("f")],
    leased: path,
    holder: randomUUID(),
    another: randomUUID(),
    next: randomUUID(),
    leasedNow: false,
    url: (segs) => `${base}/${share}/${enc(segs)}`,
  };
  if (needs.resource !== "share") await onTheShare(!!needs.nfs, putFile(t, share, s.leased, CONTENT));
  if (needs.source) {
    const src = [t.name("f")];
    const big = needs.source === "big";
    const res = await putFile(t, share, src, big ? undefined : SOURCE_CONTENT, big ? BIG : SIZE);
    s.source = { path: src, url: readableUrl(t, s, src, res.headers["last-modified"]), content: big ? "" : SOURCE_CONTENT };
  }
  return s;
}

/** Acquires the subject's lease for A (`duration`: -1 or seconds). */
export async function leaseSubject(t: RowContext, s: Subject, resource: Resource, duration = -1): Promise<void> {
  t.step("acquire the lease with ID A (setup)");
  const onShare = resource === "share";
  const res = await t.raw("file", {
    method: "PUT",
    path: onShare ? sharePath(s) : pathOf(s, s.leased),
    query: onShare ? { restype: "share", comp: "lease" } : { comp: "lease" },
    headers: { "x-ms-lease-action": "acquire", "x-ms-lease-duration": String(duration), "x-ms-proposed-lease-id": s.holder },
  });
  expectRawStatus(`Lease ${onShare ? "Share" : "File"} acquire (setup)`, res, { status: 201 });
  s.leasedNow = true;
}

const get = (t: RowContext, req: RawRequest) => t.raw("file", req);

/** Reads a file: exists, ETag, lease, metadata, copy status, content (a large file's length only). */
async function readFileAt(t: RowContext, s: Subject, segs: string[]): Promise<State> {
  const head = await get(t, { method: "HEAD", path: pathOf(s, segs) });
  if (head.status === 404) return { exists: false };
  expectRawStatus("Get File Properties (read back)", head, { status: 200 });
  const h = head.headers;
  const length = Number(h["content-length"] ?? "0");
  const body = length > 0 && length <= 1024 ? (await get(t, { method: "GET", path: pathOf(s, segs) })).body : `(${length} bytes)`;
  return {
    exists: true,
    etag: h["etag"],
    content: body,
    metadata: metadataOf(h),
    leaseState: h["x-ms-lease-state"],
    leaseDuration: h["x-ms-lease-duration"],
    ...(h["x-ms-copy-status"] ? { copyStatus: h["x-ms-copy-status"] } : {}),
  };
}

/** Reads the share: exists, ETag, metadata, quota, lease (and its ACL's identifiers when asked). */
async function readShare(t: RowContext, s: Subject, acl: boolean): Promise<State> {
  const res = await get(t, { method: "GET", path: sharePath(s), query: SHARE });
  if (res.status === 404) return { exists: false };
  expectRawStatus("Get Share Properties (read back)", res, { status: 200 });
  const h = res.headers;
  const out: State = {
    exists: true,
    etag: h["etag"],
    metadata: metadataOf(h),
    quota: h["x-ms-share-quota"],
    leaseState: h["x-ms-lease-state"],
    leaseDuration: h["x-ms-lease-duration"],
  };
  if (acl) {
    const got = await get(t, { method: "GET", path: sharePath(s), query: { ...SHARE, comp: "acl" } });
    expectRawStatus("Get Share ACL (read back)", got, { status: 200 });
    out.acl = [...got.body.matchAll(/<Id>([^<]*)<\/Id>/g)].map((m) => m[1]).sort();
  }
  return out;
}

/** Which of A and C the lease answers to: a read of the resource with each ID (200 only for the holder's). */
async function heldBy(t: RowContext, s: Subject, resource: Resource): Promise<State["heldBy"]> {
  for (const [who, id] of [
    ["holder", s.holder],
    ["next", s.next],
  ] as const) {
    const res =
      resource === "share"
        ? await get(t, { method: "GET", path: sharePath(s), query: SHARE, headers: { "x-ms-lease-id": id } })
        : await get(t, { method: "HEAD", path: pathOf(s, s.leased), headers: { "x-ms-lease-id": id } });
    if (res.status === 200) return who;
  }
  return "none";
}

export interface ReadOptions {
  resource: Resource;
  /** Also read: the ACL, who holds the lease, the second path, the symbolic link. */
  acl?: boolean;
  holder?: boolean;
  other?: boolean;
  link?: boolean;
}

/** Reads back everything the row's operation could change. */
export async function readState(t: RowContext, s: Subject, o: ReadOptions): Promise<State> {
  const state = o.resource === "share" ? await readShare(t, s, !!o.acl) : await readFileAt(t, s, s.path);
  if (o.holder && state.exists) state.heldBy = await heldBy(t, s, o.resource);
  if (o.other) {
    const other = await readFileAt(t, s, s.other);
    state.otherExists = other.exists;
    if (other.exists) state.otherContent = other.content;
  }
  if (o.link) {
    const link = await get(t, { method: "GET", path: pathOf(s, s.path), query: { restype: "symboliclink" } });
    if (link.status === 200) state.linkText = link.headers["x-ms-link-text"];
  }
  return state;
}

/** What a refusal must leave as it was, without the ETag (compared apart). */
export const durable = ({ etag: _etag, ...rest }: State) => rest;
