// The file double: a small in-process HTTP server implementing the FileREST
// operations the file suite uses, following the REST reference, so that the
// file suite can run in the self-tests (Azurite has no File service). It is a
// fixture: the report never certifies it.
//
// Path-style URLs, account devstoreaccount1, Shared Key verified on every
// request. Shares, directories, files (ranges, metadata, properties), Lease
// File, List Files and Directories, List Shares, Delete, and Get File Service
// Properties for the preflight; share leases and share operations, the newer
// file operations (copies, renames, links, Put Range From URL, List Ranges)
// and the surface mutants' deviations are in extras.ts and the modules beside
// it. Flags (DoubleFlags) make it deviate in one documented way each: the
// self-tests' mutants.
import { createHash, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { sharedKeySignature, stringToSign } from "../../fixtures/wire/shared-key.ts";
import { DEV_ACCOUNT, DEV_KEY } from "../../fixtures/wire/target.ts";
import { DoubleExtras, type ExtraFlags } from "./extras.ts";

export interface DoubleFlags extends ExtraFlags {
  /** Writes on a leased file succeed without (or with any) lease ID. */
  leaseNotEnforced: boolean;
  /** A write refused for its lease ID is applied anyway (the 412 is still sent). */
  refusedWriteApplied: boolean;
  /** A wrong lease ID is answered 412 LeaseIdMissing instead of LeaseIdMismatchWithFileOperation. */
  mismatchAnsweredAsMissing: boolean;
  /** Reads of a leased file without the lease ID are refused 412 LeaseIdMissing. */
  readsNeedLease: boolean;
  /** Acquire accepts a finite duration. */
  finiteLeaseAccepted: boolean;
  /** Lease operations give the file a new ETag. */
  leaseChangesEtag: boolean;
  /** Release answers 200 but the lease stays. */
  releaseIgnored: boolean;
  /** Change answers 200 with the new ID but the old ID stays in force. */
  changeIgnored: boolean;
  /** Break answers 202 but the lease stays. */
  breakIgnored: boolean;
  /** Writes keep the file's ETag. */
  etagUnchanged: boolean;
  /** Write responses carry no ETag header. */
  etagMissing: boolean;
  /** A stale If-Match is evaluated: 412 ConditionNotMet. */
  ifMatchEvaluated: boolean;
  /** Set File Metadata merges into the existing metadata instead of replacing it. */
  metadataMerged: boolean;
  /** Deleted files stay in List Files and Directories. */
  deletedFileListed: boolean;
  /** Deleted directories stay in List Files and Directories. */
  deletedDirectoryListed: boolean;
  /** A deleted file still reads (200) for a while after the 202: a pending-delete state. */
  deletePending: boolean;
  /** The read after Create File over an existing file answers 404 (file briefly absent). */
  notFoundAfterOverwrite: boolean;
  /** A refused Delete Directory (not empty) hides the directory anyway (404). */
  refusedDeleteHides: boolean;
}

export const NO_FLAGS: DoubleFlags = {
  leaseNotEnforced: false,
  refusedWriteApplied: false,
  mismatchAnsweredAsMissing: false,
  readsNeedLease: false,
  finiteLeaseAccepted: false,
  leaseChangesEtag: false,
  releaseIgnored: false,
  changeIgnored: false,
  breakIgnored: false,
  etagUnchanged: false,
  etagMissing: false,
  ifMatchEvaluated: false,
  metadataMerged: false,
  deletedFileListed: false,
  deletedDirectoryListed: false,
  deletePending: false,
  notFoundAfterOverwrite: false,
  refusedDeleteHides: false,
};

type Meta = Record<string, string>;

interface Common {
  name: string;
  etag: string;
  lastModified: Date;
  metadata: Meta;
}

interface FileNode extends Common {
  kind: "file";
  content: Buffer;
  contentType?: string;
  contentEncoding?: string;
  contentLanguage?: string;
  cacheControl?: string;
  contentDisposition?: string;
  contentMD5?: string;
  lease: { state: "available" | "leased" | "broken"; id?: string };
  /** deletePending flag: reads still succeed until this time. */
  ghostUntil?: number;
  /** notFoundAfterOverwrite flag: the next read answers 404. */
  hideNextRead?: boolean;
}

interface DirNode extends Common {
  kind: "dir";
  children: Map<string, FileNode | DirNode>;
  hidden?: boolean;
}

interface Share extends Common {
  root: DirNode;
}

class Reply {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string> = {},
    readonly body: Buffer | string = "",
  ) {}
}

