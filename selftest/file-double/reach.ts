// How far a lock reaches, made to reach too far: the file double's mutants of
// catalogue S (Shares, Files), one per line of suites/file/reach-claims.ts.
// The flag names a relation a lease must leave alone and how it reaches it:
// it locks it (writes there without an ID refused), or its ID opens it (the
// leased file's ID sent there taken as if none were sent). Consulted before
// the double answers a request (extras.ts, route).
import type http from "node:http";
import { errorReply, header, type DoubleContext, type DoubleReply, type XDir, type XFile } from "./double-types.ts";
import { activeLease, type ShareLease } from "./share-lease.ts";

const leasedIn = (d: XDir): XFile[] =>
  [...d.children.values()].flatMap((c) => (c.kind === "file" ? (c.lease.state === "leased" ? [c] : []) : leasedIn(c)));

/** The node at a path of a share's tree, and its directory. */
function at(root: XDir, path: string[]): { dir?: XDir; node?: XFile | XDir } {
  let dir: XDir | undefined = root;
  for (const seg of path.slice(0, -1)) {
    const next: XFile | XDir | undefined = dir?.children.get(seg);
    dir = next?.kind === "dir" ? next : undefined;
  }
  return { dir, node: dir?.children.get(path.at(-1) ?? "") };
}

/**
 * A refusal (or an ID dropped) that a reach flag makes of a request to
 * `segs` (share, path…); undefined where the request goes on as the double
 * answers it.
 */
export function reachDeviation(
  ctx: DoubleContext,
  shareLease: (share: string) => ShareLease | undefined,
  req: http.IncomingMessage,
  segs: string[],
  q: URLSearchParams,
): DoubleReply | undefined {
  const reach = ctx.flags.reachTooFar;
  const [shareName, ...path] = segs;
  const share = ctx.shares.get(shareName ?? "");
  if (!reach || !share || q.get("comp") === "lease") return undefined;
  const write = req.method !== "GET" && req.method !== "HEAD";
  const id = header(req, "x-ms-lease-id");
  const { dir, node } = at(share.root, path);
  const unleased = node?.kind !== "file" || node.lease.state !== "leased";
  // The leased files the request's resource stands in the relation to.
  const related = (): XFile[] => {
    if (reach.relation === "share-of-file") return path.length === 0 ? leasedIn(share.root) : [];
    if (path.length === 0 || !unleased) return [];
    if (reach.relation === "file-beside")
      return [...(dir?.children.values() ?? [])].filter((c): c is XFile => c.kind === "file" && c.lease.state === "leased");
    if (reach.relation === "same-name-elsewhere")
      return [...ctx.shares.values()]
        .filter((s) => s !== share)
        .flatMap((s) => [at(s.root, path).node].filter((n): n is XFile => n?.kind === "file" && n.lease.state === "leased"));
    return [];
  };
  if (reach.how === "locks" && write && !id) {
    const lease = shareLease(shareName);
    const locked = reach.relation === "file-of-share" ? path.length > 0 && !!lease && activeLease(lease) : related().length > 0;
    if (locked) return errorReply(412, "LeaseIdMissing");
  }
  if (reach.how === "id-opens" && id && related().some((x) => x.lease.id === id)) delete req.headers["x-ms-lease-id"];
  return undefined;
}
