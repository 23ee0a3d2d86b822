// What a run sent of the concurrency surface, from its rows' evidence: for
// each pair, the rows whose exchanges carried the parameter on the operation,
// whether one of them was refused for it alone, and why a pair went unsent.
// The rules are stated in reporters/SCHEMA.md (`surface`).
import type { Exchange, RowResult, ServiceProbe } from "./result.ts";
import {
  classifierOperationOf,
  kindOf,
  notApplicable,
  surfaceOperationOf,
  type ListedPair,
  type NotSentReason,
  type SurfaceCoverage,
  type SurfaceEntry,
  type SurfacePair,
} from "./surface.ts";

/** An exchange's answer, and what the request was: what a refusal is judged on. */
interface Answer {
  status?: number;
  code?: string;
  method: string;
  operation: string;
}

const CONDITION_CODES = ["ConditionNotMet", "TargetConditionNotMet", "UpdateConditionNotSatisfied"];
const SOURCE_CODES = ["SourceConditionNotMet", "CannotVerifyCopySource"];
const READS = ["GET", "HEAD"];

const integer = (v: string) => (/^-?\d+$/.test(v.trim()) ? Number(v) : NaN);
const within = (v: string, lo: number, hi: number) => integer(v) >= lo && integer(v) <= hi;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SEVEN_DAYS = 7 * 24 * 3600;

/** Whether a lease or queue parameter's value is one its operation accepts (the catalogue's ranges, sections L, Q and F). */
function inRange(parameter: string, value: string, operation: string): boolean {
  switch (parameter) {
    case "x-ms-lease-duration":
      return integer(value) === -1 || (!operation.startsWith("Lease File") && within(value, 15, 60));
    case "x-ms-lease-break-period":
      return within(value, 0, 60);
    case "x-ms-proposed-lease-id":
      return GUID.test(value.trim());
    case "visibilitytimeout":
      return within(value, operation === "Get Messages" ? 1 : 0, SEVEN_DAYS);
    case "messagettl":
      return integer(value) === -1 || integer(value) >= 1;
  }
  return true;
}

/**
 * Whether the answer is a refusal the parameter, with this value, can cause
 * (its kind's refusal in sections C, L, Q and X). An answer without an error
 * code matches whatever code the refusal has.
 */
export function couldRefuse(parameter: string, value: string, a: Answer): boolean {
  const is = (status: number, codes?: string[]) => a.status === status && (!codes || a.code === undefined || codes.includes(a.code));
  const p = parameter;
  switch (kindOf(p)) {
    case "condition":
      return (
        is(412, CONDITION_CODES) ||
        is(400, ["MultipleConditionHeadersNotSupported"]) ||
        (a.status === 304 && READS.includes(a.method) && (p === "if-none-match" || p === "if-modified-since")) ||
        (p === "if-none-match" && value.trim() === "*" && is(409, ["BlobAlreadyExists"]))
      );
    case "tag predicate":
      return is(412, ["ConditionNotMet"]) || is(400);
    case "source condition":
      if (p.endsWith("-crc64")) return is(412);
      if (p === "x-ms-source-if-tags") return is(412, ["ConditionNotMet", ...SOURCE_CODES]);
      return is(412, SOURCE_CODES) || ((p === "x-ms-source-if-none-match" || p === "x-ms-source-if-modified-since") && is(304));
    case "sequence number":
      return is(412, ["SequenceNumberConditionNotMet"]);
    case "append condition":
      return is(412, [p.endsWith("appendpos") ? "AppendPositionConditionNotMet" : "MaxBlobSizeConditionNotMet"]);
    case "lease id":
      return (
        is(412, ["InfiniteLeaseDurationRequired"]) ||
        ((is(412) || is(409)) && (a.code === undefined || (/^Lease/.test(a.code) && a.code !== "LeaseAlreadyPresent")))
      );
    case "lease parameter":
      if (is(400)) return !inRange(p, value, a.operation);
      return p === "x-ms-proposed-lease-id" && is(409, ["LeaseAlreadyPresent", "LeaseIsBreakingAndCannotBeAcquired"]);
    case "queue parameter":
      // A receipt that is not the current one (Azure: 404 MessageNotFound; a 400 PopReceiptMismatch is seen too),
      // a timeout out of its range (OutOfRangeQueryParameterValue, OutOfRangeInput): the codes tell the two apart on one request.
      if (p === "popreceipt") return is(404, ["MessageNotFound"]) || is(400, ["PopReceiptMismatch", "InvalidQueryParameterValue"]);
      return is(400, ["OutOfRangeQueryParameterValue", "OutOfRangeInput", "InvalidQueryParameterValue"]) && !inRange(p, value, a.operation);
  }
  return false;
}

/** The surface parameters of the exchange's operation it carried, with their values (a header, or a query parameter). */
function carried(ex: Exchange, parameters: string[]): Map<string, string> {
  if (!parameters.length) return new Map();
  const query = new URLSearchParams(ex.url.split("?")[1] ?? "");
  const lowerQuery = new Map([...query].map(([k, v]) => [k.toLowerCase(), v]));
  const out = new Map<string, string>();
  for (const p of parameters) {
    const value = ex.requestHeaders[p] ?? lowerQuery.get(p);
    if (value !== undefined) out.set(p, value);
  }
  return out;
}

