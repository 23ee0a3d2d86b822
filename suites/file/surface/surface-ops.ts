// The file service's operations of the surface (catalogue S), one record each:
// the subject it needs, the raw request that performs it (the parameter
// under test among its headers), its success status and what a permitted
// request leaves behind (a write) or answers (a read). surface-rules.ts gives
// each (operation, parameter) pair its cases; surface.rows.ts runs them.
import type { RawRequest, RawResponse } from "../../../fixtures/wire/raw.ts";
import { crc64Header } from "./crc64.ts";
import {
  CONTENT,
  headers,
  pathOf,
  sharePath,
  SOURCE_CONTENT,
  type Headers,
  type ReadOptions,
  type State,
  type Subject,
  type SubjectNeeds,
} from "./surface-kit.ts";

export interface Effect {
  /** What the read back shows after a permitted request (for the failure message). */
  what: string;
  holds(a: { after: State; res: RawResponse; s: Subject; parameter: string; value: string | null; round: number }): boolean;
}

export interface SurfaceOp extends SubjectNeeds {
  operation: string;
  /** A read needs no lease ID on a leased resource; a write, a delete and a lease action do. */
  kind: "read" | "write" | "delete" | "lease";
  /** The status a permitted request answers. */
  ok: number;
  /** The subject's lease: its duration (default -1), and whether it is taken before the cases (default yes). */
  leaseDuration?: number;
  /** The raw request; `h` (the case's parameter) overrides its headers, `round` makes each permitted write's effect its own. */
  request(s: Subject, h: Headers, round: number): RawRequest;
  effect: Effect;
  /** What the state read back includes beyond the resource's own properties. */
  reads?: Omit<ReadOptions, "resource">;
  /** Work after the lease is taken: Abort Copy File starts the copy it aborts. */
  afterLease?: "pending-copy";
  /** A permitted request starts work the read back must wait for (a copy). */
  settles?: boolean;
}

const file = (s: Subject, req: Omit<RawRequest, "path">, h: Headers): RawRequest => ({
  ...req,
  path: pathOf(s, s.path),
  headers: headers({ ...(req.headers as Headers), ...h }),
});
const share = (s: Subject, comp: string | undefined, req: Omit<RawRequest, "path" | "query">, h: Headers): RawRequest => ({
  ...req,
  path: sharePath(s),
  query: { restype: "share", ...(comp ? { comp } : {}) },
  headers: headers({ ...(req.headers as Headers), ...h }),
});
const range = `bytes=0-${CONTENT.length - 1}`;
export const LINK_TEXT = "surface-link-target";
const aclBody = (id: string) =>
  `<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers><SignedIdentifier><Id>${id}</Id><AccessPolicy><Start>2030-01-01T00:00:00.0000000Z</Start><Expiry>2030-01-02T00:00:00.0000000Z</Expiry><Permission>r</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>`;

const fileRead = (operation: string, req: (s: Subject, h: Headers) => RawRequest, effect: Effect): SurfaceOp => ({
  operation,
  resource: "file",
  kind: "read",
  ok: 200,
  request: req,
  effect,
});

