// The report model shared by every output: run info, one result per row, and
// the tallies. Schema documented in reporters/SCHEMA.md.
import type { RowResult, Status } from "../fixtures/engine.ts";
import type { ServiceProbe } from "../fixtures/preflight.ts";
import type { TargetKind } from "../fixtures/target.ts";

export const SCHEMA = "azure-storage-concurrency-conformance/report@1";

export interface RunInfo {
  suite: { name: string; version: string; commit?: string };
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  target: {
    kind: TargetKind;
    name: string;
    account: string;
    endpoints: Record<string, string>;
    /** `Server` header per service, from the preflight. */
    server: Record<string, string | undefined>;
    services: ServiceProbe[];
    /** Version per service, from its `Server` header (what pins' `versions` ranges are matched against). */
    versions?: Record<string, string>;
    azuriteVersion?: string;
  };
  /** x-ms-version each client sent, per service, as recorded on the wire. */
  apiVersionsSent: Record<string, Record<string, string[]>>;
  expectations: string;
  runPrefix: string;
  concurrency: number;
  node: string;
  platform: string;
  /** Resources carrying this run's prefix still present after cleanup (0 expected). */
  leftovers?: number;
  grep?: string;
}

export interface Report {
  schema: typeof SCHEMA;
  run: RunInfo;
  summary: Record<Status, number> & { passed: number; failed: number; skipped: number; total: number };
  results: RowResult[];
  /** Registered rows not selected in this run (e.g. by --grep or --services). */
  notRun: string[];
}

export const STATUSES: Status[] = [
  "PASS",
  "FAIL",
  "EXPECTED_FAIL",
  "UNEXPECTED_PASS",
  "NOT_AVAILABLE",
  "PRECONDITION_FAILED",
  "MANUAL",
  "INCONCLUSIVE",
];

export const failsRun = (s: Status): boolean => s === "FAIL" || s === "UNEXPECTED_PASS";
export const countsAsPassed = (s: Status): boolean => s === "PASS" || s === "EXPECTED_FAIL";

export function summarise(results: RowResult[]): Report["summary"] {
  const counts = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<Status, number>;
  for (const r of results) counts[r.status] += 1;
  const passed = results.filter((r) => countsAsPassed(r.status)).length;
  const failed = results.filter((r) => failsRun(r.status)).length;
  return { ...counts, passed, failed, skipped: results.length - passed - failed, total: results.length };
}

/** The versions each client sent, grouped by service and by SDK/raw. */
export function apiVersionsSent(results: RowResult[]): RunInfo["apiVersionsSent"] {
  const out: Record<string, Record<string, Set<string>>> = {};
  for (const r of results) {
    for (const ex of r.evidence) {
      const v = ex.requestHeaders["x-ms-version"];
      if (!v) continue;
      ((out[r.service] ??= {})[ex.via] ??= new Set()).add(v);
    }
  }
  return Object.fromEntries(
    Object.entries(out).map(([svc, byVia]) => [svc, Object.fromEntries(Object.entries(byVia).map(([via, s]) => [via, [...s].sort()]))]),
  );
}

export const STATUS_MARK: Record<Status, string> = {
  PASS: "✅",
  FAIL: "❌",
  EXPECTED_FAIL: "🟧",
  UNEXPECTED_PASS: "❗",
  NOT_AVAILABLE: "➖",
  PRECONDITION_FAILED: "⏸️",
  MANUAL: "✋",
  INCONCLUSIVE: "❔",
};