const keyOf = (service: string, operation: string) => `${service}\t${operation}`;
const seenKey = (service: string, operation: string, parameter: string) => `${keyOf(service, operation)}\t${parameter}`;

interface Seen {
  rows: Set<string>;
  refusedBy: Set<string>;
}

/** For each pair (by seenKey), the rows that sent it and those refused for it alone. */
function seenInEvidence(pairs: SurfacePair[], results: RowResult[]): Map<string, Seen> {
  const parametersOf = new Map<string, string[]>();
  for (const p of pairs)
    parametersOf.set(keyOf(p.service, p.operation), [...(parametersOf.get(keyOf(p.service, p.operation)) ?? []), p.parameter]);
  const seen = new Map<string, Seen>();
  for (const r of results) {
    // A request of an operation the target does not implement exercised nothing: the pair is UNSUPPORTED, not sent.
    const lacks = new Set((r.unsupported ?? []).map((u) => u.operation));
    for (const ex of [...r.evidence, ...(r.retried?.evidence ?? [])]) {
      if (!ex.operation || lacks.has(ex.operation)) continue;
      const service = ex.service ?? r.service;
      const operation = surfaceOperationOf(ex.operation, (n) => ex.requestHeaders[n]);
      const sent = carried(ex, parametersOf.get(keyOf(service, operation)) ?? []);
      const answer: Answer = { status: ex.status, code: ex.errorCode, method: ex.method, operation };
      for (const [p, value] of sent) {
        const entry = seen.get(seenKey(service, operation, p)) ?? { rows: new Set<string>(), refusedBy: new Set<string>() };
        entry.rows.add(r.id);
        const alone = couldRefuse(p, value, answer) && ![...sent].some(([q, v]) => q !== p && couldRefuse(q, v, answer));
        if (alone) entry.refusedBy.add(r.id);
        seen.set(seenKey(service, operation, p), entry);
      }
    }
  }
  return seen;
}

/** What the target and the run say of a pair no row sent (the first that holds, in this order). */
function whyNotSent(
  pair: ListedPair | SurfacePair,
  results: Map<string, RowResult>,
  context: CoverageContext,
  lacking: Set<string>,
): NotSentReason {
  if (notApplicable(pair)) return "NOT_APPLICABLE";
  if (context.services.some((s) => s.service === pair.service && !s.available)) return "NOT_AVAILABLE";
  if (lacking.has(keyOf(pair.service, classifierOperationOf(pair.operation))) || lacking.has(keyOf(pair.service, pair.operation)))
    return "UNSUPPORTED";
  const covering = "rows" in pair ? pair.rows : [];
  const statuses = covering.map((id) => results.get(id)?.status);
  for (const s of ["UNSUPPORTED", "PRECONDITION_FAILED", "NOT_AVAILABLE"] as const) if (statuses.includes(s)) return s;
  if (covering.length && covering.every((id) => context.notRun.includes(id))) return "NOT_RUN";
  return "NO_ROW";
}

export interface CoverageContext {
  /** The preflight's probes (run.target.services). */
  services: ServiceProbe[];
  /** Registered rows this run did not select (report.notRun). */
  notRun: string[];
}

/**
 * The run's coverage of the surface. `pairs` are the surface's pairs; where
 * they carry `rows` (catalogue/surface.tsv: the rows that sent each in a full
 * run), those rows' statuses say why a pair went unsent.
 */
export function surfaceCoverage(pairs: (ListedPair | SurfacePair)[], results: RowResult[], context: CoverageContext): SurfaceCoverage {
  const seen = seenInEvidence(pairs, results);
  const byId = new Map(results.map((r) => [r.id, r]));
  const lacking = new Set(
    results.flatMap((r) =>
      (r.unsupported ?? []).map((u) => keyOf(r.evidence.find((e) => e.operation === u.operation)?.service ?? r.service, u.operation)),
    ),
  );
  const entries = pairs.map((pair): SurfaceEntry => {
    const s = seen.get(seenKey(pair.service, pair.operation, pair.parameter));
    const base: SurfacePair = {
      service: pair.service,
      operation: pair.operation,
      sdkOperation: pair.sdkOperation,
      parameter: pair.parameter,
      kind: pair.kind,
    };
    if (!s) return { ...base, sent: false, rows: [], refusedAlone: false, notSentBecause: whyNotSent(pair, byId, context, lacking) };
    const refusedBy = [...s.refusedBy].sort();
    const rows = [...s.rows].sort();
    const failed = refusedBy.length
      ? []
      : rows.flatMap((id) => {
          const status = byId.get(id)?.status;
          return status && status !== "PASS" ? [[id, status] as const] : [];
        });
    return {
      ...base,
      sent: true,
      rows,
      refusedAlone: refusedBy.length > 0,
      ...(refusedBy.length ? { refusedBy } : {}),
      ...(failed.length ? { notRefusedIn: Object.fromEntries(failed) } : {}),
    };
  });
  return {
    pairs: entries.length,
    sent: entries.filter((e) => e.sent).length,
    refusedAlone: entries.filter((e) => e.refusedAlone).length,
    entries,
  };
}