const MESSAGES: Record<string, string> = {
  AuthenticationFailed: "Server failed to authenticate the request.",
  LeaseIdMissing: "There is currently a lease on the file and no lease ID was specified in the request.",
  LeaseIdMismatchWithFileOperation: "The lease ID specified did not match the lease ID for the file.",
  LeaseNotPresentWithFileOperation: "There is currently no lease on the file.",
  LeaseAlreadyPresent: "There is already a lease present.",
  LeaseIdMismatchWithLeaseOperation: "The lease ID specified did not match the lease ID for the file.",
  LeaseNotPresentWithLeaseOperation: "There is currently no lease on the file.",
  ConditionNotMet: "The condition specified using HTTP conditional header(s) is not met.",
  DirectoryNotEmpty: "The specified directory is not empty.",
  ResourceNotFound: "The specified resource does not exist.",
  ParentNotFound: "The specified parent path does not exist.",
  ShareNotFound: "The specified share does not exist.",
  ShareAlreadyExists: "The specified share already exists.",
  ResourceAlreadyExists: "The specified resource already exists.",
  ResourceTypeMismatch: "The specified resource type does not match the type of the resource.",
  InvalidHeaderValue: "The value for one of the HTTP headers is not in the correct format.",
  MissingRequiredHeader: "An HTTP header that's mandatory for this request is not specified.",
  InvalidRange: "The range specified is invalid for the current size of the resource.",
  InvalidQueryParameterValue: "Value for one of the query parameters specified in the request URI is invalid.",
  UnsupportedHttpVerb: "The resource doesn't support the specified HTTP verb.",
};

const error = (status: number, code: string): Reply =>
  new Reply(
    status,
    { "x-ms-error-code": code, "content-type": "application/xml" },
    `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${MESSAGES[code] ?? code}</Message></Error>`,
  );

class Refusal extends Error {
  constructor(readonly reply: Reply) {
    super(reply.headers["x-ms-error-code"]);
  }
}
const refuse = (status: number, code: string): never => {
  throw new Refusal(error(status, code));
};

const xmlEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function metadataOf(headers: http.IncomingHttpHeaders): Meta {
  const out: Meta = {};
  for (const [k, v] of Object.entries(headers)) if (k.startsWith("x-ms-meta-") && typeof v === "string") out[k.slice(10)] = v;
  return out;
}

function metaHeaders(m: Meta): Record<string, string> {
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [`x-ms-meta-${k}`, v]));
}

/** bytes=a-b (either header); end clamped by the caller. */
function parseRange(v: string | undefined): { start: number; end?: number } | undefined {
  if (!v) return undefined;
  const m = /^bytes=(\d+)-(\d*)$/.exec(v.trim());
  if (!m) return refuse(400, "InvalidHeaderValue");
  return { start: Number(m[1]), end: m[2] === "" ? undefined : Number(m[2]) };
}

export interface FileDouble {
  port: number;
  /** http://127.0.0.1:<port>/devstoreaccount1 */
  endpoint: string;
  /** Connection string naming only the file endpoint. */
  connectionString: string;
  /** Requests answered, by operation (for the self-tests). */
  calls: Map<string, number>;
  stop(): Promise<void>;
}

export class FileService {
  private shares = new Map<string, Share>();
  private etagSeq = 0;
  readonly calls = new Map<string, number>();
  constructor(readonly flags: DoubleFlags = NO_FLAGS) {}

  /** Share leases and operations, the newer file operations, the surface mutants' deviations (extras.ts). */
  private added?: DoubleExtras;
  private get extras(): DoubleExtras {
    return (this.added ??= new DoubleExtras({
      shares: this.shares,
      flags: this.flags,
      newEtag: () => this.newEtag(),
      stamp: (n) => this.stamp(n),
      newFile: (name) => this.node("file", name),
      newDir: (name) => this.node("dir", name),
      guarded: (f, req, write) => this.guarded(f as FileNode, req, write),
      writeReply: (status, f, extra) => this.writeReply(status, f as FileNode, extra),
      count: (op) => this.count(op),
    }));
  }

