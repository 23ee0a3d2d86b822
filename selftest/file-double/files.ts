// The file double's file operations: Create File, Get File (ranges), Get File
// Properties and Metadata, Put Range (update, clear), Set File Metadata, Set
// File Properties and Delete File, with the file lease rule on writes
// (x-ms-lease-id) and the flags' deviations on them. Lease File is
// file-lease.ts's.
import { createHash } from "node:crypto";
import type http from "node:http";
import { error, metadataOf, metaHeaders, parseRange, refuse, Reply, type Core, type DirNode, type FileNode, type Share } from "./core.ts";
import type { Directories } from "./directories.ts";
import { leaseFile } from "./file-lease.ts";

export class Files {
  constructor(
    private readonly ctx: Core,
    private readonly dirs: Directories,
  ) {}

  private fileHeaders(f: FileNode): Record<string, string> {
    const h: Record<string, string> = {
      etag: f.etag,
      "last-modified": f.lastModified.toUTCString(),
      "x-ms-type": "File",
      "content-type": f.contentType ?? "application/octet-stream",
      "x-ms-lease-state": f.lease.state,
      "x-ms-lease-status": f.lease.state === "leased" ? "locked" : "unlocked",
      ...metaHeaders(f.metadata),
      ...this.ctx.extraFileHeaders(f),
    };
    if (f.lease.state === "leased") h["x-ms-lease-duration"] = "infinite";
    if (f.contentEncoding) h["content-encoding"] = f.contentEncoding;
    if (f.contentLanguage) h["content-language"] = f.contentLanguage;
    if (f.cacheControl) h["cache-control"] = f.cacheControl;
    if (f.contentDisposition) h["content-disposition"] = f.contentDisposition;
    if (f.contentMD5) h["content-md5"] = f.contentMD5;
    return h;
  }

  writeReply(status: number, f: FileNode, extra: Record<string, string> = {}): Reply {
    const h: Record<string, string> = { "last-modified": f.lastModified.toUTCString(), "x-ms-request-server-encrypted": "true", ...extra };
    if (!this.ctx.flags.etagMissing) h.etag = f.etag;
    return new Reply(status, h);
  }

  /** Lease check for a write (REST: x-ms-lease-id on Create File, Put Range, Set File Metadata/Properties, Delete File). */
  private leaseRefusal(f: FileNode, req: http.IncomingMessage): Reply | undefined {
    if (this.ctx.flags.leaseNotEnforced) return undefined;
    const id = req.headers["x-ms-lease-id"] as string | undefined;
    if (f.lease.state === "leased") {
      if (!id) return error(412, "LeaseIdMissing");
      if (id !== f.lease.id)
        return error(412, this.ctx.flags.mismatchAnsweredAsMissing ? "LeaseIdMissing" : "LeaseIdMismatchWithFileOperation");
      return undefined;
    }
    if (id && this.ctx.flags.unleasedIdIgnoredOn !== this.ctx.current())
      return error(412, this.ctx.flags.unleasedIdMismatch ? "LeaseIdMismatchWithFileOperation" : "LeaseNotPresentWithFileOperation");
    return undefined;
  }

  /** Runs a write under the lease rule; refusedWriteApplied applies it and still refuses. */
  guarded(f: FileNode, req: http.IncomingMessage, write: () => Reply): Reply {
    const refusal = this.leaseRefusal(f, req);
    if (!refusal) return write();
    if (this.ctx.flags.refusedWriteApplied) write();
    return refusal;
  }

  file(req: http.IncomingMessage, share: Share, path: string[], q: URLSearchParams, body: Buffer): Reply {
    const parent = this.dirs.parentOf(share, path);
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
    if (this.ctx.flags.ifMatchEvaluated && f && ifMatch && ifMatch !== "*" && ifMatch !== f.etag) return error(412, "ConditionNotMet");

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
        this.ctx.count("PutRange");
        if (ghost) return error(404, "ResourceNotFound");
        return this.putRange(req, f, body);
      case "PUT metadata":
        this.ctx.count("SetFileMetadata");
        if (ghost) return error(404, "ResourceNotFound");
        return this.guarded(f, req, () => {
          const meta = metadataOf(req.headers);
          f.metadata = this.ctx.flags.metadataMerged ? { ...f.metadata, ...meta } : meta;
          this.ctx.stamp(f);
          return this.writeReply(200, f);
        });
      case "PUT properties":
        this.ctx.count("SetFileProperties");
        if (ghost) return error(404, "ResourceNotFound");
        return this.setProperties(req, f);
      case "PUT lease":
        this.ctx.count("LeaseFile");
        if (ghost) return error(404, "ResourceNotFound");
        return leaseFile(this.ctx, req, f);
      case "DELETE ":
        this.ctx.count("DeleteFile");
        if (ghost) return error(404, "ResourceNotFound");
        return this.guarded(f, req, () => {
          if (this.ctx.flags.deletePending) {
            f.ghostUntil = Date.now() + 3000;
          } else {
            parent.children.delete(name);
            if (this.ctx.flags.deletedFileListed) this.dirs.tombstones.set(f, parent);
          }
          return new Reply(202);
        });
      default:
        return error(400, "InvalidQueryParameterValue");
    }
  }

  private createFile(req: http.IncomingMessage, parent: DirNode, name: string, existing: FileNode | undefined): Reply {
    this.ctx.count("CreateFile");
    if ((req.headers["x-ms-type"] as string | undefined)?.toLowerCase() !== "file") return error(400, "InvalidHeaderValue");
    const lengthHeader = req.headers["x-ms-content-length"] as string | undefined;
    if (lengthHeader === undefined) return error(400, "MissingRequiredHeader");
    const length = Number(lengthHeader);
    if (!Number.isInteger(length) || length < 0) return error(400, "InvalidHeaderValue");
    const write = (): Reply => {
      const f = existing && existing.ghostUntil === undefined ? existing : this.ctx.newFile(name);
      f.content = Buffer.alloc(length);
      f.metadata = metadataOf(req.headers);
      this.contentHeaders(req, f);
      if (f !== existing) parent.children.set(name, f);
      else {
        this.ctx.stamp(f);
        if (this.ctx.flags.notFoundAfterOverwrite) f.hideNextRead = true;
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
    this.ctx.count(req.method === "HEAD" ? "GetFileProperties" : metadataOnly ? "GetFileMetadata" : "GetFile");
    if (f.hideNextRead) {
      f.hideNextRead = false;
      return error(404, "ResourceNotFound");
    }
    const id = req.headers["x-ms-lease-id"] as string | undefined;
    if (id && f.lease.state !== "leased" && this.ctx.flags.unleasedIdIgnoredOn !== this.ctx.current())
      return error(412, this.ctx.flags.unleasedIdMismatch ? "LeaseIdMismatchWithFileOperation" : "LeaseNotPresentWithFileOperation");
    if (id && id !== f.lease.id) return error(412, "LeaseIdMismatchWithFileOperation");
    if (!id && this.ctx.flags.readsNeedLease && f.lease.state === "leased") return error(412, "LeaseIdMissing");
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
      this.ctx.stamp(f);
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
      this.ctx.stamp(f);
      return this.writeReply(200, f);
    });
  }
}