export const FILE_OPS: SurfaceOp[] = [
  fileRead("Get File", (s, h) => file(s, { method: "GET" }, h), {
    what: "the answer carries the file's content",
    holds: ({ res }) => res.body === CONTENT,
  }),
  fileRead("Get File Properties", (s, h) => file(s, { method: "HEAD" }, h), {
    what: "the answer carries the file's length",
    holds: ({ res }) => res.headers["content-length"] === String(CONTENT.length),
  }),
  fileRead("List Ranges", (s, h) => file(s, { method: "GET", query: { comp: "rangelist" } }, h), {
    what: "the answer lists the file's range 0–7",
    holds: ({ res }) => /<Start>0<\/Start>\s*<End>7<\/End>/.test(res.body),
  }),
  {
    operation: "Put Range From URL",
    resource: "file",
    kind: "write",
    ok: 201,
    source: "small",
    request: (s, h) =>
      file(
        s,
        {
          method: "PUT",
          query: { comp: "range" },
          headers: { "x-ms-range": range, "x-ms-source-range": range, "x-ms-copy-source": s.source!.url, "x-ms-write": "update" },
        },
        h,
      ),
    effect: { what: "the file holds the source's bytes", holds: ({ after }) => after.content === SOURCE_CONTENT },
  },
  {
    operation: "Copy File",
    resource: "file",
    kind: "write",
    ok: 202,
    source: "small",
    settles: true,
    request: (s, h) => file(s, { method: "PUT", headers: { "x-ms-copy-source": s.source!.url } }, h),
    effect: {
      what: "the copy succeeded and the file holds the source's bytes",
      holds: ({ after }) => after.copyStatus === "success" && after.content === SOURCE_CONTENT,
    },
  },
  {
    operation: "Abort Copy File",
    resource: "file",
    kind: "write",
    ok: 204,
    source: "big",
    afterLease: "pending-copy",
    request: (s, h) => file(s, { method: "PUT", query: { comp: "copy", copyid: s.copyId! }, headers: { "x-ms-copy-action": "abort" } }, h),
    effect: { what: "the copy is aborted", holds: ({ after }) => after.copyStatus === "aborted" },
  },
  {
    operation: "Create Hard Link",
    resource: "file",
    kind: "write",
    ok: 201,
    nfs: true,
    reads: { other: true },
    request: (s, h) => ({
      method: "PUT",
      path: pathOf(s, s.other),
      query: { restype: "hardlink" },
      headers: headers({ "x-ms-type": "file", "x-ms-file-target-file": s.path.join("/"), ...h }),
    }),
    effect: { what: "the link reads as the file", holds: ({ after }) => after.otherExists === true && after.otherContent === CONTENT },
  },
  {
    operation: "Create Symbolic Link",
    resource: "file",
    kind: "write",
    ok: 201,
    nfs: true,
    reads: { link: true },
    request: (s, h) => file(s, { method: "PUT", query: { restype: "symboliclink" }, headers: { "x-ms-link-text": LINK_TEXT } }, h),
    effect: { what: "the path is a symbolic link with the link text sent", holds: ({ after }) => after.linkText === LINK_TEXT },
  },
  {
    operation: "Rename File",
    resource: "file",
    kind: "write",
    ok: 200,
    reads: { other: true },
    request: (s, h) => ({
      method: "PUT",
      path: pathOf(s, s.other),
      query: { comp: "rename" },
      headers: headers({ "x-ms-file-rename-source": s.url(s.path), ...h }),
    }),
    effect: {
      what: "the source is gone and the destination holds its content",
      holds: ({ after }) => !after.exists && after.otherExists === true && after.otherContent === CONTENT,
    },
  },
];

const shareOp = (
  operation: string,
  kind: SurfaceOp["kind"],
  ok: number,
  req: (s: Subject, h: Headers, round: number) => RawRequest,
  effect: Effect,
  reads?: SurfaceOp["reads"],
): SurfaceOp => ({ operation, resource: "share", kind, ok, request: req, effect, ...(reads ? { reads } : {}) });

export const SHARE_OPS: SurfaceOp[] = [
  shareOp("Delete Share", "delete", 202, (s, h) => share(s, undefined, { method: "DELETE" }, h), {
    what: "the share is gone",
    holds: ({ after }) => !after.exists,
  }),
  shareOp("Get Share Properties", "read", 200, (s, h) => share(s, undefined, { method: "GET" }, h), {
    what: "the answer carries the share's quota",
    holds: ({ res }) => res.headers["x-ms-share-quota"] !== undefined,
  }),
  shareOp(
    "Set Share Properties",
    "write",
    200,
    (s, h, round) => share(s, "properties", { method: "PUT", headers: { "x-ms-share-quota": String(10 + round) } }, h),
    { what: "the quota is the one sent", holds: ({ after, round }) => after.quota === String(10 + round) },
  ),
  shareOp(
    "Set Share Metadata",
    "write",
    200,
    (s, h, round) => share(s, "metadata", { method: "PUT", headers: { "x-ms-meta-round": String(round) } }, h),
    { what: "the metadata is the one sent", holds: ({ after, round }) => after.metadata?.round === String(round) },
  ),
  shareOp("Get Share ACL", "read", 200, (s, h) => share(s, "acl", { method: "GET" }, h), {
    what: "the answer is the share's ACL",
    holds: ({ res }) => res.body.includes("SignedIdentifiers"),
  }),
  shareOp(
    "Set Share ACL",
    "write",
    200,
    (s, h, round) => share(s, "acl", { method: "PUT", headers: { "content-type": "application/xml" }, body: aclBody(`round${round}`) }, h),
    { what: "the ACL is the one sent", holds: ({ after, round }) => JSON.stringify(after.acl) === JSON.stringify([`round${round}`]) },
    { acl: true },
  ),
  shareOp("Get Share Stats", "read", 200, (s, h) => share(s, "stats", { method: "GET" }, h), {
    what: "the answer carries the share's usage",
    holds: ({ res }) => /<ShareUsageBytes>\d+<\/ShareUsageBytes>/.test(res.body),
  }),
];

