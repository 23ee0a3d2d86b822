// Mutants generated from the From-URL cells (suites/blob/from-url-claims.ts):
// per cell, a target that ignores the condition, one that refuses it with an
// answer outside the documented ones (400), and one that refuses a holding
// value too. Cells of operations the embedded Azurite answers 501 are
// UNSUPPORTED there and have none; Put Block From URL's come with 3.37.0.
import { FROM_URL_CELLS } from "../../suites/blob/from-url-claims.ts";
import { conditionMutants } from "./condition-kit.ts";
import type { ClaimTable, Mutant } from "./types.ts";

/** The operations the embedded Azurite lacks, with the version that brings each (none: none yet). */
const LACKS: Record<string, string | undefined> = {
  "Put Blob From URL": undefined,
  "Append Block From URL": undefined,
  "Put Page From URL": undefined,
  "Put Block From URL": ">=3.37.0",
};

const cells = FROM_URL_CELLS.filter((c) => !(c.record.operation in LACKS) || LACKS[c.record.operation]).map((cell) => {
  const versions = LACKS[cell.record.operation];
  return {
    cell,
    mutants: conditionMutants({
      row: cell.id,
      name: `from-url-${cell.opSlug}-${cell.side}-${cell.header}`,
      operation: cell.record.operation,
      header: cell.wireHeader,
      status: cell.refusal.status,
      code: cell.refusal.code,
      failing: true,
      holding: true,
      wrong: { status: 400, code: "InvalidHeaderValue" },
    }).map((m): Mutant => (versions ? { ...m, versions } : m)),
  };
});

export const MUTANTS: Mutant[] = cells.flatMap((c) => c.mutants);

export const CLAIM_TABLES: ClaimTable[] = [
  {
    table: "X-U Conditions on the From-URL operations",
    kind: "source and destination conditions",
    claims: cells
      .filter((c) => !LACKS[c.cell.record.operation])
      .map(({ cell, mutants }) => ({
        claim: `${cell.record.operation}, ${cell.wireHeader}`,
        row: cell.id,
        mutants: mutants.map((m) => m.name),
      })),
  },
];
