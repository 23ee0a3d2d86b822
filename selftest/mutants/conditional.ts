// Mutants generated from the conditional claims (suites/blob/conditional-claims.ts),
// one family per cell `<row>/conditional/<header>`: where the operation
// evaluates the header, a target that ignores it, and one that answers the
// wrong refusal (reads: 304 and 412 swapped; writes: 304 for 412); where it
// does not, a target that evaluates it. Each names its cell; a new claim
// brings its mutants with it.
import { ALL_CELLS, HEADER_LABEL, type Cell } from "../../suites/blob/conditional-claims.ts";
import type { BlobOperation } from "../../suites/blob/operations.ts";
import { abortAnswer, errorResponse } from "./blob-kit.ts";
import { pendingCopy } from "./lease-kit.ts";
import { operationFamily } from "../../fixtures/wire/operations.ts";
import { operation, type ClaimTable, type Mutant, type ProxyRequest, type ProxyResponse } from "./types.ts";

/** The request is the record's operation, as the one request classifier (fixtures/wire/operations.ts) names it. */
export function isClaimOp(claim: Pick<BlobOperation, "operation">, req: ProxyRequest): boolean {
  return req.service === "blob" && operationFamily(operation(req)) === claim.operation;
}

const slug = (cell: Cell) =>
  `cond-${cell.claim.row.slice(cell.claim.row.lastIndexOf("/") + 1)}-${cell.onSource ? "source-" : ""}${HEADER_LABEL[cell.header].toLowerCase()}`;
const carries = (cell: Cell, req: ProxyRequest) => isClaimOp(cell.claim, req) && req.headers[cell.wireHeader] !== undefined;
/** How a read refuses this header when it evaluates it. */
const readRefusal = (cell: Cell) => (cell.header === "if-none-match" || cell.header === "if-modified-since" ? 304 : 412);

function refusal(req: ProxyRequest, status: number): ProxyResponse {
  return errorResponse(req, status, "ConditionNotMet");
}

function ignores(cell: Cell): Mutant {
  return {
    name: `${slug(cell)}-ignored`,
    description: `${cell.claim.operation} ignores ${cell.wireHeader} (stripped before forwarding)`,
    kills: [cell.id],
    cell: cell.id,
    onRequest(req) {
      if (carries(cell, req)) delete req.headers[cell.wireHeader];
    },
  };
}

function wrongRefusal(cell: Cell): Mutant {
  const read = cell.claim.kind === "read";
  return {
    name: `${slug(cell)}-${read ? "304-412-swapped" : "refused-as-304"}`,
    description: read
      ? `${cell.claim.operation} refuses a failing ${cell.wireHeader} with ${readRefusal(cell) === 304 ? "412 instead of 304" : "304 instead of 412"}`
      : `${cell.claim.operation} refuses a failing ${cell.wireHeader} with 304 instead of 412`,
    kills: [cell.id],
    cell: cell.id,
    onResponse(req, res) {
      if (!carries(cell, req) || (res.status !== 304 && res.status !== 412)) return;
      const status = read ? (res.status === 304 ? 412 : 304) : 304;
      if (status !== res.status) Object.assign(res, refusal(req, status));
    },
  };
}

function evaluates(cell: Cell): Mutant {
  const status = cell.claim.kind === "read" ? readRefusal(cell) : 412;
  const name = `${slug(cell)}-evaluated`;
  const description = `${cell.claim.operation} evaluates ${cell.wireHeader}: a failing one is refused with ${status}`;
  if (cell.claim.pendingCopy) {
    // Abort Copy Blob needs a copy still pending, which the proxy simulates.
    const m = pendingCopy(name, description, [cell.id], (req) =>
      req.headers[cell.wireHeader] !== undefined ? refusal(req, status) : abortAnswer(req),
    );
    return { ...m, cell: cell.id };
  }
  return {
    name,
    description,
    kills: [cell.id],
    cell: cell.id,
    onRequest(req) {
      if (carries(cell, req)) return refusal(req, status);
    },
  };
}

/**
 * Each cell's mutants; the first of each operation's (its first header's)
 * also names the operation's `doc` cell `<row>/conditional`, computed from the
 * header rows, so that cell is shown to fail with them.
 */
const GENERATED = ALL_CELLS.map((cell) => {
  const mutants = cell.evaluated ? [ignores(cell), wrongRefusal(cell)] : [evaluates(cell)];
  if (ALL_CELLS.find((c) => c.claim === cell.claim) === cell)
    mutants[0] = { ...mutants[0], kills: [...mutants[0].kills, `${cell.claim.row}/conditional`] };
  return { cell, mutants };
});

export const MUTANTS: Mutant[] = GENERATED.flatMap((g) => g.mutants);

export const CLAIM_TABLES: ClaimTable[] = [
  {
    table: "C Conditional requests (per header)",
    kind: "Accepts conditional headers",
    claims: GENERATED.map((g) => ({
      claim: `${g.cell.claim.operation}, ${g.cell.wireHeader}: ${g.cell.evaluated ? "evaluated" : "not evaluated"}`,
      row: g.cell.id,
      mutants: g.mutants.map((m) => m.name),
    })),
  },
];