  private newEtag(): string {
    this.etagSeq += 1;
    return `"0x8DD${(Date.now() * 16 + this.etagSeq).toString(16).toUpperCase().padStart(13, "0").slice(-13)}"`;
  }

  private stamp(n: Common, touchEtag = true): void {
    if (touchEtag && !this.flags.etagUnchanged) n.etag = this.newEtag();
    n.lastModified = new Date();
  }

  private node<K extends "file" | "dir">(kind: K, name: string): K extends "file" ? FileNode : DirNode {
    const base: Common = { name, etag: this.newEtag(), lastModified: new Date(), metadata: {} };
    return (
      kind === "file" ? { ...base, kind, content: Buffer.alloc(0), lease: { state: "available" } } : { ...base, kind, children: new Map() }
    ) as never;
  }

  private count(op: string): void {
    this.calls.set(op, (this.calls.get(op) ?? 0) + 1);
  }

  /** Verifies Shared Key: 403 AuthenticationFailed when the signature is not the account key's. */
  private authenticate(req: http.IncomingMessage, url: URL): void {
    const auth = req.headers["authorization"];
    const m = typeof auth === "string" ? /^SharedKey ([^:]+):(.+)$/.exec(auth) : null;
    if (!m || m[1] !== DEV_ACCOUNT) refuse(403, "AuthenticationFailed");
    if (!req.headers["x-ms-date"] && !req.headers["date"]) refuse(403, "AuthenticationFailed");
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(",") : v;
    const expected = sharedKeySignature(DEV_KEY, stringToSign("file", req.method ?? "GET", url, headers, DEV_ACCOUNT));
    if (expected !== m![2]) refuse(403, "AuthenticationFailed");
  }

  handle(req: http.IncomingMessage, body: Buffer): Reply {
    return this.extras.around(req, () => this.dispatch(req, body));
  }

  private dispatch(req: http.IncomingMessage, body: Buffer): Reply {
    const url = new URL(req.url ?? "/", "http://double");
    try {
      this.authenticate(req, url);
      const added = this.extras.route(req, url, body);
      if (added) return added;
      const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
      if (parts[0] !== DEV_ACCOUNT) return error(400, "InvalidQueryParameterValue");
      const q = url.searchParams;
      const [shareName, ...path] = parts.slice(1);
      if (!shareName) return this.account(req, q);
      if (q.get("restype") === "share") return this.share(req, shareName, q);
      const share = this.shares.get(shareName) ?? refuse(404, "ShareNotFound");
      if (q.get("restype") === "directory") return this.directory(req, share, path, q);
      if (path.length === 0) return error(400, "InvalidQueryParameterValue");
      return this.file(req, share, path, q, body);
    } catch (err) {
      if (err instanceof Refusal) return err.reply;
      throw err;
    }
  }

  // ---- account --------------------------------------------------------------

  private account(req: http.IncomingMessage, q: URLSearchParams): Reply {
    if (req.method === "GET" && q.get("restype") === "service" && q.get("comp") === "properties") {
      this.count("GetFileServiceProperties");
      return new Reply(
        200,
        { "content-type": "application/xml" },
        `<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><HourMetrics><Version>1.0</Version><Enabled>false</Enabled><RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></HourMetrics><MinuteMetrics><Version>1.0</Version><Enabled>false</Enabled><RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></MinuteMetrics><Cors /></StorageServiceProperties>`,
      );
    }
    if (req.method === "GET" && q.get("comp") === "list") {
      this.count("ListShares");
      const prefix = q.get("prefix") ?? "";
      const items = [...this.shares.values()]
        .filter((s) => s.name.startsWith(prefix))
        .sort((a, b) => a.name.localeCompare(b.name))
        .map(
          (s) =>
            `<Share><Name>${xmlEscape(s.name)}</Name><Properties><Last-Modified>${s.lastModified.toUTCString()}</Last-Modified><Etag>${s.etag}</Etag><Quota>5120</Quota></Properties></Share>`,
        )
        .join("");
      return new Reply(
        200,
        { "content-type": "application/xml" },
        `<?xml version="1.0" encoding="utf-8"?><EnumerationResults ServiceEndpoint="http://double/${DEV_ACCOUNT}/"><Prefix>${xmlEscape(prefix)}</Prefix><Shares>${items}</Shares><NextMarker /></EnumerationResults>`,
      );
    }
    return error(400, "InvalidQueryParameterValue");
  }

