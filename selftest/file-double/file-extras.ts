// The file double's file operations beyond the suite's first ones: List
// Ranges, Put Range From URL (with the source CRC64 conditions), Copy File
// and Abort Copy File, Rename File and Rename Directory (x-ms-source-lease-id
// on a leased source), Create Hard Link and Create/Get Symbolic Link (simple
// operations, whatever the share's protocol). A copy from a source of 1 MiB
// or more stays pending for 30 s, so Abort Copy File has one to abort.
import { randomUUID } from "node:crypto";
import type http from "node:http";
import { DEV_ACCOUNT } from "../../fixtures/wire/target.ts";
import { crc64Header } from "../../suites/file/surface/crc64.ts";
import {
  errorReply,
  header,
  isGuid,
  reply,
  type DoubleContext,
  type DoubleReply,
  type XDir,
  type XFile,
  type XShare,
} from "./double-types.ts";

interface Copy {
  id: string;
  status: "pending" | "success" | "aborted";
  until?: number;
}

const PENDING_FROM = 1024 * 1024;
const PENDING_MS = 30_000;

interface Place {
  share: XShare;
  parent: XDir;
  name: string;
  node?: XFile | XDir;
}

function range(v: string | undefined): { start: number; end: number } | undefined {
  const m = v ? /^bytes=(\d+)-(\d+)$/.exec(v.trim()) : null;
  return m ? { start: Number(m[1]), end: Number(m[2]) } : undefined;
}

export class FileExtras {
  private copies = new WeakMap<XFile, Copy>();
  private links = new WeakMap<XFile, string>();
  constructor(private readonly ctx: DoubleContext) {}

  /** Where `segs` (below the account: share, directories…, name) is; undefined when the share or a parent is missing. */
  private place(segs: string[]): Place | undefined {
    const [shareName, ...path] = segs;
    const share = this.ctx.shares.get(shareName ?? "");
    if (!share || path.length === 0) return undefined;
    let dir = share.root;
    for (const seg of path.slice(0, -1)) {
      const next = dir.children.get(seg);
      if (!next || next.kind !== "dir") return undefined;
      dir = next;
    }
    const name = path.at(-1)!;
    return { share, parent: dir, name, node: dir.children.get(name) };
  }

  /** The file a URL of this account names (a copy source, a rename source), whatever its host and query. */
  private placeOfUrl(url: string | undefined): Place | undefined {
    if (!url) return undefined;
    let parts: string[];
    try {
      parts = new URL(url).pathname.split("/").filter(Boolean).map(decodeURIComponent);
    } catch {
      return undefined;
    }
    return this.place(parts[0] === DEV_ACCOUNT ? parts.slice(1) : parts);
  }

  /** x-ms-copy-id and x-ms-copy-status of a file a copy was made onto (Get File Properties). */
  fileHeaders(f: XFile): Record<string, string> {
    const c = this.copies.get(f);
    if (!c) return {};
    if (c.status === "pending" && c.until !== undefined && Date.now() >= c.until) c.status = "success";
    return { "x-ms-copy-id": c.id, "x-ms-copy-status": c.status };
  }

  /** Answers a file-level request it handles, or undefined. */
  route(req: http.IncomingMessage, segs: string[], q: URLSearchParams): DoubleReply | undefined {
    const m = req.method ?? "GET";
    const comp = q.get("comp") ?? "";
    const restype = q.get("restype") ?? "";
    const at = () => this.place(segs) ?? errorReply(404, "ParentNotFound");
    if (m === "PUT" && restype === "directory" && comp === "rename") return this.rename(req, at(), "dir");
    if (restype === "directory" || segs.length < 2) return undefined;
    if (m === "PUT" && restype === "hardlink") return this.hardLink(req, at());
    if (restype === "symboliclink") return m === "PUT" ? this.symlink(req, at()) : this.readLink(at());
    if (m === "PUT" && comp === "rename") return this.rename(req, at(), "file");
    if (m === "PUT" && comp === "lease") {
      const proposed = header(req, "x-ms-proposed-lease-id");
      return proposed !== undefined && !isGuid(proposed) ? errorReply(400, "InvalidHeaderValue") : undefined;
    }
    if (m === "GET" && comp === "rangelist") return this.listRanges(req, at());
    if (m === "PUT" && comp === "range" && header(req, "x-ms-copy-source")) return this.putRangeFromUrl(req, at());
    if (m === "PUT" && comp === "copy") return this.abortCopy(req, at());
    if (m === "PUT" && !comp && !restype && header(req, "x-ms-copy-source")) return this.copy(req, at());
    return undefined;
  }

