// Mutants generated from the surface rows (suites/blob/surface/): per row, a
// target that ignores the parameter on the operation, one that refuses a
// failing value with another answer (400, or a 412 for a read's 304), and one
// that refuses a holding value too. Operations the embedded Azurite answers
// 501 have UNSUPPORTED rows there and no mutant (Put Block From URL's come
// with 3.37.0).
import { surfaceOperationOf } from "../../model/surface.ts";
import { SURFACE_CELLS } from "../../suites/blob/surface/surface.rows.ts";
import { conditionMutants } from "./condition-kit.ts";
import { operation, type ClaimTable, type Mutant, type ProxyRequest } from "./types.ts";

/** The operations the embedded Azurite lacks, with the version that brings each (none: none yet). */
const LACKS: Record<string, string | undefined> = {
  "Query Blob Contents": undefined,
  "Incremental Copy Blob": undefined,
  "Put Blob From URL": undefined,
  "Append Block From URL": undefined,
  "Put Page From URL": undefined,
  "Put Block From URL": ">=3.37.0",
};

/** The request's operation as catalogue/surface.tsv names it (with its variant). */
const surfaceName = (req: ProxyRequest) => surfaceOperationOf(operation(req), (h) => req.headers[h]);

const cells = SURFACE_CELLS.filter((c) => !(c.op.operation in LACKS) || LACKS[c.op.operation]).map((cell) => {
  const versions = LACKS[cell.op.operation];
  const notModified = cell.refusal.status === 304;
  return {
    cell,
    mutants: conditionMutants({
      row: cell.id,
      name: `surface-${cell.op.slug}-${cell.parameter}`,
      operation: cell.op.operation,
      matches: (req) => surfaceName(req) === cell.op.operation,
      header: cell.parameter,
      status: cell.refusal.status,
      // A 304 carries no error code on Azure (Azurite sends ConditionNotMet).
      code: notModified ? ["", "ConditionNotMet"] : cell.refusal.code,
      // A disputed pair's failing value may be ignored: a target that ignores it keeps the claim.
      failing: !cell.disputed,
      holding: true,
      wrong: notModified ? { status: 412, code: "ConditionNotMet" } : { status: 400, code: "InvalidHeaderValue" },
    }).map((m): Mutant => (versions ? { ...m, versions } : m)),
  };
});

export const MUTANTS: Mutant[] = cells.flatMap((c) => c.mutants);

export const CLAIM_TABLES: ClaimTable[] = [
  {
    table: "S The whole concurrency surface",
    kind: "every concurrency parameter of every operation",
    claims: cells
      .filter((c) => !LACKS[c.cell.op.operation])
      .map(({ cell, mutants }) => ({
        claim: `${cell.op.operation}, ${cell.parameter}`,
        row: cell.id,
        mutants: mutants.map((m) => m.name),
      })),
  },
];