  // ---- shares ---------------------------------------------------------------

  private share(req: http.IncomingMessage, name: string, q: URLSearchParams): Reply {
    const s = this.shares.get(name);
    if (q.get("comp") === "lease") {
      // Only cleanup breaks share leases; the double never leases a share.
      this.count("LeaseShare");
      if (!s) return error(404, "ShareNotFound");
      return error(409, "LeaseNotPresentWithLeaseOperation");
    }
    switch (req.method) {
      case "PUT": {
        this.count("CreateShare");
        if (s) return error(409, "ShareAlreadyExists");
        const root = this.node("dir", "");
        this.shares.set(name, { name, etag: this.newEtag(), lastModified: new Date(), metadata: metadataOf(req.headers), root });
        const created = this.shares.get(name)!;
        return new Reply(201, { etag: created.etag, "last-modified": created.lastModified.toUTCString() });
      }
      case "DELETE":
        this.count("DeleteShare");
        if (!s) return error(404, "ShareNotFound");
        this.shares.delete(name);
        return new Reply(202);
      case "GET":
      case "HEAD":
        this.count("GetShareProperties");
        if (!s) return error(404, "ShareNotFound");
        return new Reply(200, {
          etag: s.etag,
          "last-modified": s.lastModified.toUTCString(),
          "x-ms-share-quota": "5120",
          ...metaHeaders(s.metadata),
        });
      default:
        return error(405, "UnsupportedHttpVerb");
    }
  }

  // ---- paths ----------------------------------------------------------------

  /** The directory holding path's last segment; 404 ParentNotFound when a segment is missing. */
  private parentOf(share: Share, path: string[]): DirNode {
    let dir = share.root;
    for (const seg of path.slice(0, -1)) {
      const next = dir.children.get(seg);
      if (!next || next.kind !== "dir" || next.hidden) refuse(404, "ParentNotFound");
      dir = next as DirNode;
    }
    return dir;
  }

  private visible(n: FileNode | DirNode | undefined): boolean {
    return !!n && !(n.kind === "dir" && n.hidden);
  }

  // ---- directories ----------------------------------------------------------

  private directory(req: http.IncomingMessage, share: Share, path: string[], q: URLSearchParams): Reply {
    const parent = path.length ? this.parentOf(share, path) : undefined;
    const existing = parent ? parent.children.get(path.at(-1)!) : share.root;
    const dir = existing && existing.kind === "dir" && this.visible(existing) ? existing : undefined;
    if (q.get("comp") === "list") {
      this.count("ListFilesAndDirectories");
      if (req.method !== "GET") return error(405, "UnsupportedHttpVerb");
      if (!dir) return error(404, "ResourceNotFound");
      return this.list(share, path, dir, q);
    }
    const props = (d: DirNode) => ({ etag: d.etag, "last-modified": d.lastModified.toUTCString() });
    switch (req.method) {
      case "PUT": {
        if (q.get("comp") === "metadata") {
          this.count("SetDirectoryMetadata");
          if (!dir) return error(404, "ResourceNotFound");
          dir.metadata = metadataOf(req.headers);
          this.stamp(dir);
          return new Reply(200, props(dir));
        }
        this.count("CreateDirectory");
        if (!parent) return error(409, "ResourceAlreadyExists");
        if (existing && existing.kind === "file") return error(409, "ResourceTypeMismatch");
        if (existing && this.visible(existing)) return error(409, "ResourceAlreadyExists");
        const d = this.node("dir", path.at(-1)!);
        d.metadata = metadataOf(req.headers);
        parent.children.set(d.name, d);
        return new Reply(201, props(d));
      }
      case "GET":
      case "HEAD":
        this.count("GetDirectoryProperties");
        if (!dir) return error(404, "ResourceNotFound");
        return new Reply(200, { ...props(dir), ...metaHeaders(dir.metadata) });
      case "DELETE": {
        this.count("DeleteDirectory");
        if (!parent || !dir) return error(404, "ResourceNotFound");
        const live = [...dir.children.values()].filter((c) => this.visible(c) && !(c.kind === "file" && this.isGhost(c)));
        if (live.length > 0) {
          if (this.flags.refusedDeleteHides) dir.hidden = true;
          return error(409, "DirectoryNotEmpty");
        }
        if (this.flags.deletedDirectoryListed) this.tombstones.set(dir, parent);
        parent.children.delete(dir.name);
        return new Reply(202);
      }
      default:
        return error(405, "UnsupportedHttpVerb");
    }
  }

