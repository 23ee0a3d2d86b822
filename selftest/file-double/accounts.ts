// The file double's account-level and share-level operations: Get File
// Service Properties (the preflight's), List Shares, Create Share, Delete
// Share, Get Share Properties, and Lease Share (refused: the double's own code
// never leases a share; share leases are share-ops.ts's).
import type http from "node:http";
import { DEV_ACCOUNT } from "../../fixtures/wire/target.ts";
import { error, metadataOf, metaHeaders, Reply, xmlEscape, type Core } from "./core.ts";

export class AccountOps {
  constructor(private readonly ctx: Core) {}

  /** Requests on the account (no share in the path). */
  account(req: http.IncomingMessage, q: URLSearchParams): Reply {
    if (req.method === "GET" && q.get("restype") === "service" && q.get("comp") === "properties") {
      this.ctx.count("GetFileServiceProperties");
      return new Reply(
        200,
        { "content-type": "application/xml" },
        `<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><HourMetrics><Version>1.0</Version><Enabled>false</Enabled><RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></HourMetrics><MinuteMetrics><Version>1.0</Version><Enabled>false</Enabled><RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></MinuteMetrics><Cors /></StorageServiceProperties>`,
      );
    }
    if (req.method === "GET" && q.get("comp") === "list") {
      this.ctx.count("ListShares");
      const prefix = q.get("prefix") ?? "";
      const items = [...this.ctx.shares.values()]
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

  /** Requests on a share (restype=share). */
  share(req: http.IncomingMessage, name: string, q: URLSearchParams): Reply {
    const s = this.ctx.shares.get(name);
    if (q.get("comp") === "lease") {
      // Only cleanup breaks share leases; the double never leases a share.
      this.ctx.count("LeaseShare");
      if (!s) return error(404, "ShareNotFound");
      return error(409, "LeaseNotPresentWithLeaseOperation");
    }
    switch (req.method) {
      case "PUT": {
        this.ctx.count("CreateShare");
        if (s) return error(409, "ShareAlreadyExists");
        const root = this.ctx.newDir("");
        this.ctx.shares.set(name, { name, etag: this.ctx.newEtag(), lastModified: new Date(), metadata: metadataOf(req.headers), root });
        const created = this.ctx.shares.get(name)!;
        return new Reply(201, { etag: created.etag, "last-modified": created.lastModified.toUTCString() });
      }
      case "DELETE":
        this.ctx.count("DeleteShare");
        if (!s) return error(404, "ShareNotFound");
        this.ctx.shares.delete(name);
        return new Reply(202);
      case "GET":
      case "HEAD":
        this.ctx.count("GetShareProperties");
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
}
