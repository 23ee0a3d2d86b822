// The file double's share operations beyond create and delete: Get/Set Share
// Properties (quota), Get/Set Share Metadata, Get/Set Share ACL, Get Share
// Stats and Lease Share, with the share lease rule as Azure answers it
// (catalogue S, Shares): a lease locks the share's writes (Delete Share and
// the set operations: 412 LeaseIdMissing without the ID), and a share answers
// the container's codes: an ID that is not the holder's → 412
// LeaseIdMismatchWithContainerOperation, an ID on an unleased share → 412
// LeaseNotPresentWithContainerOperation, the holder's ID once its lease is
// broken → 412 LeaseLost. Create Share records its protocols
// (x-ms-enabled-protocols: SMB or NFS).
import type http from "node:http";
import { errorReply, header, reply, type DoubleContext, type DoubleReply, type Meta, type XDir, type XShare } from "./double-types.ts";
import { activeLease, leaseShare, settle, type ShareLease } from "./share-lease.ts";

interface ShareExtra {
  quota: string;
  acl: string;
  protocols: string;
  lease: ShareLease;
}

const EMPTY_ACL = '<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers />';

function metadataOf(req: http.IncomingMessage): Meta {
  const out: Meta = {};
  for (const [k, v] of Object.entries(req.headers)) if (k.startsWith("x-ms-meta-") && typeof v === "string") out[k.slice(10)] = v;
  return out;
}

const metaHeaders = (m: Meta) => Object.fromEntries(Object.entries(m).map(([k, v]) => [`x-ms-meta-${k}`, v]));

function usage(d: XDir): number {
  let n = 0;
  for (const c of d.children.values()) n += c.kind === "file" ? c.content.length : usage(c);
  return n;
}

export class ShareOps {
  private extra = new WeakMap<XShare, ShareExtra>();
  constructor(private readonly ctx: DoubleContext) {}

  private of(s: XShare): ShareExtra {
    let e = this.extra.get(s);
    if (!e) this.extra.set(s, (e = { quota: "5120", acl: EMPTY_ACL, protocols: "SMB", lease: { state: "available" } }));
    return e;
  }

  /** A share's lease, where the share exists. */
  leaseOf(name: string): ShareLease | undefined {
    const s = this.ctx.shares.get(name);
    return s && this.of(s).lease;
  }

  /** The share lease rule for an operation on the share (Lease Share aside). */
  private leaseRefusal(e: ShareExtra, req: http.IncomingMessage, isDelete: boolean): DoubleReply | undefined {
    const flags = this.ctx.flags;
    if (isDelete && flags.shareDeleteUnguarded) return undefined;
    const id = header(req, "x-ms-lease-id");
    const active = activeLease(e.lease);
    if (id !== undefined) {
      if (active) return id === e.lease.id ? undefined : errorReply(412, "LeaseIdMismatchWithContainerOperation");
      const lost = e.lease.state === "broken" && id === e.lease.id;
      if (lost) return flags.shareBrokenIdAccepted ? undefined : errorReply(412, "LeaseLost");
      return errorReply(412, "LeaseNotPresentWithContainerOperation");
    }
    const write = req.method !== "GET" && req.method !== "HEAD";
    const locked = isDelete || (write ? !flags.shareSetsUnguarded : !!flags.shareReadsNeedLease);
    if (active && locked) return errorReply(412, "LeaseIdMissing");
    return undefined;
  }

  private properties(s: XShare, e: ShareExtra): Record<string, string> {
    const l = settle(e.lease);
    const h: Record<string, string> = {
      etag: s.etag,
      "last-modified": s.lastModified.toUTCString(),
      "x-ms-share-quota": e.quota,
      "x-ms-enabled-protocols": e.protocols,
      "x-ms-lease-state": l.state,
      "x-ms-lease-status": l.state === "leased" || l.state === "breaking" ? "locked" : "unlocked",
      ...metaHeaders(s.metadata),
    };
    if (l.state === "leased") h["x-ms-lease-duration"] = l.duration === -1 ? "infinite" : "fixed";
    return h;
  }

  private create(req: http.IncomingMessage, name: string): DoubleReply {
    this.ctx.count("CreateShare");
    if (this.ctx.shares.has(name)) return errorReply(409, "ShareAlreadyExists");
    const protocols = header(req, "x-ms-enabled-protocols") ?? "SMB";
    if (protocols !== "SMB" && protocols !== "NFS") return errorReply(400, "InvalidHeaderValue");
    const s: XShare = { name, etag: this.ctx.newEtag(), lastModified: new Date(), metadata: metadataOf(req), root: this.ctx.newDir("") };
    this.ctx.shares.set(name, s);
    this.of(s).protocols = protocols;
    const quota = header(req, "x-ms-share-quota");
    if (quota !== undefined) this.of(s).quota = quota;
    return reply(201, { etag: s.etag, "last-modified": s.lastModified.toUTCString() });
  }

  private lease(req: http.IncomingMessage, s: XShare, e: ShareExtra): DoubleReply {
    this.ctx.count("LeaseShare");
    const a = leaseShare(e.lease, (n) => header(req, n), this.ctx.flags);
    if (a.code) return errorReply(a.status, a.code);
    return reply(a.status, { etag: s.etag, "last-modified": s.lastModified.toUTCString(), ...a.headers });
  }

  /** Answers a share-level request it handles (undefined: the double's own code answers it, as Delete Share once the lease allows it). */
  route(req: http.IncomingMessage, name: string, q: URLSearchParams, body: Buffer): DoubleReply | undefined {
    const comp = q.get("comp") ?? "";
    const m = req.method ?? "GET";
    if (m === "PUT" && !comp) return this.create(req, name);
    const s = this.ctx.shares.get(name);
    if (!s) return m === "DELETE" && !comp ? undefined : errorReply(404, "ShareNotFound");
    const e = this.of(s);
    if (comp === "lease") return this.lease(req, s, e);
    const refusal = this.leaseRefusal(e, req, m === "DELETE" && !comp);
    if (refusal) return refusal;
    const stamp = (): DoubleReply => {
      this.ctx.stamp(s);
      return reply(200, { etag: s.etag, "last-modified": s.lastModified.toUTCString() });
    };
    switch (`${m} ${comp}`) {
      case "DELETE ":
        return undefined;
      case "GET ":
      case "HEAD ":
        this.ctx.count("GetShareProperties");
        return reply(200, this.properties(s, e));
      case "GET metadata":
        return reply(200, { etag: s.etag, "last-modified": s.lastModified.toUTCString(), ...metaHeaders(s.metadata) });
      case "PUT metadata":
        s.metadata = metadataOf(req);
        return stamp();
      case "PUT properties": {
        const quota = header(req, "x-ms-share-quota");
        if (quota !== undefined && !/^\d+$/.test(quota)) return errorReply(400, "InvalidHeaderValue");
        if (quota !== undefined) e.quota = quota;
        return stamp();
      }
      case "GET acl":
        return reply(200, { etag: s.etag, "last-modified": s.lastModified.toUTCString(), "content-type": "application/xml" }, e.acl);
      case "PUT acl":
        e.acl = body.length ? body.toString("utf8") : EMPTY_ACL;
        return stamp();
      case "GET stats":
        return reply(
          200,
          { etag: s.etag, "last-modified": s.lastModified.toUTCString(), "content-type": "application/xml" },
          `<?xml version="1.0" encoding="utf-8"?><ShareStats><ShareUsageBytes>${usage(s.root)}</ShareUsageBytes></ShareStats>`,
        );
      default:
        return errorReply(400, "InvalidQueryParameterValue");
    }
  }
}