  /** Entries deleted but still listed (deletedFileListed / deletedDirectoryListed flags), with their parent. */
  private tombstones = new Map<FileNode | DirNode, DirNode>();

  private list(share: Share, path: string[], dir: DirNode, q: URLSearchParams): Reply {
    const prefix = q.get("prefix") ?? "";
    const entries = [...dir.children.values()].filter((c) => this.visible(c) && !(c.kind === "file" && c.ghostUntil !== undefined));
    for (const [t, p] of this.tombstones) if (p === dir && !dir.children.has(t.name)) entries.push(t);
    const items = entries
      .filter((c) => c.name.startsWith(prefix))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((c) =>
        c.kind === "file"
          ? `<File><Name>${xmlEscape(c.name)}</Name><Properties><Content-Length>${c.content.length}</Content-Length></Properties></File>`
          : `<Directory><Name>${xmlEscape(c.name)}</Name><Properties /></Directory>`,
      )
      .join("");
    return new Reply(
      200,
      { "content-type": "application/xml" },
      `<?xml version="1.0" encoding="utf-8"?><EnumerationResults ServiceEndpoint="http://double/${DEV_ACCOUNT}/" ShareName="${xmlEscape(share.name)}" DirectoryPath="${xmlEscape(path.join("/"))}"><Prefix>${xmlEscape(prefix)}</Prefix><Entries>${items}</Entries><NextMarker /></EnumerationResults>`,
    );
  }

  // ---- files ----------------------------------------------------------------

  private isGhost(f: FileNode): boolean {
    return f.ghostUntil !== undefined;
  }

  private fileHeaders(f: FileNode): Record<string, string> {
    const h: Record<string, string> = {
      etag: f.etag,
      "last-modified": f.lastModified.toUTCString(),
      "x-ms-type": "File",
      "content-type": f.contentType ?? "application/octet-stream",
      "x-ms-lease-state": f.lease.state,
      "x-ms-lease-status": f.lease.state === "leased" ? "locked" : "unlocked",
      ...metaHeaders(f.metadata),
      ...this.extras.fileHeaders(f),
    };
    if (f.lease.state === "leased") h["x-ms-lease-duration"] = "infinite";
    if (f.contentEncoding) h["content-encoding"] = f.contentEncoding;
    if (f.contentLanguage) h["content-language"] = f.contentLanguage;
    if (f.cacheControl) h["cache-control"] = f.cacheControl;
    if (f.contentDisposition) h["content-disposition"] = f.contentDisposition;
    if (f.contentMD5) h["content-md5"] = f.contentMD5;
    return h;
  }

  private writeReply(status: number, f: FileNode, extra: Record<string, string> = {}): Reply {
    const h: Record<string, string> = { "last-modified": f.lastModified.toUTCString(), "x-ms-request-server-encrypted": "true", ...extra };
    if (!this.flags.etagMissing) h.etag = f.etag;
    return new Reply(status, h);
  }

