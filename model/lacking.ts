// What a run found the target lacking, each once with the rows it took
// down: the operations it does not implement (UNSUPPORTED rows), those it
// answers with a server error (FAIL by a fault), and the kinds of non-answer
// that left rows undecided (INCONCLUSIVE). The reports and the Action's
// summary list them; the causes (model/causes.ts) name the non-answers.
import { leavesRunIncomplete, operationPinFor, type OperationPin, type RowResult } from "./result.ts";

export interface LackingOperation {
  operation: string;
  /** The answer that said so (the first seen). */
  status: number;
  code?: string;
  /** The rows it took down (UNSUPPORTED, or FAIL by a server fault, because of it). */
  rows: string[];
  /** The expectation file's pin for it, if any. */
  pinned?: OperationPin & { key: string };
}

/** Each operation named by `entries` of the rows `counts` keeps, once, with the rows it took down, most rows first. */
function operationsOf(
  results: RowResult[],
  counts: (r: RowResult) => boolean,
  entries: (r: RowResult) => { operation: string; status: number; code?: string }[] | undefined,
  pins: Record<string, OperationPin> | undefined,
): LackingOperation[] {
  const out = new Map<string, LackingOperation>();
  for (const r of results) {
    if (!counts(r)) continue;
    for (const u of entries(r) ?? []) {
      const e = out.get(u.operation) ?? {
        operation: u.operation,
        status: u.status,
        code: u.code,
        rows: [],
        pinned: operationPinFor(u.operation, pins),
      };
      if (!e.rows.includes(r.id)) e.rows.push(r.id);
      out.set(u.operation, e);
    }
  }
  return [...out.values()].sort((a, b) => b.rows.length - a.rows.length || a.operation.localeCompare(b.operation));
}

/** The operations a run's rows found the target lacking: each once, with the rows it took down, most rows first. */
export function unsupportedOperations(results: RowResult[], pins?: Record<string, OperationPin>): LackingOperation[] {
  return operationsOf(
    results,
    (r) => r.status === "UNSUPPORTED",
    (r) => r.unsupported,
    pins,
  );
}

/** The operations the target answered with a server error on every try, in both runs of the rows they decided (FAIL): each once, with those rows. */
export function faultingOperations(results: RowResult[], pins?: Record<string, OperationPin>): LackingOperation[] {
  return operationsOf(
    results,
    (r) => r.observed === "FAIL",
    (r) => r.faults,
    pins,
  );
}

/** Why rows left the run incomplete (INCONCLUSIVE, not pinned so): each kind of non-answer once, with its rows. */
export function undecidedReasons(results: RowResult[]): { reason: string; rows: string[] }[] {
  const out = new Map<string, string[]>();
  for (const r of results) {
    if (!leavesRunIncomplete(r)) continue;
    const reason = inconclusiveReason(r.message ?? "");
    out.set(reason, [...(out.get(reason) ?? []), r.id]);
  }
  return [...out].map(([reason, rows]) => ({ reason, rows })).sort((a, b) => b.rows.length - a.rows.length);
}

/** The kind of non-answer an INCONCLUSIVE row's message names. */
export function inconclusiveReason(message: string): string {
  if (/^no verdict within/.test(message)) return "the row's time limit ran out";
  if (/^server fault:/.test(message)) return "a server error on every try, in one run of the row only";
  if (/gave up|did not finish within its time limit/.test(message)) return "a search or a model run gave up";
  if (/ran out|too slowly/.test(message)) return "a wait ran out before an answer could decide";
  if (/no answer within|ETIMEDOUT|timed? ?out/i.test(message)) return "a request timed out";
  if (/was retried after/.test(message)) return "a retried write may have been applied";
  if (/ServerBusy|\b429\b|\b503\b|throttl/i.test(message)) return "throttling";
  return "a transport error (refused, reset, no answer)";
}
