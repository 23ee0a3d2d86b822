// Mutants generated from the queue's last-writer-wins claims
// (suites/queue/queue-claims.ts, LAST_WRITER_WINS), each killed by the claim's
// row: the second of two unconditional writes is acknowledged but not applied
// (the first writer wins), and a stale If-Match is evaluated (refused 412).
// The queue's "no ETag" claims generate theirs in etag-claims.ts.
import { LAST_WRITER_WINS } from "../../suites/queue/queue-claims.ts";
import { errorAnswer, operation, segments, type ClaimTable, type Mutant, type ProxyRequest } from "./types.ts";

type Claim = (typeof LAST_WRITER_WINS)[number];
const isOp = (claim: Claim, req: ProxyRequest) => req.service === "queue" && operation(req) === claim.operation;
const slug = (claim: Claim) => claim.operation.toLowerCase().replace(/[^a-z0-9]+/g, "-");

function firstWriterWins(claim: Claim): Mutant {
  return {
    name: `lww-${slug(claim)}-first-writer-wins`,
    description: `the second ${claim.operation} to a resource is acknowledged but not applied`,
    kills: [claim.row],
    cell: claim.row,
    onRequest(req, state) {
      if (!isOp(claim, req)) return;
      const key = `writes ${segments(req).join("/")}`;
      const n = ((state.get(key) as number | undefined) ?? 0) + 1;
      state.set(key, n);
      if (n !== 2) return;
      const receipt = new URL(req.url, "http://x").searchParams.get("popreceipt");
      const headers: Record<string, string> = { "x-ms-version": req.headers["x-ms-version"] ?? "", date: new Date().toUTCString() };
      // Update Message answers a receipt and a TimeNextVisible: the old receipt, as if nothing changed.
      if (receipt) Object.assign(headers, { "x-ms-popreceipt": receipt, "x-ms-time-next-visible": new Date().toUTCString() });
      return { status: req.method === "PUT" && !receipt && segments(req).length === 0 ? 202 : 204, headers, body: Buffer.alloc(0) };
    },
  };
}

function ifMatchEvaluated(claim: Claim): Mutant {
  return {
    name: `lww-${slug(claim)}-if-match-evaluated`,
    description: `${claim.operation} evaluates If-Match: a stale one is refused (412)`,
    kills: [claim.row],
    cell: claim.row,
    onRequest(req) {
      const im = req.headers["if-match"];
      if (isOp(claim, req) && im && im !== "*") return errorAnswer(req, 412, "ConditionNotMet");
    },
  };
}

const GENERATED = LAST_WRITER_WINS.map((claim) => ({ claim, mutants: [firstWriterWins(claim), ifMatchEvaluated(claim)] }));

export const MUTANTS: Mutant[] = GENERATED.flatMap((g) => g.mutants);

export const CLAIM_TABLES: ClaimTable[] = [
  {
    table: "Q Queue settings (last writer wins)",
    kind: "last writer wins",
    claims: GENERATED.flatMap((g) => [
      { claim: `${g.claim.operation}: the last writer's value is read`, row: g.claim.row, mutants: [g.mutants[0].name] },
      { claim: `${g.claim.operation}: a stale If-Match is not evaluated`, row: g.claim.row, mutants: [g.mutants[1].name] },
    ]),
  },
];
