// The result model every layer shares: statuses, a row's result with its
// evidence, pins, run info and the report. It imports nothing of the project:
// the engine (fixtures/) produces these values, the reporters (reporters/)
// render them, and neither needs the other to know their shape. Schema
// documented in reporters/SCHEMA.md.

import type { SurfaceCoverage } from "./surface.ts";

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
  | "INCONCLUSIVE"
  | "UNSUPPORTED"
  | "ERROR";

export const STATUSES: Status[] = [
  "PASS",
  "FAIL",
  "EXPECTED_FAIL",
  "UNEXPECTED_PASS",
  "NOT_AVAILABLE",
  "PRECONDITION_FAILED",
  "MANUAL",
  "INCONCLUSIVE",
  "UNSUPPORTED",
  "ERROR",
];

/**
 * A SAS signature in a URL's query: `sig=` up to the next parameter (group 1,
 * the name and `=`). No report or output holds its value: redaction replaces
 * it, and a message cut short is never cut inside one.
 */
export const SAS_SIGNATURE = String.raw`([?&]sig=)[^&\s"']*`;

/** One HTTP exchange (one try of a request), as it went over the wire. */
export interface Exchange {
  seq: number;
  /** Label of the test step that made the request (t.step). */
  step?: string;
  via: "sdk" | "raw";
  /** The service spoken to, and the REST operation the request is (fixtures/wire/operations.ts), e.g. "Put Page". */
  service?: Service;
  operation?: string;
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
  /** The row records this answer without relying on it (a fault here decides nothing). */
  faultAccepted?: boolean;
}

/** What the preflight found of one service. */
export interface ServiceProbe {
  service: Service;
  endpoint?: string;
  available: boolean;
  /** Why the service is not available (shown on its NOT_AVAILABLE rows). */
  reason?: string;
  server?: string;
  /** What Get Service Properties answered: its status and error code. */
  status?: number;
  code?: string;
  /** Round trip of the probe, in ms. */
  ms?: number;
}

/** An operation the target answered as not implemented (a 501, or an error code saying so). */
export interface Unsupported {
  /** The REST operation (fixtures/wire/operations.ts), e.g. "Put Page", "Lease Container (break)". */
  operation: string;
  status: number;
  code?: string;
}

/**
 * An operation the target answered with a server error (a 5xx other than 501,
 * not throttling) on every try of a request, in one run of a row.
 */
export interface ServerFault {
  /** The REST operation (fixtures/wire/operations.ts), e.g. "Lease Blob (renew)". */
  operation: string;
  status: number;
  code?: string;
  /** Tries of the request, every one answered with the fault. */
  tries: number;
}

/**
 * A target's pin of an operation it does not implement (the expectation
 * file's `unsupported`, keyed by an operation or its family, e.g. "Lease
 * Container" for every lease action): the rows that need it stay UNSUPPORTED,
 * without failing the run.
 */
export interface OperationPin {
  reason: string;
  link?: string;
  /** Semver range of the target versions it holds for; none: every version. */
  versions?: string;
}

/**
 * A failure as data, which a pin matches on (never on the message's words):
 * the step the row was in, what the failing check expected and what it got
 * (statuses and error codes, values), for a cell computed from finer rows the
 * finer rows that failed. ETags, dates, GUIDs and names are normalised as in
 * the message's legacy signature.
 */
export interface FailureSignature {
  step?: string;
  expected?: string;
  got?: string;
  failed?: string[];
}

/** A pin's signature matches a result: the data form its `failure`, the older text form its `signature`. */
export function signatureMatches(pinned: string | FailureSignature | undefined, result: Pick<RowResult, "signature" | "failure">): boolean {
  if (pinned === undefined) return true;
  if (typeof pinned === "string") return pinned === result.signature;
  return !!result.failure && canonical(pinned) === canonical(result.failure);
}

const canonical = (s: FailureSignature) =>
  JSON.stringify(
    Object.fromEntries(
      Object.entries(s)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    ),
  );

/** A signature for people: the text form as is, the data form as "step: expected …, got …". */
export function showSignature(s: string | FailureSignature | undefined): string {
  if (s === undefined) return "any";
  if (typeof s === "string") return s;
  const parts = [
    s.step && `step "${s.step}"`,
    s.expected !== undefined && `expected ${s.expected}`,
    s.got !== undefined && `got ${s.got}`,
    s.failed && `failed ${s.failed.join(", ")}`,
  ].filter(Boolean);
  return parts.length ? parts.join(", ") : "any failure";
}

/** A row's pinned outcome in a target's expectation file. */
export interface Pin {
  status: Status;
  /** The failure the pin expects: as data (FailureSignature), or, in files written before it, the normalised message. */
  signature?: string | FailureSignature;
  reason: string;
  link?: string;
  /** Semver range of the target versions (from its `Server` header) the pin holds for; none: every version. */
  versions?: string;
  /** A per-operation pin applied to an UNSUPPORTED row: the operations (or families) it names. */
  operations?: string[];
}

