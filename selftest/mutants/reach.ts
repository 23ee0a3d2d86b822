// Mutants generated from the reach claims (suites/blob/reach-claims.ts): for
// each resource a lease must leave alone, a lock that reaches it (its writes,
// or a snapshot's reads, without a lease ID refused 412 LeaseIdMissing while
// the related resource is leased), and where the claim refuses the lock's ID
// there, that ID taken as if none were sent. Leases are followed from the
// target's own answers (lease-kit.ts, track()).
import { REACH, type Relation } from "../../suites/blob/reach-claims.ts";
import { errorResponse } from "./blob-kit.ts";
import { isLease, locked, sameId, track, type Tracked } from "./lease-kit.ts";
import { query, segments, type ClaimTable, type Mutant, type MutantState, type ProxyRequest } from "./types.ts";

/** The leases the proxy followed: container/blob path → lease. */
function leases(state: MutantState): [string[], Tracked][] {
  return [...state].filter(([k]) => k.startsWith("lease:")).map(([k, v]) => [k.slice(6).split("/"), v as Tracked]);
}

/** A held lease of a resource `req` stands in `relation` to (not `req`'s own resource). */
function relatedLease(req: ProxyRequest, relation: Relation, state: MutantState): Tracked | undefined {
  if (req.service !== "blob") return undefined;
  const [c, ...blob] = segments(req);
  const name = blob.join("/");
  const snapshot = query(req).has("snapshot");
  const held = leases(state).filter(([, l]) => locked(l));
  const find = (match: (path: string[]) => boolean) => held.find(([p]) => match(p))?.[1];
  switch (relation) {
    case "blob-in-container":
      return name ? find((p) => p.length === 1 && p[0] === c) : undefined;
    case "snapshot-of-blob":
      return name && snapshot ? find((p) => p[0] === c && p.slice(1).join("/") === name) : undefined;
    case "container-of-blob":
      return !name ? find((p) => p.length > 1 && p[0] === c) : undefined;
    case "blob-beside":
      return name && !snapshot ? find((p) => p.length > 1 && p[0] === c && p.slice(1).join("/") !== name) : undefined;
    case "same-name-elsewhere":
      return name && !snapshot ? find((p) => p.length > 1 && p[0] !== c && p.slice(1).join("/") === name) : undefined;
  }
}

const ownLease = (req: ProxyRequest, state: MutantState) => state.get(`lease:${segments(req).join("/")}`) as Tracked | undefined;
const unleased = (req: ProxyRequest, state: MutantState) =>
  query(req).has("snapshot") || !locked(ownLease(req, state) ?? { state: "available" });
const isWrite = (req: ProxyRequest) => (req.method === "PUT" || req.method === "DELETE") && !isLease(req);

const generated = REACH.flatMap((claim) =>
  claim.subjects.flatMap((s) => {
    const name = `reach-${claim.lock}-lease-${s.relation}`;
    const base = { kills: [claim.id], cell: claim.id, onResponse: track };
    const tooFar: Mutant = {
      ...base,
      name: `${name}-locked`,
      description: `a ${claim.lock} lease locks ${s.label}: its ${s.relation === "snapshot-of-blob" ? "reads" : "writes"} without a lease ID → 412 LeaseIdMissing`,
      onRequest(req, state) {
        const affected = s.relation === "snapshot-of-blob" ? req.method === "GET" || req.method === "HEAD" : isWrite(req);
        if (affected && !req.headers["x-ms-lease-id"] && unleased(req, state) && relatedLease(req, s.relation, state))
          return errorResponse(req, 412, "LeaseIdMissing");
      },
    };
    if (!s.idRefused) return [tooFar];
    const idTaken: Mutant = {
      ...base,
      name: `${name}-id-taken`,
      description: `the ${claim.lock}'s lease ID sent to ${s.label} is taken as if no ID were sent (not 412 ${s.idRefused.code})`,
      onRequest(req, state) {
        const id = req.headers["x-ms-lease-id"];
        const lease = relatedLease(req, s.relation, state);
        if (id && unleased(req, state) && lease && sameId(id, lease.holder)) delete req.headers["x-ms-lease-id"];
      },
    };
    return [tooFar, idTaken];
  }),
);

export const MUTANTS: Mutant[] = generated;

export const CLAIM_TABLES: ClaimTable[] = [
  {
    table: "L How far a lease reaches",
    kind: "what a lease leaves alone",
    claims: REACH.flatMap((claim) =>
      claim.subjects.map((s) => ({
        claim: `a ${claim.lock} lease leaves ${s.label} alone`,
        row: claim.id,
        mutants: generated.filter((m) => m.name.startsWith(`reach-${claim.lock}-lease-${s.relation}-`)).map((m) => m.name),
      })),
    ),
  },
];