  /** Lease check for a write (REST: x-ms-lease-id on Create File, Put Range, Set File Metadata/Properties, Delete File). */
  private leaseRefusal(f: FileNode, req: http.IncomingMessage): Reply | undefined {
    if (this.flags.leaseNotEnforced) return undefined;
    const id = req.headers["x-ms-lease-id"] as string | undefined;
    if (f.lease.state === "leased") {
      if (!id) return error(412, "LeaseIdMissing");
      if (id !== f.lease.id)
        return error(412, this.flags.mismatchAnsweredAsMissing ? "LeaseIdMissing" : "LeaseIdMismatchWithFileOperation");
      return undefined;
    }
    if (id) return error(412, "LeaseNotPresentWithFileOperation");
    return undefined;
  }

  /** Runs a write under the lease rule; refusedWriteApplied applies it and still refuses. */
  private guarded(f: FileNode, req: http.IncomingMessage, write: () => Reply): Reply {
    const refusal = this.leaseRefusal(f, req);
    if (!refusal) return write();
    if (this.flags.refusedWriteApplied) write();
    return refusal;
  }

  private file(req: http.IncomingMessage, share: Share, path: string[], q: URLSearchParams, body: Buffer): Reply {
    const parent = this.parentOf(share, path);
    const name = path.at(-1)!;
    const existing = parent.children.get(name);
    if (existing && existing.kind === "dir") return error(409, "ResourceTypeMismatch");
    let f = existing as FileNode | undefined;
    if (f?.ghostUntil !== undefined && Date.now() >= f.ghostUntil) {
      parent.children.delete(name);
      f = undefined;
    }
    const comp = q.get("comp");
    const ifMatch = req.headers["if-match"] as string | undefined;
    if (this.flags.ifMatchEvaluated && f && ifMatch && ifMatch !== "*" && ifMatch !== f.etag) return error(412, "ConditionNotMet");

    if (req.method === "PUT" && !comp) return this.createFile(req, parent, name, f);
    if (!f) return error(404, "ResourceNotFound");
    const ghost = f.ghostUntil !== undefined;
    switch (`${req.method} ${comp ?? ""}`) {
      case "GET ":
      case "HEAD ":
      case "GET metadata":
      case "HEAD metadata":
        return this.readFile(req, f, comp === "metadata");
      case "PUT range":
        this.count("PutRange");
        if (ghost) return error(404, "ResourceNotFound");
        return this.putRange(req, f, body);
      case "PUT metadata":
        this.count("SetFileMetadata");
        if (ghost) return error(404, "ResourceNotFound");
        return this.guarded(f, req, () => {
          const meta = metadataOf(req.headers);
          f.metadata = this.flags.metadataMerged ? { ...f.metadata, ...meta } : meta;
          this.stamp(f);
          return this.writeReply(200, f);
        });
      case "PUT properties":
        this.count("SetFileProperties");
        if (ghost) return error(404, "ResourceNotFound");
        return this.setProperties(req, f);
      case "PUT lease":
        this.count("LeaseFile");
        if (ghost) return error(404, "ResourceNotFound");
        return this.lease(req, f);
      case "DELETE ":
        this.count("DeleteFile");
        if (ghost) return error(404, "ResourceNotFound");
        return this.guarded(f, req, () => {
          if (this.flags.deletePending) {
            f.ghostUntil = Date.now() + 3000;
          } else {
            parent.children.delete(name);
            if (this.flags.deletedFileListed) this.tombstones.set(f, parent);
          }
          return new Reply(202);
        });
      default:
        return error(400, "InvalidQueryParameterValue");
    }
  }

  private createFile(req: http.IncomingMessage, parent: DirNode, name: string, existing: FileNode | undefined): Reply {
    this.count("CreateFile");
    if ((req.headers["x-ms-type"] as string | undefined)?.toLowerCase() !== "file") return error(400, "InvalidHeaderValue");
    const lengthHeader = req.headers["x-ms-content-length"] as string | undefined;
    if (lengthHeader === undefined) return error(400, "MissingRequiredHeader");
    const length = Number(lengthHeader);
    if (!Number.isInteger(length) || length < 0) return error(400, "InvalidHeaderValue");
    const write = (): Reply => {
      const f = existing && existing.ghostUntil === undefined ? existing : this.node("file", name);
      f.content = Buffer.alloc(length);
      f.metadata = metadataOf(req.headers);
      this.contentHeaders(req, f);
      if (f !== existing) parent.children.set(name, f);
      else {
        this.stamp(f);
        if (this.flags.notFoundAfterOverwrite) f.hideNextRead = true;
      }
      return this.writeReply(201, f);
    };
    if (existing && existing.ghostUntil === undefined) return this.guarded(existing, req, write);
    return write();
  }

