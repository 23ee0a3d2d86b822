// Mutants generated from the "If-Match required" column of TB
// (suites/table/entity-ops-claims.ts), each killed by the claim's row
// `<op>/if-match`: an operation that checks If-Match ignores it (answers as
// for `*`); one that does not evaluates it (a request carrying one is refused
// 412); an upsert, which performs no concurrency check, refuses to overwrite
// an entity another writer changed with If-Match.
import { ENTITY_OPS, ENTITY_OPS_PREFIX, type EntityOpClaim } from "../../suites/table/entity-ops-claims.ts";
import { operationFamily } from "../../model/result.ts";
import { errorAnswer, operation, segments, type ClaimTable, type Mutant, type ProxyRequest } from "./types.ts";

const isOp = (claim: EntityOpClaim, req: ProxyRequest) => req.service === "table" && operationFamily(operation(req)) === claim.operation;
const conditional = (req: ProxyRequest) => req.headers["if-match"] !== undefined && req.headers["if-match"] !== "*";
const row = (claim: EntityOpClaim) => `${ENTITY_OPS_PREFIX}${claim.slug}/if-match`;
const entity = (req: ProxyRequest) => `${segments(req).join("/")}`;
const REFUSED = { status: 412, code: "UpdateConditionNotSatisfied" };

function ignored(claim: EntityOpClaim): Mutant {
  return {
    name: `entity-if-match-${claim.slug}-ignored`,
    description: `${claim.operation} ignores the ETag in If-Match (answers as for *)`,
    kills: [row(claim)],
    cell: row(claim),
    onRequest(req) {
      if (isOp(claim, req) && conditional(req)) req.headers["if-match"] = "*";
    },
  };
}

function evaluated(claim: EntityOpClaim): Mutant {
  return {
    name: `entity-if-match-${claim.slug}-evaluated`,
    description: `${claim.operation} evaluates If-Match: a request carrying one that is not * is refused (412)`,
    kills: [row(claim)],
    cell: row(claim),
    onRequest(req) {
      if (isOp(claim, req) && conditional(req)) return errorAnswer(req, REFUSED.status, REFUSED.code);
    },
  };
}

function checked(claim: EntityOpClaim): Mutant {
  return {
    name: `entity-if-match-${claim.slug}-checked`,
    description: `${claim.operation} performs a concurrency check: it refuses (412) to overwrite an entity another writer changed with If-Match`,
    kills: [row(claim)],
    cell: row(claim),
    onRequest(req, state) {
      if (isOp(claim, req) && state.has(`changed ${entity(req)}`)) return errorAnswer(req, REFUSED.status, REFUSED.code);
    },
    onResponse(req, res, state) {
      if (req.service === "table" && conditional(req) && res.status >= 200 && res.status < 300) state.set(`changed ${entity(req)}`, true);
    },
  };
}

const GENERATED = ENTITY_OPS.map((claim) => ({
  claim,
  mutant: claim.ifMatch ? ignored(claim) : claim.writes === "upsert" ? checked(claim) : evaluated(claim),
}));

export const MUTANTS: Mutant[] = GENERATED.map((g) => g.mutant);

export const CLAIM_TABLES: ClaimTable[] = [
  {
    table: "TB Table entities",
    kind: "If-Match required",
    claims: GENERATED.map((g) => ({
      claim: `${g.claim.operation}: ${g.claim.ifMatch ? "checks If-Match" : g.claim.writes === "upsert" ? "no concurrency check" : "does not evaluate If-Match"}`,
      row: row(g.claim),
      mutants: [g.mutant.name],
    })),
  },
];
