// What the file double's own operations (accounts.ts, directories.ts,
// files.ts, file-lease.ts) share with server.ts: its tree (shares, directories,
// files), its replies and refusals in the service's error form, the request
// helpers (metadata, ranges), and the hooks FileService lends them (Core).
import type http from "node:http";
import type { DoubleFlags } from "./flags.ts";

export type Meta = Record<string, string>;

export interface Common {
  name: string;
  etag: string;
  lastModified: Date;
  metadata: Meta;
}

export interface FileNode extends Common {
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

export interface DirNode extends Common {
  kind: "dir";
  children: Map<string, FileNode | DirNode>;
  hidden?: boolean;
}

export interface Share extends Common {
  root: DirNode;
}

export class Reply {
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

export const error = (status: number, code: string): Reply =>
  new Reply(
    status,
    { "x-ms-error-code": code, "content-type": "application/xml" },
    `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${MESSAGES[code] ?? code}</Message></Error>`,
  );

export class Refusal extends Error {
  constructor(readonly reply: Reply) {
    super(reply.headers["x-ms-error-code"]);
  }
}
export const refuse = (status: number, code: string): never => {
  throw new Refusal(error(status, code));
};

export const xmlEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

export function metadataOf(headers: http.IncomingHttpHeaders): Meta {
  const out: Meta = {};
  for (const [k, v] of Object.entries(headers)) if (k.startsWith("x-ms-meta-") && typeof v === "string") out[k.slice(10)] = v;
  return out;
}

export function metaHeaders(m: Meta): Record<string, string> {
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [`x-ms-meta-${k}`, v]));
}

/** bytes=a-b (either header); end clamped by the caller. */
export function parseRange(v: string | undefined): { start: number; end?: number } | undefined {
  if (!v) return undefined;
  const m = /^bytes=(\d+)-(\d*)$/.exec(v.trim());
  if (!m) return refuse(400, "InvalidHeaderValue");
  return { start: Number(m[1]), end: m[2] === "" ? undefined : Number(m[2]) };
}

/** A file deleted with the deletePending flag, still readable until its time is up. */
export const isGhost = (f: FileNode): boolean => f.ghostUntil !== undefined;

/** What FileService lends its operation modules. */
export interface Core {
  readonly shares: Map<string, Share>;
  readonly flags: DoubleFlags;
  newEtag(): string;
  stamp(n: Common, touchEtag?: boolean): void;
  newFile(name: string): FileNode;
  newDir(name: string): DirNode;
  count(op: string): void;
  /** The operation under way, as last counted (an operation's request is handled at once, no await between). */
  current(): string | undefined;
  /** The added operations' headers of a file (extras.ts: its copy's ID and status). */
  extraFileHeaders(f: FileNode): Record<string, string>;
}
