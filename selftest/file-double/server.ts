// The file double: a small in-process HTTP server implementing the FileREST
// operations the file suite uses, following the REST reference, so that the
// file suite can run in the self-tests (Azurite has no File service). It is a
// fixture: the report never certifies it.
//
// Path-style URLs, account devstoreaccount1, Shared Key verified on every
// request. Shares, directories, files (ranges, metadata, properties), Lease
// File, List Files and Directories, List Shares, Delete, and Get File Service
// Properties for the preflight: the account and shares in accounts.ts, paths
// and directories in directories.ts, files in files.ts, Lease File in
// file-lease.ts, what they share in core.ts. Share leases and share
// operations, the newer file operations (copies, renames, links, Put Range
// From URL, List Ranges) and the surface mutants' deviations are in extras.ts
// and the modules beside it. Flags (DoubleFlags, flags.ts) make it deviate in
// one documented way each: the self-tests' mutants.
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { sharedKeySignature, stringToSign } from "../../fixtures/wire/shared-key.ts";
import { DEV_ACCOUNT, DEV_KEY } from "../../fixtures/wire/target.ts";
import { AccountOps } from "./accounts.ts";
import { error, refuse, Refusal, Reply, type Common, type Core, type DirNode, type FileNode, type Share } from "./core.ts";
import { Directories } from "./directories.ts";
import { DoubleExtras } from "./extras.ts";
import { Files } from "./files.ts";
import { NO_FLAGS, type DoubleFlags } from "./flags.ts";

export { NO_FLAGS, type DoubleFlags } from "./flags.ts";

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
  /** The double's own operations (accounts.ts, directories.ts, files.ts). */
  private readonly accounts: AccountOps;
  private readonly dirs: Directories;
  private readonly files: Files;
  constructor(readonly flags: DoubleFlags = NO_FLAGS) {
    const core: Core = {
      shares: this.shares,
      flags,
      newEtag: () => this.newEtag(),
      stamp: (n, touchEtag) => this.stamp(n, touchEtag),
      newFile: (name) => this.node("file", name),
      newDir: (name) => this.node("dir", name),
      count: (op) => this.count(op),
      current: () => this.current,
      extraFileHeaders: (f) => this.extras.fileHeaders(f),
    };
    this.accounts = new AccountOps(core);
    this.dirs = new Directories(core);
    this.files = new Files(core, this.dirs);
  }

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
      guarded: (f, req, write) => this.files.guarded(f as FileNode, req, write),
      writeReply: (status, f, extra) => this.files.writeReply(status, f as FileNode, extra),
      count: (op) => this.count(op),
      current: () => this.current,
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

  /** The operation under way, as last counted. */
  private current?: string;

  private count(op: string): void {
    this.current = op;
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
      if (!shareName) return this.accounts.account(req, q);
      if (q.get("restype") === "share") return this.accounts.share(req, shareName, q);
      const share = this.shares.get(shareName) ?? refuse(404, "ShareNotFound");
      if (q.get("restype") === "directory") return this.dirs.directory(req, share, path, q);
      if (path.length === 0) return error(400, "InvalidQueryParameterValue");
      return this.files.file(req, share, path, q, body);
    } catch (err) {
      if (err instanceof Refusal) return err.reply;
      throw err;
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
