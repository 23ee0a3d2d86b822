// A report's part for one result, made once: the reports make each row's part
// as it ends (ahead.ts) and take it from here when the run ends.
import type { RowResult } from "../model/result.ts";

/**
 * `make`, made once per result and kept while the result's evidence is as it
 * was: an exchange recorded later (a late answer of one of its strands) makes
 * it again.
 */
export function perResult<T>(make: (r: RowResult) => T): (r: RowResult) => T {
  const made = new WeakMap<RowResult, { exchanges: number; value: T }>();
  return (r) => {
    const m = made.get(r);
    if (m && m.exchanges === r.evidence.length) return m.value;
    const value = make(r);
    made.set(r, { exchanges: r.evidence.length, value });
    return value;
  };
}
