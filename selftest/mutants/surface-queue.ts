// Mutants generated from the queue surface rows (suites/queue/surface/): per
// row, a target that does not check the parameter's range (the value out of
// range taken as an in-range one), one that refuses it with another answer
// (409), one that refuses a value in range too, and at each of the range's
// other ends one past it taken and the end itself refused.
import { QUEUE_SURFACE_CELLS, REFUSAL } from "../../suites/queue/surface/surface.rows.ts";
import { errorAnswer, operation, query, type ClaimTable, type Mutant, type ProxyRequest } from "./types.ts";

/** A value in a mutant's name: -1 is "minus-1". */
const spelled = (value: string) => value.replace(/^-/, "minus-");

const [STATUS, CODE] = [REFUSAL.status, REFUSAL.code[0]];

const cells = QUEUE_SURFACE_CELLS.map((cell) => {
  const row = `queue/surface/${cell.slug}/${cell.parameter}`;
  const carries = (req: ProxyRequest) => operation(req) === cell.operation && query(req).get(cell.parameter) !== null;
  const base = { kills: [row], cell: row };
  const name = `surface-${cell.slug}-${cell.parameter}`;
  const mutants: Mutant[] = [
    {
      ...base,
      name: `${name}-range-unchecked`,
      description: `${cell.operation} takes ${cell.parameter} ${cell.failing} (out of range) as ${cell.holding}`,
      onRequest(req) {
        if (!carries(req) || query(req).get(cell.parameter) !== cell.failing) return;
        const u = new URL(req.url, "http://x");
        u.searchParams.set(cell.parameter, cell.holding);
        req.url = u.pathname + u.search;
      },
    },
    {
      ...base,
      name: `${name}-wrong-answer`,
      description: `${cell.operation} refuses ${cell.parameter} out of range with 409 instead of ${STATUS}`,
      onResponse(req, res) {
        if (carries(req) && res.status === STATUS) Object.assign(res, errorAnswer(req, 409, CODE));
      },
    },
    {
      ...base,
      name: `${name}-holding-refused`,
      description: `${cell.operation} refuses ${cell.parameter} with ${STATUS} ${CODE} whatever its value, one in range too`,
      onRequest(req) {
        if (carries(req)) return errorAnswer(req, STATUS, CODE);
      },
    },
    // The range's other ends (catalogue: every range at both ends): one past an end taken, an end refused.
    // A negative value is named "minus-1" (mutant names are kebab-case).
    ...cell.ends.failing.map((value): Mutant => ({
      ...base,
      name: `${name}-end-${spelled(value)}-taken`,
      description: `${cell.operation} takes ${cell.parameter} ${value} (one past the range's end) as ${cell.holding}`,
      onRequest(req) {
        if (!carries(req) || query(req).get(cell.parameter) !== value) return;
        const u = new URL(req.url, "http://x");
        u.searchParams.set(cell.parameter, cell.holding);
        req.url = u.pathname + u.search;
      },
    })),
    ...cell.ends.holding.map((value): Mutant => ({
      ...base,
      name: `${name}-end-${spelled(value)}-refused`,
      description: `${cell.operation} refuses ${cell.parameter} ${value} (the range's end) with ${STATUS} ${CODE}`,
      onRequest(req) {
        if (carries(req) && query(req).get(cell.parameter) === value) return errorAnswer(req, STATUS, CODE);
      },
    })),
  ];
  return { cell, row, mutants };
});

export const MUTANTS: Mutant[] = cells.flatMap((c) => c.mutants);

export const CLAIM_TABLES: ClaimTable[] = [
  {
    table: "S The whole concurrency surface (queue)",
    kind: "queue parameters in their ranges",
    claims: cells.map(({ cell, row, mutants }) => ({
      claim: `${cell.operation}, ${cell.parameter}`,
      row,
      mutants: mutants.map((m) => m.name),
    })),
  },
];
