// Mutants generated from the lease-ops table (suites/blob/lease-ops-claims.ts):
// for every operation and case (on a leased blob without the ID, with the
// right ID, with a wrong ID; with an ID on an unleased blob), a target that
// answers that one cell the other way: it grants what the catalogue refuses,
// or refuses what it grants. Each is killed by the cell's row. Abort Copy
// Blob needs a copy still pending, which the proxy keeps (lease-kit.ts).
import { CASE_TEXT, CASES, claim, OPS, P, type Case, type LeaseOp } from "../../suites/blob/lease-ops-claims.ts";
import { blobOp, errorResponse, SUCCESS, type BlobOp } from "./blob-kit.ts";
import { abortAsDocumented, aborted, isLease, locked, pendingCopy, sameId, track, tracked, type Tracked } from "./lease-kit.ts";
import { toSuccess, type ClaimTable, type Mutant, type ProxyRequest } from "./types.ts";

/** The case a request is, by the lease the target holds on the blob before it. */
function caseOf(req: ProxyRequest, lease: Tracked): Case | undefined {
  const id = req.headers["x-ms-lease-id"];
  if (!locked(lease)) return id ? "unleased-with-id" : undefined;
  if (!id) return "without-id";
  return sameId(id, lease.holder) ? "with-id" : "wrong-id";
}

/** The answer the cell does not have: a refusal for what the catalogue grants, a success for what it refuses. */
function flipped(op: LeaseOp, cs: Case) {
  const doc = claim(op, cs);
  const lease = op.kind === "lease";
  return doc.ok
    ? {
        refuse: true as const,
        status: lease ? 409 : 412,
        code: lease ? "LeaseIdMismatchWithLeaseOperation" : cs === "with-id" ? "LeaseIdMismatchWithBlobOperation" : "LeaseIdMissing",
      }
    : { refuse: false as const, status: lease ? (cs === "without-id" ? 201 : 200) : SUCCESS[op.slug as BlobOp] };
}

function cell(op: LeaseOp, cs: Case): Mutant {
  const doc = claim(op, cs);
  const to = flipped(op, cs);
  const name = `lease-ops-${op.slug}-${cs}-${to.refuse ? "refused" : "granted"}`;
  const description = `${op.operation} ${CASE_TEXT[cs]} is ${to.refuse ? `refused (${to.status} ${to.code})` : "granted"}, where the catalogue says ${doc.text}`;
  const row = `${P}${op.slug}/${cs}`;
  if (op.kind === "abort") {
    return {
      ...pendingCopy(name, description, [row], (req, lease) => {
        if (caseOf(req, lease) !== cs) return abortAsDocumented(req, lease);
        return to.refuse ? errorResponse(req, to.status, to.code) : aborted(req);
      }),
      cell: row,
    };
  }
  return {
    name,
    description,
    kills: [row],
    cell: row,
    onResponse(req, res, state) {
      const before = tracked(req, state);
      track(req, res, state);
      const mine = op.kind === "lease" ? isLease(req) : blobOp(req) === op.slug;
      if (!mine || caseOf(req, before) !== cs) return;
      if (to.refuse && res.status >= 200 && res.status < 300) Object.assign(res, errorResponse(req, to.status, to.code));
      else if (!to.refuse && res.status === doc.status) toSuccess(res, to.status);
    },
  };
}

const GENERATED = OPS.flatMap((op) => CASES.map((cs) => ({ op, cs, mutant: cell(op, cs) })));

export const MUTANTS: Mutant[] = GENERATED.map((g) => g.mutant);

export const CLAIM_TABLES: ClaimTable[] = [
  {
    table: "L Operations that honour a blob lease",
    kind: "lease ID by case",
    claims: GENERATED.map((g) => ({
      claim: `${g.op.operation} ${CASE_TEXT[g.cs]}: ${claim(g.op, g.cs).text}`,
      row: `${P}${g.op.slug}/${g.cs}`,
      mutants: [g.mutant.name],
    })),
  },
];
