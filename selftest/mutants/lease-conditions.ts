// Mutants generated from the rows blob/lease-ops/<op>/conditions-with-id
// (suites/blob/lease-ops-conditions.rows.ts), from the same data: the
// lease-ops table joined with the conditional claims (LEASED_CONDITIONAL): for each operation, a target
// that lets a lease stand in for the conditions: a request carrying
// x-ms-lease-id has its conditional headers dropped before they are evaluated.
import { LEASED_CONDITIONAL } from "../../suites/blob/lease-ops-claims.ts";
import { HEADERS } from "../../suites/blob/conditional-claims.ts";
import { isClaimOp } from "./conditional.ts";
import type { ClaimTable, Mutant } from "./types.ts";

const isLeaseAction = (url: string) => /[?&]comp=lease(&|$)/.test(url);

export const MUTANTS: Mutant[] = LEASED_CONDITIONAL.map(({ op, claim }) => ({
  name: `lease-conditions-${op.slug}-skipped-with-id`,
  description: `${op.operation} skips the conditional headers of a request that carries the lease ID`,
  kills: [`blob/lease-ops/${op.slug}/conditions-with-id`],
  cell: `blob/lease-ops/${op.slug}/conditions-with-id`,
  onRequest(req) {
    // Lease Blob's row renews the held lease: its requests are lease actions, whatever the claim's own request.
    const ours =
      op.slug === "lease-blob" ? req.service === "blob" && req.method === "PUT" && isLeaseAction(req.url) : isClaimOp(claim, req);
    if (!ours || req.headers["x-ms-lease-id"] === undefined) return;
    for (const h of HEADERS) delete req.headers[h];
  },
}));

export const CLAIM_TABLES: ClaimTable[] = [
  {
    table: "L Operations that honour a blob lease",
    kind: "conditions with the lease ID",
    claims: MUTANTS.map((m) => ({
      claim: `${m.description.replace(/ skips .*/, "")}: a lease does not replace the conditions`,
      row: m.kills[0],
      mutants: [m.name],
    })),
  },
];
