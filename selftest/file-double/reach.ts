// How far a lock reaches, made to reach too far: the file double's mutants of
// catalogue S (Shares, Files). Each flag lets one lease lock (or open) what
// it must leave alone: a share lease its files, a file lease its share or the
// other files of its directory, a file's lease ID taken on another file.
// Consulted before the double answers a request (extras.ts, route).
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
  const f = ctx.flags;
  const [shareName, ...path] = segs;
  const share = ctx.shares.get(shareName ?? "");
  if (!share || q.get("comp") === "lease") return undefined;
  const write = req.method !== "GET" && req.method !== "HEAD";
  const id = header(req, "x-ms-lease-id");
  const onShare = path.length === 0;
  if (onShare) {
    if (f.fileLeaseLocksShare && write && !id && leasedIn(share.root).length) return errorReply(412, "LeaseIdMissing");
    return undefined;
  }
  const { dir, node } = at(share.root, path);
  const unleased = node?.kind !== "file" || node.lease.state !== "leased";
  const lease = shareLease(shareName);
  if (f.shareLeaseLocksFiles && write && !id && lease && activeLease(lease)) return errorReply(412, "LeaseIdMissing");
  const leasedSibling = [...(dir?.children.values() ?? [])].some((c) => c.kind === "file" && c.lease.state === "leased");
  if (f.fileLeaseLocksSiblings && write && !id && unleased && leasedSibling) return errorReply(412, "LeaseIdMissing");
  if (f.fileLeaseIdOpensOthers && id && unleased && [...ctx.shares.values()].some((s) => leasedIn(s.root).some((x) => x.lease.id === id)))
    delete req.headers["x-ms-lease-id"];
  return undefined;
}
