// The mutant family of one condition claim (an operation evaluates a header
// and refuses a failing value with a given status and code): a target that
// ignores the header, one that refuses with the wrong answer, and one that
// refuses a holding value too. The generators of section X's claim tables
// (append conditions, sequence numbers, tag predicates) build theirs here.
import { errorAnswer, operation, type Mutant, type ProxyRequest, type ProxyResponse } from "./types.ts";

export interface ConditionClaim {
  /** The row (cell) that checks the claim. */
  row: string;
  /** Mutant names start with it; unique per claim. */
  name: string;
  /** REST operation as fixtures/wire/operations.ts names it (for people). */
  operation: string;
  /** The request is the operation (default: fixtures/wire/operations.ts names it `operation`). */
  matches?(req: ProxyRequest): boolean;
  header: string;
  /** The refusal (several where the catalogue documents a choice). */
  status: number | number[];
  code: string | string[];
  /** The row sends a failing value (ignoring it, or refusing it wrongly, shows). */
  failing: boolean;
  /** The row sends a holding value (refusing it shows). */
  holding: boolean;
  /** The wrong answer the second mutant gives; by default 412 with another code (or, for a read's 412, 304). */
  wrong?: { status: number; code: string };
}

const list = <T>(x: T | T[]): T[] => (Array.isArray(x) ? x : [x]);
const carries = (c: ConditionClaim, req: ProxyRequest) =>
  req.headers[c.header] !== undefined && (c.matches ? c.matches(req) : operation(req) === c.operation);

function wrongAnswer(c: ConditionClaim, req: ProxyRequest): { status: number; code: string } {
  if (c.wrong) return c.wrong;
  const [status, code] = [list(c.status)[0], list(c.code)[0]];
  if (req.method === "GET" || req.method === "HEAD") return { status: 304, code };
  return { status, code: code === "ConditionNotMet" ? "TargetConditionNotMet" : "ConditionNotMet" };
}

/** The generated mutants of a claim, by kind. */
export function conditionMutants(c: ConditionClaim): Mutant[] {
  const base = { kills: [c.row], cell: c.row };
  const out: Mutant[] = [];
  if (c.failing) {
    out.push({
      ...base,
      name: `${c.name}-ignored`,
      description: `${c.operation} ignores ${c.header} (stripped before forwarding)`,
      onRequest(req) {
        if (carries(c, req)) delete req.headers[c.header];
      },
    });
    out.push({
      ...base,
      name: `${c.name}-wrong-answer`,
      description: `${c.operation} refuses a failing ${c.header} with another answer than ${list(c.status).join("/")} ${list(c.code).join(" or ")}`,
      onResponse(req, res: ProxyResponse) {
        if (!carries(c, req) || !list(c.status).includes(res.status) || !list(c.code).includes(res.headers["x-ms-error-code"] ?? ""))
          return;
        const w = wrongAnswer(c, req);
        Object.assign(res, errorAnswer(req, w.status, w.code));
      },
    });
  }
  if (c.holding) {
    out.push({
      ...base,
      name: `${c.name}-holding-refused`,
      description: `${c.operation} refuses ${c.header} with ${list(c.status)[0]} ${list(c.code)[0]} whatever its value, a holding one too`,
      onRequest(req) {
        if (carries(c, req)) return errorAnswer(req, list(c.status)[0], list(c.code)[0]);
      },
    });
  }
  return out;
}
