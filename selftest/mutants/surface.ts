// Mutants generated from the surface rows (suites/blob/surface/): per row, a
// target that ignores the parameter on the operation, one that refuses a
// failing value with another answer (400, or a 412 for a read's 304), and one
// that refuses a holding value too; per blob lease ID row, one for each other
// part of L's rule it shows. Operations the embedded Azurite answers
// 501 have UNSUPPORTED rows there and no mutant (Put Block From URL's come
// with 3.37.0).
import { surfaceOperationOf } from "../../model/surface.ts";
import { carriesWholeLeaseRule, type SurfaceCell } from "../../suites/blob/surface/surface-kit.ts";
import { SURFACE_CELLS } from "../../suites/blob/surface/surface.rows.ts";
import { errorResponse } from "./blob-kit.ts";
import { conditionMutants } from "./condition-kit.ts";
import { locked, sameId, track, tracked } from "./lease-kit.ts";
import { operation, type ClaimTable, type Mutant, type MutantState, type ProxyRequest, type ProxyResponse } from "./types.ts";

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

/**
 * The rest of L's rule a blob's lease ID cell shows (surface-kit.ts
 * carriesWholeLeaseRule), one mutant per part: a lease that does not lock the
 * operation without an ID (a write let through, with the holder's ID added
 * before forwarding; a read refused 412 LeaseIdMissing), an ID on an unleased
 * blob ignored, a finite lease that takes any ID as its holder's. The lease
 * is followed from the target's own answers (lease-kit.ts track).
 */
function wholeLeaseRuleMutants(cell: SurfaceCell): { part: string; mutant: Mutant }[] {
  const name = `surface-${cell.op.slug}-${cell.parameter}`;
  const base = {
    kills: [cell.id],
    cell: cell.id,
    onResponse: (req: ProxyRequest, res: ProxyResponse, state: MutantState) => track(req, res, state),
  };
  const mine = (req: ProxyRequest) => surfaceName(req) === cell.op.operation;
  const id = (req: ProxyRequest) => req.headers["x-ms-lease-id"];
  const write = cell.op.kind === "write";
  return [
    {
      part: write ? "none on a leased blob: 412 LeaseIdMissing" : "none on a leased blob: let through",
      mutant: {
        ...base,
        name: `${name}-missing-${write ? "granted" : "refused"}`,
        description: `${cell.op.operation} without a lease ID on a leased blob is ${write ? "let through (the lease does not lock it)" : "refused 412 LeaseIdMissing"}`,
        onRequest(req, state) {
          const lease = tracked(req, state);
          if (!mine(req) || id(req) || !locked(lease)) return;
          if (!write) return errorResponse(req, 412, "LeaseIdMissing");
          if (lease.holder) req.headers["x-ms-lease-id"] = lease.holder;
        },
      },
    },
    {
      part: "an ID on an unleased blob: 412 LeaseNotPresentWithBlobOperation",
      mutant: {
        ...base,
        name: `${name}-unleased-ignored`,
        description: `${cell.op.operation} ignores a lease ID on an unleased blob`,
        onRequest(req, state) {
          if (mine(req) && id(req) && !locked(tracked(req, state))) delete req.headers["x-ms-lease-id"];
        },
      },
    },
    {
      part: "another ID on a finite lease: refused",
      mutant: {
        ...base,
        name: `${name}-finite-unlocked`,
        description: `${cell.op.operation} on a blob with a finite lease takes any lease ID as the holder's`,
        onRequest(req, state) {
          const lease = tracked(req, state);
          if (mine(req) && id(req) && locked(lease) && lease.finite && lease.holder && !sameId(id(req), lease.holder))
            req.headers["x-ms-lease-id"] = lease.holder;
        },
      },
    },
  ];
}

const whole = cells
  .filter((c) => carriesWholeLeaseRule(c.cell))
  .map(({ cell }) => {
    const versions = LACKS[cell.op.operation];
    return { cell, parts: wholeLeaseRuleMutants(cell).map((p) => ({ ...p, mutant: versions ? { ...p.mutant, versions } : p.mutant })) };
  });

export const MUTANTS: Mutant[] = [...cells.flatMap((c) => c.mutants), ...whole.flatMap((w) => w.parts.map((p) => p.mutant))];

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
  {
    table: "S The whole concurrency surface",
    kind: "a blob's lease ID as in L: none, a finite lease, no lease",
    claims: whole
      .filter((w) => !LACKS[w.cell.op.operation])
      .flatMap(({ cell, parts }) =>
        parts.map((p) => ({ claim: `${cell.op.operation}, x-ms-lease-id: ${p.part}`, row: cell.id, mutants: [p.mutant.name] })),
      ),
  },
];
