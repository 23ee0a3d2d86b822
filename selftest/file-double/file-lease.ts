// The file double's Lease File: acquire (infinite only, unless the
// finiteLeaseAccepted flag), change, release and break, as the Lease File
// page has them, and the flags that make the lease actions deviate (a new
// ETag, a release, change or break answered but not applied).
import { randomUUID } from "node:crypto";
import type http from "node:http";
import { error, Reply, type Core, type FileNode } from "./core.ts";

/** Answers Lease File on `f` (x-ms-lease-action). */
export function leaseFile(ctx: Core, req: http.IncomingMessage, f: FileNode): Reply {
  const action = req.headers["x-ms-lease-action"] as string | undefined;
  const id = req.headers["x-ms-lease-id"] as string | undefined;
  const proposed = req.headers["x-ms-proposed-lease-id"] as string | undefined;
  const leased = f.lease.state === "leased";
  const done = (status: number, leaseId?: string): Reply => {
    if (ctx.flags.leaseChangesEtag) ctx.stamp(f);
    const h: Record<string, string> = { etag: f.etag, "last-modified": f.lastModified.toUTCString() };
    if (leaseId) h["x-ms-lease-id"] = leaseId;
    if (action === "break") h["x-ms-lease-time"] = "0";
    return new Reply(status, h);
  };
  switch (action) {
    case "acquire": {
      const duration = req.headers["x-ms-lease-duration"] as string | undefined;
      if (duration === undefined) return error(400, "MissingRequiredHeader");
      if (duration !== "-1" && !(ctx.flags.finiteLeaseAccepted && /^\d+$/.test(duration))) return error(400, "InvalidHeaderValue");
      const newId = proposed ?? randomUUID();
      if (leased && f.lease.id !== newId) return error(409, "LeaseAlreadyPresent");
      f.lease = { state: "leased", id: newId };
      return done(201, newId);
    }
    case "change":
      if (!id || !proposed) return error(400, "MissingRequiredHeader");
      if (!leased) return error(409, "LeaseNotPresentWithLeaseOperation");
      if (id !== f.lease.id && proposed !== f.lease.id) return error(409, "LeaseIdMismatchWithLeaseOperation");
      if (!ctx.flags.changeIgnored) f.lease = { state: "leased", id: proposed };
      return done(200, proposed);
    case "release":
      if (!id) return error(400, "MissingRequiredHeader");
      if (!leased) return error(409, "LeaseNotPresentWithLeaseOperation");
      if (id !== f.lease.id) return error(409, "LeaseIdMismatchWithLeaseOperation");
      if (!ctx.flags.releaseIgnored) f.lease = { state: "available" };
      return done(200);
    case "break":
      if (f.lease.state === "available") return error(409, "LeaseNotPresentWithLeaseOperation");
      if (id && id !== f.lease.id) return error(409, "LeaseIdMismatchWithLeaseOperation");
      if (!ctx.flags.breakIgnored) f.lease = { state: "broken" };
      return done(202);
    default:
      return error(400, "InvalidHeaderValue");
  }
}
