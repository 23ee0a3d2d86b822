// The result model every layer shares: statuses, a row's result with its
// evidence, pins, run info and the report. It imports nothing of the project:
// the engine (fixtures/) produces these values, the reporters (reporters/)
// render them, and neither needs the other to know their shape. Schema
// documented in reporters/SCHEMA.md.

export type Service = "blob" | "queue" | "table" | "file";
export type TargetKind = "embedded-azurite" | "emulator" | "live";
export type Level = "doc" | "rest" | "disputed" | "info";

export type Status =
  | "PASS"
  | "FAIL"
  | "EXPECTED_FAIL"
  | "UNEXPECTED_PASS"
  | "NOT_AVAILABLE"
  | "PRECONDITION_FAILED"
  | "MANUAL"
  | "INCONCLUSIVE";

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

/** One HTTP exchange (one try of a request), as it went over the wire. */
export interface Exchange {
  seq: number;
  /** Label of the test step that made the request (t.step). */
  step?: string;
  via: "sdk" | "raw";
  method: string;
  /** Path and query with any SAS signature removed. */
  url: string;
  requestHeaders: Record<string, string>;
  status?: number;
  responseHeaders: Record<string, string>;
  errorCode?: string;
  /** Transport failure (no HTTP answer): reset, timeout, refused. */
  transportError?: string;
  ms: number;
  /** When the try was sent, in ms from the start of the row. */
  at?: number;
  /** The try of its request (2, 3, …); absent on a first try. */
  try?: number;
  /** This try was answered with a fault and retried: the next try of the request supersedes it. */
  retried?: boolean;
  /** Made by a probe of a real wait (t.waitFor): it overlaps the wait rather than adding to the row's path. */
  poll?: boolean;
}

/** What the preflight found of one service. */
export interface ServiceProbe {
  service: Service;
  endpoint?: string;
  available: boolean;
  /** Why the service is not available (shown on its NOT_AVAILABLE rows). */
  reason?: string;
  server?: string;
  status?: number;
  /** Round trip of the probe, in ms. */
  ms?: number;
}

/** A row's pinned outcome in a target's expectation file. */
export interface Pin {
  status: Status;
  /** Normalised failure message the pin expects. */
  signature?: string;
  reason: string;
  link?: string;
  /** Semver range of the target versions (from its `Server` header) the pin holds for; none: every version. */
  versions?: string;
}

export interface RowResult {
  id: string;
  title: string;
  table: string;
  service: Service;
  level: Level;
  source: string;
  status: Status;
  /** What the row itself concluded, before expectations were applied. */
  observed: Status;
  message?: string;
  signature?: string;
  expectation?: Pin;
  notes: Record<string, unknown>;
  durationMs: number;
  evidence: Exchange[];
  /** The row ended INCONCLUSIVE and was run once more, with fresh resources: this is the first run. */
  retried?: { message?: string; durationMs: number; evidence: Exchange[] };
}

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

export const SCHEMA = "azure-storage-concurrency-conformance/report@1";

export interface Report {
  schema: typeof SCHEMA;
  run: RunInfo;
  summary: Record<Status, number> & { passed: number; failed: number; skipped: number; total: number };
  results: RowResult[];
  /** Registered rows not selected in this run (e.g. by --grep or --services). */
  notRun: string[];
}

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
