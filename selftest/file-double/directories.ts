// The file double's paths and directories: a path's parent (404
// ParentNotFound), Create Directory, Get Directory Properties, Set Directory
// Metadata, Delete Directory (409 DirectoryNotEmpty) and List Files and
// Directories, with the entries the deletedFileListed and
// deletedDirectoryListed flags keep listed after their delete.
import type http from "node:http";
import { DEV_ACCOUNT } from "../../fixtures/wire/target.ts";
import {
  error,
  isGhost,
  metadataOf,
  metaHeaders,
  refuse,
  Reply,
  xmlEscape,
  type Core,
  type DirNode,
  type FileNode,
  type Share,
} from "./core.ts";

export class Directories {
  constructor(private readonly ctx: Core) {}

  /** The directory holding path's last segment; 404 ParentNotFound when a segment is missing. */
  parentOf(share: Share, path: string[]): DirNode {
    let dir = share.root;
    for (const seg of path.slice(0, -1)) {
      const next = dir.children.get(seg);
      if (!next || next.kind !== "dir" || next.hidden) refuse(404, "ParentNotFound");
      dir = next as DirNode;
    }
    return dir;
  }

  visible(n: FileNode | DirNode | undefined): boolean {
    return !!n && !(n.kind === "dir" && n.hidden);
  }

  // ---- directories ----------------------------------------------------------

  directory(req: http.IncomingMessage, share: Share, path: string[], q: URLSearchParams): Reply {
    const parent = path.length ? this.parentOf(share, path) : undefined;
    const existing = parent ? parent.children.get(path.at(-1)!) : share.root;
    const dir = existing && existing.kind === "dir" && this.visible(existing) ? existing : undefined;
    if (q.get("comp") === "list") {
      this.ctx.count("ListFilesAndDirectories");
      if (req.method !== "GET") return error(405, "UnsupportedHttpVerb");
      if (!dir) return error(404, "ResourceNotFound");
      return this.list(share, path, dir, q);
    }
    const props = (d: DirNode) => ({ etag: d.etag, "last-modified": d.lastModified.toUTCString() });
    switch (req.method) {
      case "PUT": {
        if (q.get("comp") === "metadata") {
          this.ctx.count("SetDirectoryMetadata");
          if (!dir) return error(404, "ResourceNotFound");
          dir.metadata = metadataOf(req.headers);
          this.ctx.stamp(dir);
          return new Reply(200, props(dir));
        }
        this.ctx.count("CreateDirectory");
        if (!parent) return error(409, "ResourceAlreadyExists");
        if (existing && existing.kind === "file") return error(409, "ResourceTypeMismatch");
        if (existing && this.visible(existing)) return error(409, "ResourceAlreadyExists");
        const d = this.ctx.newDir(path.at(-1)!);
        d.metadata = metadataOf(req.headers);
        parent.children.set(d.name, d);
        return new Reply(201, props(d));
      }
      case "GET":
      case "HEAD":
        this.ctx.count("GetDirectoryProperties");
        if (!dir) return error(404, "ResourceNotFound");
        return new Reply(200, { ...props(dir), ...metaHeaders(dir.metadata) });
      case "DELETE": {
        this.ctx.count("DeleteDirectory");
        if (!parent || !dir) return error(404, "ResourceNotFound");
        const live = [...dir.children.values()].filter((c) => this.visible(c) && !(c.kind === "file" && isGhost(c)));
        if (live.length > 0) {
          if (this.ctx.flags.refusedDeleteHides) dir.hidden = true;
          return error(409, "DirectoryNotEmpty");
        }
        if (this.ctx.flags.deletedDirectoryListed) this.tombstones.set(dir, parent);
        parent.children.delete(dir.name);
        return new Reply(202);
      }
      default:
        return error(405, "UnsupportedHttpVerb");
    }
  }

  /** Entries deleted but still listed (deletedFileListed / deletedDirectoryListed flags), with their parent. */
  readonly tombstones = new Map<FileNode | DirNode, DirNode>();

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
}