/** What a row's claim rests on: a live recording of Azure, the reference pages alone, or pages that disagree. */
export type Basis = "live" | "reference" | "disputed";

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
  /** The failure's message normalised (its first line; ETags, dates, names replaced): what older pins match. */
  signature?: string;
  /** The failure as data: what pins match. */
  failure?: FailureSignature;
  expectation?: Pin;
  notes: Record<string, unknown>;
  /** When the row started (it got its slot in the pool), in ms from the run's start. */
  startedMs?: number;
  durationMs: number;
  evidence: Exchange[];
  /** The row ended INCONCLUSIVE and was run once more, with fresh resources: this is the first run. */
  retried?: { message?: string; durationMs: number; evidence: Exchange[] };
  /** UNSUPPORTED: the operations the target answered as not implemented, one entry each. */
  unsupported?: Unsupported[];
  /** Where the row's code is: `file:line` of its ID, or of its claim for a generated row (`--list` shows the same). */
  location?: string;
  /** What the claim rests on (suites/live-answers.ts): a live recording, the reference alone, or disputed pages. */
  basis?: Basis;
  /** For a `live` basis: where the recording is. */
  liveSource?: string;
  /**
   * A server fault decided the row (FAIL): the operations the target answered
   * with a server error on every try, in both runs of the row, one entry each.
   * On an INCONCLUSIVE row: met in one run only.
   */
  faults?: ServerFault[];
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
  /** The expectation file's per-operation pins (`unsupported`), as applied to UNSUPPORTED rows. */
  operationPins?: Record<string, OperationPin>;
  /** The expectation file's per-operation server-fault pins (`faults`), as applied to rows a server fault decided. */
  faultPins?: Record<string, OperationPin>;
}

export const SCHEMA = "azure-storage-concurrency-conformance/report@3";
/** Report schemas this version reads (compare, expectations:update): @1 is @2 without UNSUPPORTED, @2 is @3 without ERROR, `causes` and `basis`. */
export const READABLE_SCHEMAS = [
  "azure-storage-concurrency-conformance/report@1",
  "azure-storage-concurrency-conformance/report@2",
  SCHEMA,
];

/** An answer that decided non-PASS rows (model/causes.ts groups them): the report opens with these. */
export interface Cause {
  /** 1 for the cause that decided the most rows. */
  rank: number;
  /** The REST operation whose answer decided the rows ("" where no answer did: a service not served, a feature off). */
  operation: string;
  status?: number;
  code?: string;
  /** What was wrong with the answer, in words: "not implemented", "refused where the row needed it to succeed", "expected a new ETag, got the same ETag". */
  problem: string;
  /** The kind of step it met the rows in: setup, the claim's request, a read-back. */
  step: string;
  /** The rows it decided, in report order. */
  rows: string[];
}

export interface Report {
  schema: typeof SCHEMA;
  run: RunInfo;
  summary: Record<Status, number> & { passed: number; failed: number; skipped: number; total: number };
  /** The answers that decided the non-PASS rows, most rows first (model/causes.ts); absent in reports before @3. */
  causes?: Cause[];
  /** What the run sent of the concurrency surface, pair by pair (model/surface-coverage.ts); absent in reports before it. */
  surface?: SurfaceCoverage;
  results: RowResult[];
  /** Registered rows not selected in this run (e.g. by --grep or --services). */
  notRun: string[];
}

/**
 * Whether a result fails the run: FAIL, UNEXPECTED_PASS, and UNSUPPORTED unless
 * the target's expectation file pins the operations it lacks.
 */
export const failsRun = (r: Pick<RowResult, "status" | "expectation">): boolean =>
  r.status === "FAIL" ||
  r.status === "UNEXPECTED_PASS" ||
  r.status === "ERROR" ||
  (r.status === "UNSUPPORTED" && r.expectation?.status !== "UNSUPPORTED");
/**
 * The exit code a report's results give: 3 when the suite itself failed on a
 * row (ERROR: a bug in the suite, whatever the other verdicts), else 1 when a
 * result fails the run, else 4 when rows are left INCONCLUSIVE (the run is
 * incomplete; a row pinned as INCONCLUSIVE does not count), else 0.
 */
export function exitCodeOf(results: Pick<RowResult, "status" | "expectation">[]): 0 | 1 | 3 | 4 {
  if (results.some((r) => r.status === "ERROR")) return INTERNAL_ERROR_EXIT_CODE;
  if (results.some(failsRun)) return 1;
  return results.some(leavesRunIncomplete) ? INCOMPLETE_EXIT_CODE : 0;
}
export const INTERNAL_ERROR_EXIT_CODE = 3;

/** An INCONCLUSIVE row not pinned so: a row pinned as INCONCLUSIVE is one the target's file says cannot be decided there. */
export const leavesRunIncomplete = (r: Pick<RowResult, "status" | "expectation">): boolean =>
  r.status === "INCONCLUSIVE" && r.expectation?.status !== "INCONCLUSIVE";
export const INCOMPLETE_EXIT_CODE = 4;
export const countsAsPassed = (s: Status): boolean => s === "PASS" || s === "EXPECTED_FAIL";

export function summarise(results: RowResult[]): Report["summary"] {
  const counts = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<Status, number>;
  for (const r of results) counts[r.status] += 1;
  const passed = results.filter((r) => countsAsPassed(r.status)).length;
  const failed = results.filter(failsRun).length;
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
  UNSUPPORTED: "🚫",
  ERROR: "🐞",
};

/** An operation's family, what a pin may name to cover every sub-action: "Lease Container (break)" → "Lease Container". */
export const operationFamily = (operation: string): string => operation.replace(/\s*\(.*\)$/, "");

/** The pin (by exact operation, else by its family) that covers an operation, with the key it is filed under. */
export function operationPinFor(
  operation: string,
  pins: Record<string, OperationPin> | undefined,
): (OperationPin & { key: string }) | undefined {
  if (!pins) return undefined;
  const family = operationFamily(operation);
  const key = operation in pins ? operation : family in pins ? family : undefined;
  return key === undefined ? undefined : { ...pins[key], key };
}