  /** x-ms-content-* headers of Create File / Set File Properties (absent ones are cleared). */
  private contentHeaders(req: http.IncomingMessage, f: FileNode): void {
    const h = (n: string) => req.headers[n] as string | undefined;
    f.contentType = h("x-ms-content-type");
    f.contentEncoding = h("x-ms-content-encoding");
    f.contentLanguage = h("x-ms-content-language");
    f.cacheControl = h("x-ms-cache-control");
    f.contentDisposition = h("x-ms-content-disposition");
    f.contentMD5 = h("x-ms-content-md5");
  }

  private readFile(req: http.IncomingMessage, f: FileNode, metadataOnly: boolean): Reply {
    this.count(req.method === "HEAD" ? "GetFileProperties" : metadataOnly ? "GetFileMetadata" : "GetFile");
    if (f.hideNextRead) {
      f.hideNextRead = false;
      return error(404, "ResourceNotFound");
    }
    const id = req.headers["x-ms-lease-id"] as string | undefined;
    if (id && (f.lease.state !== "leased" || id !== f.lease.id)) return error(412, "LeaseIdMismatchWithFileOperation");
    if (!id && this.flags.readsNeedLease && f.lease.state === "leased") return error(412, "LeaseIdMissing");
    if (metadataOnly) return new Reply(200, { etag: f.etag, "last-modified": f.lastModified.toUTCString(), ...metaHeaders(f.metadata) });
    const headers = { ...this.fileHeaders(f), "accept-ranges": "bytes" };
    const range = parseRange((req.headers["x-ms-range"] as string | undefined) ?? (req.headers["range"] as string | undefined));
    if (!range) {
      return new Reply(200, { ...headers, "content-length": String(f.content.length) }, req.method === "HEAD" ? "" : f.content);
    }
    if (range.start >= f.content.length) return error(416, "InvalidRange");
    const end = Math.min(range.end ?? f.content.length - 1, f.content.length - 1);
    const slice = f.content.subarray(range.start, end + 1);
    return new Reply(
      206,
      { ...headers, "content-length": String(slice.length), "content-range": `bytes ${range.start}-${end}/${f.content.length}` },
      req.method === "HEAD" ? "" : slice,
    );
  }

  private putRange(req: http.IncomingMessage, f: FileNode, body: Buffer): Reply {
    const range =
      parseRange((req.headers["x-ms-range"] as string | undefined) ?? (req.headers["range"] as string | undefined)) ??
      refuse(400, "MissingRequiredHeader");
    if (range.end === undefined || range.end < range.start) return error(400, "InvalidHeaderValue");
    if (range.end >= f.content.length) return error(416, "InvalidRange");
    const mode = (req.headers["x-ms-write"] as string | undefined) ?? refuse(400, "MissingRequiredHeader");
    const length = range.end - range.start + 1;
    if (mode === "update" && body.length !== length) return error(400, "InvalidHeaderValue");
    if (mode !== "update" && mode !== "clear") return error(400, "InvalidHeaderValue");
    return this.guarded(f, req, () => {
      if (mode === "update") body.copy(f.content, range.start);
      else f.content.fill(0, range.start, range.end! + 1);
      this.stamp(f);
      return this.writeReply(201, f, mode === "update" ? { "content-md5": createHash("md5").update(body).digest("base64") } : {});
    });
  }

  private setProperties(req: http.IncomingMessage, f: FileNode): Reply {
    const lengthHeader = req.headers["x-ms-content-length"] as string | undefined;
    const length = lengthHeader === undefined ? undefined : Number(lengthHeader);
    if (length !== undefined && (!Number.isInteger(length) || length < 0)) return error(400, "InvalidHeaderValue");
    return this.guarded(f, req, () => {
      if (length !== undefined) {
        const next = Buffer.alloc(length);
        f.content.copy(next, 0, 0, Math.min(length, f.content.length));
        f.content = next;
      }
      // REST: a content header not given on Set File Properties is cleared.
      this.contentHeaders(req, f);
      this.stamp(f);
      return this.writeReply(200, f);
    });
  }