  private fileAt(p: Place | DoubleReply): XFile | DoubleReply {
    if ("status" in p) return p;
    return p.node?.kind === "file" ? p.node : errorReply(404, "ResourceNotFound");
  }

  private listRanges(req: http.IncomingMessage, p: Place | DoubleReply): DoubleReply {
    this.ctx.count("ListRanges");
    const f = this.fileAt(p);
    if ("status" in f) return f;
    // As Get File: an ID on a file without a lease is not present (live: .NET, List Ranges), another ID a mismatch.
    const id = header(req, "x-ms-lease-id");
    if (id !== undefined && f.lease.state !== "leased" && this.ctx.flags.unleasedIdIgnoredOn !== "ListRanges")
      return errorReply(412, this.ctx.flags.unleasedIdMismatch ? "LeaseIdMismatchWithFileOperation" : "LeaseNotPresentWithFileOperation");
    if (id !== undefined && f.lease.state === "leased" && id !== f.lease.id) return errorReply(412, "LeaseIdMismatchWithFileOperation");
    const n = f.content.length;
    const ranges = n > 0 ? `<Range><Start>0</Start><End>${n - 1}</End></Range>` : "";
    return reply(
      200,
      { etag: f.etag, "last-modified": f.lastModified.toUTCString(), "x-ms-content-length": String(n), "content-type": "application/xml" },
      `<?xml version="1.0" encoding="utf-8"?><Ranges>${ranges}</Ranges>`,
    );
  }

  private putRangeFromUrl(req: http.IncomingMessage, p: Place | DoubleReply): DoubleReply {
    this.ctx.count("PutRangeFromURL");
    const f = this.fileAt(p);
    if ("status" in f) return f;
    const src = this.placeOfUrl(header(req, "x-ms-copy-source"))?.node;
    if (src?.kind !== "file") return errorReply(404, "CannotVerifyCopySource");
    const to = range(header(req, "x-ms-range"));
    const from = range(header(req, "x-ms-source-range"));
    if (!to || !from || to.end - to.start !== from.end - from.start || header(req, "x-ms-write") !== "update") {
      return errorReply(400, "InvalidHeaderValue");
    }
    if (to.end >= f.content.length || from.end >= src.content.length) return errorReply(416, "InvalidRange");
    const bytes = Buffer.from(src.content.subarray(from.start, from.end + 1));
    return this.ctx.guarded(f, req, () => {
      const match = header(req, "x-ms-source-if-match-crc64");
      const noneMatch = header(req, "x-ms-source-if-none-match-crc64");
      const crc = crc64Header(bytes);
      if ((match !== undefined && match !== crc) || (noneMatch !== undefined && noneMatch === crc))
        return errorReply(412, "Crc64ConditionNotMet");
      bytes.copy(f.content, to.start);
      this.ctx.stamp(f);
      return this.ctx.writeReply(201, f);
    });
  }

  private copy(req: http.IncomingMessage, p: Place | DoubleReply): DoubleReply {
    this.ctx.count("CopyFile");
    if ("status" in p) return p;
    const src = this.placeOfUrl(header(req, "x-ms-copy-source"))?.node;
    if (src?.kind !== "file") return errorReply(404, "CannotVerifyCopySource");
    if (p.node?.kind === "dir") return errorReply(409, "ResourceTypeMismatch");
    const write = (f: XFile) => (): DoubleReply => {
      const c: Copy = { id: randomUUID(), status: src.content.length >= PENDING_FROM ? "pending" : "success" };
      if (c.status === "pending") c.until = Date.now() + PENDING_MS;
      f.content = Buffer.from(src.content);
      f.metadata = { ...src.metadata };
      this.copies.set(f, c);
      if (!p.parent.children.has(p.name)) p.parent.children.set(p.name, f);
      this.ctx.stamp(f);
      return this.ctx.writeReply(202, f, { "x-ms-copy-id": c.id, "x-ms-copy-status": c.status });
    };
    if (p.node?.kind === "file") return this.ctx.guarded(p.node, req, write(p.node));
    return write(this.ctx.newFile(p.name))();
  }

