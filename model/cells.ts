// The verdict of a matrix cell (model/matrix.ts), which the Markdown and the
// HTML report both show: the results a cell covers, the one that decides it,
// the cause that decided that one, and what a row's claim rests on, in words.
// Pure functions of the report's results; no rendering.
import type { RowResult } from "./result.ts";

/** What a row's claim rests on, in words: a live recording of Azure, the reference alone, or disputed pages (the report's notes say which reading the target chose). */
export const basisText = (r: RowResult): string =>
  r.basis === "live" ? "live recording" : r.basis === "disputed" ? "disputed" : r.basis === "reference" ? "reference page" : "";

/** Results for a cell: the ID itself, or the finer IDs beneath it. */
export function cellResults(results: Map<string, RowResult>, id: string): RowResult[] {
  const exact = results.get(id);
  if (exact) return [exact];
  return [...results.values()].filter((r) => r.id.startsWith(id + "/"));
}

/** The worst status among a cell's results decides the cell. */
export function cellVerdict(rs: RowResult[]): RowResult | undefined {
  const rank = [
    "ERROR",
    "FAIL",
    "UNEXPECTED_PASS",
    "UNSUPPORTED",
    "INCONCLUSIVE",
    "EXPECTED_FAIL",
    "PRECONDITION_FAILED",
    "MANUAL",
    "NOT_AVAILABLE",
    "PASS",
  ];
  return [...rs].sort((a, b) => rank.indexOf(a.status) - rank.indexOf(b.status))[0];
}

/** The rank of the cause (model/causes.ts, causeOfRow) that decided a non-PASS result, if the report has one. */
export const causeRank = (r: RowResult | undefined, causes: Map<string, number>): number | undefined =>
  r && r.status !== "PASS" ? causes.get(r.id) : undefined;