const lease = (s: Subject, resource: "file" | "share", action: string, base: Headers, h: Headers): RawRequest => ({
  method: "PUT",
  path: resource === "share" ? sharePath(s) : pathOf(s, s.path),
  query: resource === "share" ? { restype: "share", comp: "lease" } : { comp: "lease" },
  headers: headers({ "x-ms-lease-action": action, ...base, ...h }),
});

const leaseOp = (
  resource: "file" | "share",
  action: string,
  ok: number,
  base: (s: Subject) => Headers,
  effect: Effect,
  leaseDuration?: number,
): SurfaceOp => ({
  operation: `Lease ${resource === "share" ? "Share" : "File"} (${action})`,
  resource,
  kind: "lease",
  ok,
  reads: { holder: true },
  request: (s, h) => lease(s, resource, action, base(s), h),
  effect,
  ...(leaseDuration !== undefined ? { leaseDuration } : {}),
});

const heldBy = (who: State["heldBy"], what: string): Effect => ({
  what,
  holds: ({ after }) => after.leaseState === "leased" && after.heldBy === who,
});
const released: Effect = { what: "the lease is released", holds: ({ after }) => after.leaseState === "available" };
const broken: Effect = { what: "the lease is broken", holds: ({ after }) => after.leaseState === "broken" };
const changed = heldBy("next", "the lease answers to the proposed ID");

export const LEASE_OPS: SurfaceOp[] = (["file", "share"] as const).flatMap((r) => [
  leaseOp(r, "change", 200, (s) => ({ "x-ms-lease-id": s.holder, "x-ms-proposed-lease-id": s.next }), changed),
  leaseOp(r, "release", 200, (s) => ({ "x-ms-lease-id": s.holder }), released),
  leaseOp(r, "break", 202, (): Headers => (r === "share" ? { "x-ms-lease-break-period": "0" } : {}), broken),
  ...(r === "share"
    ? [
        leaseOp(r, "renew", 200, (s) => ({ "x-ms-lease-id": s.holder }), heldBy("holder", "the lease is held by A"), 60),
        leaseOp(r, "acquire", 201, (s) => ({ "x-ms-lease-duration": "-1", "x-ms-proposed-lease-id": s.holder }), {
          what: "the lease is held by A for the duration sent",
          holds: ({ after, parameter, value }) =>
            after.leaseState === "leased" &&
            after.heldBy === "holder" &&
            after.leaseDuration === (parameter !== "x-ms-lease-duration" || value === "-1" ? "infinite" : "fixed"),
        }),
      ]
    : []),
]);

export const OPS: SurfaceOp[] = [...FILE_OPS, ...SHARE_OPS, ...LEASE_OPS];

export function opNamed(operation: string): SurfaceOp {
  const op = OPS.find((o) => o.operation === operation);
  if (!op) throw new Error(`no surface operation record for ${operation}`);
  return op;
}

/** A CRC64 header value for the source's bytes, or for other bytes. */
export const crcOf = (which: "source" | "other") => crc64Header(which === "source" ? SOURCE_CONTENT : CONTENT);
