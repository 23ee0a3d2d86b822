// What the file double's added operations (extras.ts and the modules beside
// it) see of the double (server.ts): its tree, as structural types, its
// replies, the hooks it lends them, and the flags that make them deviate.
import type { FileRelation } from "../../suites/file/reach-claims.ts";
import type http from "node:http";

export type Meta = Record<string, string>;

export interface XCommon {
  name: string;
  etag: string;
  lastModified: Date;
  metadata: Meta;
}

export interface XFile extends XCommon {
  kind: "file";
  content: Buffer;
  lease: { state: "available" | "leased" | "broken"; id?: string };
}

export interface XDir extends XCommon {
  kind: "dir";
  children: Map<string, XFile | XDir>;
  hidden?: boolean;
}

export interface XShare extends XCommon {
  root: XDir;
}

/** A reply, the shape of server.ts's Reply. */
export interface DoubleReply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer | string;
}

export const reply = (status: number, headers: Record<string, string> = {}, body: Buffer | string = ""): DoubleReply => ({
  status,
  headers,
  body,
});

/** An error reply in the service's form (x-ms-error-code and an XML body). */
export const errorReply = (status: number, code: string): DoubleReply =>
  reply(
    status,
    { "x-ms-error-code": code, "content-type": "application/xml" },
    `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`,
  );

/** How a generated mutant deviates on one (operation, parameter) pair of the surface. */
export interface Deviation {
  /** As catalogue/surface.tsv names it (the request classifier's name, with the lease action). */
  operation: string;
  parameter: string;
  /**
   * ignored: the double acts as if the parameter were absent; wrong-refusal: a
   * request carrying it that the double refuses gets another status;
   * holding-refused: every request carrying it is refused with `refusal`.
   */
  how: "ignored" | "wrong-refusal" | "holding-refused";
  refusal?: { status: number; code: string };
}

/** The flags of the added operations (all off by default); each makes the double deviate in one documented way. */
export interface ExtraFlags {
  /** A pair of the surface the double deviates on. */
  deviation?: Deviation;
  /** A cell of the share lease table (action as suites/blob/lease-table.ts names it, lease state) answered the other way. */
  shareLeaseCell?: { action: string; state: string };
  /** Lease Share acquire accepts any duration. */
  shareDurationUnchecked?: boolean;
  /** Lease Share break accepts any period. */
  shareBreakPeriodUnchecked?: boolean;
  /** Delete Share ignores the share's lease. */
  shareDeleteUnguarded?: boolean;
  /** A share lease locks the share's reads too: they need the lease ID on a leased share (412 LeaseIdMissing without it). */
  shareReadsNeedLease?: boolean;
  /** A share lease locks deletion only: the set operations need no lease ID on a leased share. */
  shareSetsUnguarded?: boolean;
  /** The holder's ID on a share whose lease was broken is taken as if the lease held (200, not 412 LeaseLost). */
  shareBrokenIdAccepted?: boolean;
  /**
   * A lease reaches what it must leave alone (suites/file/reach-claims.ts): "locks", writes there without a
   * lease ID → 412 LeaseIdMissing; "id-opens", the leased file's ID sent there is taken as if none were sent
   * (not 412 LeaseNotPresentWithFileOperation).
   */
  reachTooFar?: { relation: FileRelation; how: "locks" | "id-opens" };
  /** An ID on a file that holds no lease is answered 412 LeaseIdMismatchWithFileOperation, not LeaseNotPresentWithFileOperation. */
  unleasedIdMismatch?: boolean;
  /** One operation (as the double counts it: "PutRange") ignores a lease ID on a file that holds no lease. */
  unleasedIdIgnoredOn?: string;
  /** A released share lease keeps its ID: renew with it leases the share again. */
  shareReleaseKeepsId?: boolean;
}

/** What the double lends its added operations. */
export interface DoubleContext {
  readonly shares: Map<string, XShare>;
  readonly flags: ExtraFlags;
  newEtag(): string;
  stamp(n: XCommon): void;
  newFile(name: string): XFile;
  newDir(name: string): XDir;
  /** Runs a write on a file under its lease (x-ms-lease-id), as the double's own writes. */
  guarded(f: XFile, req: http.IncomingMessage, write: () => DoubleReply): DoubleReply;
  writeReply(status: number, f: XFile, extra?: Record<string, string>): DoubleReply;
  count(op: string): void;
  /** The operation under way, as last counted. */
  current(): string | undefined;
}

export const header = (req: http.IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

export const isGuid = (v: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v);