  private lease(req: http.IncomingMessage, f: FileNode): Reply {
    const action = req.headers["x-ms-lease-action"] as string | undefined;
    const id = req.headers["x-ms-lease-id"] as string | undefined;
    const proposed = req.headers["x-ms-proposed-lease-id"] as string | undefined;
    const leased = f.lease.state === "leased";
    const done = (status: number, leaseId?: string): Reply => {
      if (this.flags.leaseChangesEtag) this.stamp(f);
      const h: Record<string, string> = { etag: f.etag, "last-modified": f.lastModified.toUTCString() };
      if (leaseId) h["x-ms-lease-id"] = leaseId;
      if (action === "break") h["x-ms-lease-time"] = "0";
      return new Reply(status, h);
    };
    switch (action) {
      case "acquire": {
        const duration = req.headers["x-ms-lease-duration"] as string | undefined;
        if (duration === undefined) return error(400, "MissingRequiredHeader");
        if (duration !== "-1" && !(this.flags.finiteLeaseAccepted && /^\d+$/.test(duration))) return error(400, "InvalidHeaderValue");
        const newId = proposed ?? randomUUID();
        if (leased && f.lease.id !== newId) return error(409, "LeaseAlreadyPresent");
        f.lease = { state: "leased", id: newId };
        return done(201, newId);
      }
      case "change":
        if (!id || !proposed) return error(400, "MissingRequiredHeader");
        if (!leased) return error(409, "LeaseNotPresentWithLeaseOperation");
        if (id !== f.lease.id && proposed !== f.lease.id) return error(409, "LeaseIdMismatchWithLeaseOperation");
        if (!this.flags.changeIgnored) f.lease = { state: "leased", id: proposed };
        return done(200, proposed);
      case "release":
        if (!id) return error(400, "MissingRequiredHeader");
        if (!leased) return error(409, "LeaseNotPresentWithLeaseOperation");
        if (id !== f.lease.id) return error(409, "LeaseIdMismatchWithLeaseOperation");
        if (!this.flags.releaseIgnored) f.lease = { state: "available" };
        return done(200);
      case "break":
        if (f.lease.state === "available") return error(409, "LeaseNotPresentWithLeaseOperation");
        if (id && id !== f.lease.id) return error(409, "LeaseIdMismatchWithLeaseOperation");
        if (!this.flags.breakIgnored) f.lease = { state: "broken" };
        return done(202);
      default:
        return error(400, "InvalidHeaderValue");
    }
  }
}

/** Starts the double on a free loopback port. */
export async function startFileDouble(flags: Partial<DoubleFlags> = {}): Promise<FileDouble> {
  const service = new FileService({ ...NO_FLAGS, ...flags });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let reply: Reply;
      try {
        reply = service.handle(req, Buffer.concat(chunks));
      } catch (err) {
        reply = new Reply(500, { "x-ms-error-code": "InternalError" }, String((err as Error).stack ?? err));
      }
      const body = typeof reply.body === "string" ? Buffer.from(reply.body, "utf8") : reply.body;
      const headers: Record<string, string> = {
        "x-ms-request-id": randomUUID(),
        "x-ms-version": (req.headers["x-ms-version"] as string | undefined) ?? "2025-11-05",
        date: new Date().toUTCString(),
        server: "FileDouble/1.0 (selftest fixture)",
        ...reply.headers,
      };
      if (headers["content-length"] === undefined) headers["content-length"] = String(req.method === "HEAD" ? 0 : body.length);
      res.writeHead(reply.status, headers);
      res.end(req.method === "HEAD" ? undefined : body);
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as AddressInfo).port;
  const endpoint = `http://127.0.0.1:${port}/${DEV_ACCOUNT}`;
  return {
    port,
    endpoint,
    connectionString: `DefaultEndpointsProtocol=http;AccountName=${DEV_ACCOUNT};AccountKey=${DEV_KEY};FileEndpoint=${endpoint}`,
    calls: service.calls,
    stop: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
