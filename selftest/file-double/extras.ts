// The file double's added operations (share-ops.ts, file-extras.ts) and the
// generated mutants' deviation on one (operation, parameter) pair of the
// surface, behind two hooks server.ts calls: `route` answers a request it
// handles once the request is authenticated, `around` wraps every answer.
import type http from "node:http";
import { operationOf } from "../../fixtures/wire/operations.ts";
import { DEV_ACCOUNT } from "../../fixtures/wire/target.ts";
import { surfaceOperationOf } from "../../model/surface.ts";
import { errorReply, header, type Deviation, type DoubleContext, type DoubleReply, type XFile } from "./double-types.ts";
import { FileExtras } from "./file-extras.ts";
import { reachDeviation } from "./reach.ts";
import { ShareOps } from "./share-ops.ts";

export type { ExtraFlags } from "./double-types.ts";

/** A refusal's status as the wrong-refusal mutants answer it. */
const WRONG_STATUS: Record<number, number> = { 412: 409, 409: 412, 400: 409, 304: 412 };

/** The surface's name of a request's operation (as catalogue/surface.tsv and the request classifier name it). */
export function surfaceOperationOfRequest(req: http.IncomingMessage): string {
  const url = new URL(req.url ?? "/", "http://double");
  const h = (n: string) => header(req, n.toLowerCase());
  const op = operationOf(
    { service: "file", method: req.method ?? "GET", path: url.pathname, query: url.searchParams, header: h },
    `/${DEV_ACCOUNT}`,
  );
  return surfaceOperationOf(op, h);
}

const carries = (req: http.IncomingMessage, d: Deviation) =>
  header(req, d.parameter) !== undefined && surfaceOperationOfRequest(req) === d.operation;

export class DoubleExtras {
  private readonly shares: ShareOps;
  private readonly files: FileExtras;
  constructor(private readonly ctx: DoubleContext) {
    this.shares = new ShareOps(ctx);
    this.files = new FileExtras(ctx);
  }

  /** Copy headers of a file (Get File Properties, Get File). */
  fileHeaders(f: XFile): Record<string, string> {
    return this.files.fileHeaders(f);
  }

  /** Wraps the double's answer: a wrong-refusal mutant gives a refusal of a request carrying its parameter another status. */
  around(req: http.IncomingMessage, answer: () => DoubleReply): DoubleReply {
    const d = this.ctx.flags.deviation;
    const carried = d?.how === "wrong-refusal" && carries(req, d);
    const r = answer();
    if (!carried || r.status < 400) return r;
    return { ...r, status: WRONG_STATUS[r.status] ?? 400 };
  }

  /** Answers an authenticated request the added operations handle (or a mutant refuses), or undefined. */
  route(req: http.IncomingMessage, url: URL, body: Buffer): DoubleReply | undefined {
    const d = this.ctx.flags.deviation;
    if (d && d.how !== "wrong-refusal" && carries(req, d)) {
      if (d.how === "holding-refused") return errorReply(d.refusal?.status ?? 412, d.refusal?.code ?? "ConditionNotMet");
      delete req.headers[d.parameter];
    }
    const segs = url.pathname.split("/").filter(Boolean).map(decodeURIComponent).slice(1);
    const q = url.searchParams;
    const reached = reachDeviation(this.ctx, (name) => this.shares.leaseOf(name), req, segs, q);
    if (reached) return reached;
    if (segs.length === 1 && q.get("restype") === "share") return this.shares.route(req, segs[0], q, body);
    if (segs.length >= 2) return this.files.route(req, segs, q);
    return undefined;
  }
}
