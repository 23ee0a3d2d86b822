// Mutants generated from the container operations that carry a lease ID
// (suites/blob/container-lease-claims.ts): for each, a target that ignores a
// lease ID sent to an unleased container (the request goes on without it, so
// the operation succeeds), which the operation's unleased-with-id row catches.
import { OPS } from "../../suites/blob/container-lease-claims.ts";
import { isContainer, locked, track, tracked } from "./lease-kit.ts";
import { operation, type ClaimTable, type Mutant } from "./types.ts";

const P = "blob/container-lease/ops/";

const GENERATED = OPS.map((op): Mutant => ({
  name: `container-lease-${op.slug}-unleased-id-ignored`,
  description: `${op.operation} with a lease ID on an unleased container succeeds (the ID is ignored), where the catalogue refuses it: 412 LeaseNotPresentWithContainerOperation`,
  kills: [`${P}${op.slug}/unleased-with-id`],
  cell: `${P}${op.slug}/unleased-with-id`,
  onRequest(req, state) {
    if (isContainer(req) && operation(req) === op.operation && req.headers["x-ms-lease-id"] && !locked(tracked(req, state)))
      delete req.headers["x-ms-lease-id"];
  },
  onResponse: track,
}));

export const MUTANTS: Mutant[] = GENERATED;

export const CLAIM_TABLES: ClaimTable[] = [
  {
    table: "L Container leases",
    kind: "an ID on an unleased container is refused",
    claims: OPS.map((op, i) => ({
      claim: `${op.operation} with a lease ID on an unleased container → 412`,
      row: GENERATED[i].cell!,
      mutants: [GENERATED[i].name],
    })),
  },
];
