// Mutants generated from the sequence-number cells (suites/blob/page-sequence-claims.ts):
// per cell, a target that ignores the condition, one that refuses with another
// code, one that refuses a holding value, and one that compares off by one
// (≤ as <, < as ≤, = as ≤); and hand-written ones for the actions of Set Blob
// Properties.
import { S, SEQUENCE_CELLS, type SequenceCell } from "../../suites/blob/page-sequence-claims.ts";
import { conditionMutants } from "./condition-kit.ts";
import { operation, query, type ClaimTable, type Mutant, type ProxyRequest } from "./types.ts";

const name = (cell: SequenceCell) => `seq-${cell.write.slug}-${cell.condition.slug}`;
const isWrite = (cell: SequenceCell, req: ProxyRequest) =>
  operation(req) === "Put Page" && req.headers["x-ms-page-write"] === cell.write.write && req.headers[cell.condition.header] !== undefined;

/** Shifts the value so the comparison is off by one at the boundary the cell sends. */
function offByOne(cell: SequenceCell): Mutant {
  const { slug, header } = cell.condition;
  return {
    name: `${name(cell)}-off-by-one`,
    description: `Put Page (${cell.write.write}) compares ${header} off by one (${slug === "if-le" ? "≤ as <" : slug === "if-lt" ? "< as ≤" : "= as ≤"})`,
    kills: [cell.id],
    cell: cell.id,
    onRequest(req) {
      if (!isWrite(cell, req)) return;
      const v = Number(req.headers[header]);
      if (slug === "if-le") req.headers[header] = String(v - 1);
      else if (slug === "if-lt") req.headers[header] = String(v + 1);
      else {
        delete req.headers[header];
        req.headers["x-ms-if-sequence-number-le"] = String(v);
      }
    },
  };
}

const cells = SEQUENCE_CELLS.map((cell) => ({
  cell,
  mutants: [
    ...conditionMutants({
      row: cell.id,
      name: name(cell),
      operation: "Put Page",
      header: cell.condition.header,
      status: 412,
      code: "SequenceNumberConditionNotMet",
      failing: true,
      holding: true,
    }).map((m) => ({
      ...m,
      // Update and clear are one operation: each cell's mutants act on its own page write only.
      onRequest:
        m.onRequest &&
        ((req: ProxyRequest, s: Map<string, unknown>) =>
          req.headers["x-ms-page-write"] === cell.write.write ? m.onRequest!(req, s) : undefined),
      onResponse:
        m.onResponse &&
        ((req: ProxyRequest, res: Parameters<NonNullable<Mutant["onResponse"]>>[1], s: Map<string, unknown>) =>
          req.headers["x-ms-page-write"] === cell.write.write ? m.onResponse!(req, res, s) : undefined),
    })),
    offByOne(cell),
  ],
}));

const action = (req: ProxyRequest) =>
  operation(req) === "Set Blob Properties" && query(req).get("comp") === "properties"
    ? req.headers["x-ms-sequence-number-action"]
    : undefined;
const A = `${S}action/`;

/** Hand-written: the actions of Set Blob Properties. */
const ACTIONS: Mutant[] = [
  {
    name: "seq-increment-ignored",
    description: "Set Blob Properties, increment answers 200 but leaves the number (forwarded as a Set Blob Properties without the action)",
    kills: [`${A}increment`, `${S}optimistic-flow`],
    onRequest(req) {
      if (action(req) === "increment" && req.headers["x-ms-blob-sequence-number"] === undefined)
        delete req.headers["x-ms-sequence-number-action"];
    },
  },
  {
    name: "seq-update-never-lowers",
    description: "Set Blob Properties, update acts as max: a lower number is not set",
    kills: [`${A}update`],
    onRequest(req) {
      if (action(req) === "update" && req.headers["x-ms-blob-sequence-number"] !== "5") req.headers["x-ms-sequence-number-action"] = "max";
    },
  },
  {
    name: "seq-max-lowers",
    description: "Set Blob Properties, max acts as update: a lower number is set",
    kills: [`${A}max`],
    onRequest(req) {
      if (action(req) === "max") req.headers["x-ms-sequence-number-action"] = "update";
    },
  },
  {
    name: "seq-increment-with-number-accepted",
    description: "Set Blob Properties, increment with a number is accepted (the number dropped)",
    kills: [`${A}increment-with-number`],
    onRequest(req) {
      if (action(req) === "increment") delete req.headers["x-ms-blob-sequence-number"];
    },
  },
  ...(["update", "max"] as const).map((a): Mutant => ({
    name: `seq-${a}-without-number-accepted`,
    description: `Set Blob Properties, ${a} without a number is accepted (as if it named 7)`,
    kills: [`${A}${a}-without-number`],
    onRequest(req) {
      if (action(req) === a && req.headers["x-ms-blob-sequence-number"] === undefined) req.headers["x-ms-blob-sequence-number"] = "7";
    },
  })),
];

export const MUTANTS: Mutant[] = [...cells.flatMap((c) => c.mutants), ...ACTIONS];

export const CLAIM_TABLES: ClaimTable[] = [
  {
    table: "X-S Page-blob sequence numbers",
    kind: "sequence-number conditions",
    claims: cells.map(({ cell, mutants }) => ({
      claim: `${cell.write.operation} (${cell.write.write}), ${cell.condition.header}`,
      row: cell.id,
      mutants: mutants.map((m) => m.name),
    })),
  },
];