  private abortCopy(req: http.IncomingMessage, p: Place | DoubleReply): DoubleReply {
    this.ctx.count("AbortCopyFile");
    const f = this.fileAt(p);
    if ("status" in f) return f;
    if (header(req, "x-ms-copy-action") !== "abort") return errorReply(400, "InvalidHeaderValue");
    return this.ctx.guarded(f, req, () => {
      this.fileHeaders(f);
      const c = this.copies.get(f);
      if (!c || c.status !== "pending") return errorReply(409, "NoPendingCopyOperation");
      if (c.id !== new URL(req.url ?? "/", "http://double").searchParams.get("copyid")) return errorReply(409, "CopyIdMismatch");
      c.status = "aborted";
      f.content = Buffer.alloc(0);
      return reply(204);
    });
  }

  /** x-ms-source-lease-id against the leased files the rename moves: the source file, or those inside the source directory. */
  private sourceLeaseRefusal(node: XFile | XDir, id: string | undefined): DoubleReply | undefined {
    const leased: XFile[] = [];
    const walk = (n: XFile | XDir) => (n.kind === "file" ? n.lease.state === "leased" && leased.push(n) : n.children.forEach(walk));
    walk(node);
    if (leased.length === 0) return id === undefined ? undefined : errorReply(412, "LeaseNotPresentWithFileOperation");
    if (id === undefined) return errorReply(412, "LeaseIdMissing");
    return leased.every((f) => f.lease.id === id) ? undefined : errorReply(412, "LeaseIdMismatchWithFileOperation");
  }

  private rename(req: http.IncomingMessage, p: Place | DoubleReply, kind: "file" | "dir"): DoubleReply {
    this.ctx.count(kind === "file" ? "RenameFile" : "RenameDirectory");
    if ("status" in p) return p;
    const src = this.placeOfUrl(header(req, "x-ms-file-rename-source"));
    if (!src?.node || src.node.kind !== kind || src.share !== p.share) return errorReply(404, "ResourceNotFound");
    if (p.node && header(req, "x-ms-file-rename-replace-if-exists") !== "true") return errorReply(409, "ResourceAlreadyExists");
    const refusal = this.sourceLeaseRefusal(src.node, header(req, "x-ms-source-lease-id"));
    if (refusal) return refusal;
    const node = src.node;
    src.parent.children.delete(src.name);
    node.name = p.name;
    p.parent.children.set(p.name, node);
    return reply(200, { etag: node.etag, "last-modified": node.lastModified.toUTCString() });
  }

  private hardLink(req: http.IncomingMessage, p: Place | DoubleReply): DoubleReply {
    this.ctx.count("CreateHardLink");
    if ("status" in p) return p;
    const target = this.place([p.share.name, ...(header(req, "x-ms-file-target-file") ?? "").split("/").filter(Boolean)])?.node;
    if (target?.kind !== "file") return errorReply(404, "ResourceNotFound");
    if (p.node) return errorReply(409, "ResourceAlreadyExists");
    return this.ctx.guarded(target, req, () => {
      const link = this.ctx.newFile(p.name);
      link.content = target.content;
      link.metadata = { ...target.metadata };
      p.parent.children.set(p.name, link);
      return this.ctx.writeReply(201, link);
    });
  }

  private symlink(req: http.IncomingMessage, p: Place | DoubleReply): DoubleReply {
    this.ctx.count("CreateSymbolicLink");
    if ("status" in p) return p;
    const text = header(req, "x-ms-link-text");
    if (!text) return errorReply(400, "MissingRequiredHeader");
    if (p.node?.kind === "dir") return errorReply(409, "ResourceTypeMismatch");
    const make = (): DoubleReply => {
      const link = this.ctx.newFile(p.name);
      this.links.set(link, text);
      p.parent.children.set(p.name, link);
      return this.ctx.writeReply(201, link);
    };
    return p.node ? this.ctx.guarded(p.node, req, make) : make();
  }

  private readLink(p: Place | DoubleReply): DoubleReply {
    const f = this.fileAt(p);
    if ("status" in f) return f;
    const text = this.links.get(f);
    return text === undefined ? errorReply(400, "InvalidResourceName") : reply(200, { etag: f.etag, "x-ms-link-text": text });
  }
}
