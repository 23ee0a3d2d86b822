// Azure's own answers (catalogue S, DESIGN "Azure's own answers"): the
// exchanges of the Azure SDKs' live test recordings that bear on concurrency,
// normalised to one record each (catalogue/azure-answers.jsonl, written by
// `npm run answers`), and the answers the rows claim, in the same shape, so a
// lint can set each claim against what Azure is on record answering.
//
// A record's shape is its operation (as the request classifier names it), the
// concurrency parameters it carried with what each held *relative to the
// state the recording had established* (the resource's current ETag or
// another one, a date before or after its Last-Modified, the holder's lease
// ID or another), that state (leased, breaking, broken, released, never
// leased; the resource there or not) and a few qualifiers of the request
// (a snapshot, a range). What a recording cannot show is left out of the
// record (an unknown state, a value it cannot place): such a record matches
// no claim that needs it. This module is pure: no I/O, no project imports.

export type AnswerService = "blob" | "queue" | "table" | "file";

/**
 * What a parameter held, by kind (`kindOfValue` tells which vocabulary a
 * parameter takes):
 * - an ETag condition (`if-match`, `if-none-match`, `x-ms-source-if-match`,
 *   `x-ms-source-if-none-match`): `current` (the addressed resource's ETag
 *   as the recording last showed it), `other` (any other value: a superseded
 *   ETag or a made-up one), `*`;
 * - a date condition (`if-modified-since`, `if-unmodified-since`, and the
 *   source's): `before`, `equal`, `after` the resource's Last-Modified;
 * - a lease ID (`x-ms-lease-id`; `x-ms-source-lease-id` of the source):
 *   `holder` (the ID of the resource's current or last lease, whatever its
 *   state now), `other` (another GUID), `not-guid`;
 * - `x-ms-proposed-lease-id`: `holder` (the resource's current or last
 *   lease ID, as a holder re-acquiring proposes it), `other` (another GUID),
 *   `not-guid`;
 * - `x-ms-lease-duration`: `infinite` (-1), `in-range` (15–60), `out-of-range`;
 * - `x-ms-lease-break-period`: `zero`, `in-range` (1–60), `out-of-range`;
 * - a tag predicate (`x-ms-if-tags`, `x-ms-source-if-tags`): `true`,
 *   `false` (on the tags the recording set), `invalid` (the service cannot
 *   parse it);
 * - a sequence-number condition, `x-ms-blob-condition-maxsize`, a CRC64
 *   source condition: `holds`, `fails`;
 * - `x-ms-blob-condition-appendpos`: `length` (the blob's length), `other`;
 * - `popreceipt`: `current`, `stale` (superseded by a later dequeue or
 *   update), `malformed`;
 * - `visibilitytimeout`, `messagettl`: `zero`, `in-range`, `out-of-range`,
 *   `infinite` (a time to live of -1).
 */
export type ParameterValue = string;

/** The lease state a recording established on the addressed resource. */
export type LeaseStateOf = "available" | "leased" | "breaking" | "broken" | "released" | "expired";

export interface RecordedState {
  /** The lease, as the recording's earlier exchanges on the resource (or an answer's x-ms-lease-state) show it. */
  lease?: LeaseStateOf;
  /** Whether the lease is infinite (x-ms-lease-duration: infinite, or acquired with -1). */
  leaseDuration?: "infinite" | "fixed";
  /** Whether the addressed resource exists (created, or answered, earlier in the recording; deleted since). */
  exists?: boolean;
}

export interface AnswerSource {
  /** The SDK whose test recorded it: net, java, python, js, go, cpp, rust. */
  sdk: string;
  /** owner/name on GitHub. */
  repo: string;
  path: string;
  commit: string;
  /** The recording's own date (its first answer's Date), YYYY-MM-DD. */
  date?: string;
  /** The exchange's index in the recording (0-based). */
  index: number;
}

/** One recorded exchange that bears on concurrency. */
export interface RecordedAnswer {
  service: AnswerService;
  /** As fixtures/wire/operations.ts names the request, with the surface's variant (model/surface.ts surfaceOperationOf): "Lease Blob (acquire)", "Put Page (clear)". */
  operation: string;
  /** The concurrency parameters the request carried (catalogue/surface.tsv's kinds), lower case, each with what it held; "unknown" where the recording cannot place it. */
  params: Record<string, ParameterValue>;
  state: RecordedState;
  /** Qualifiers of the request the claims tell apart: "snapshot" (snapshot=), "version" (versionid=), "range" (a read of the content, Get Blob or Get File, with Range or x-ms-range). Sorted; absent when none. */
  shape?: string[];
  status: number;
  /** x-ms-error-code (or the error body's Code), when the answer has one. */
  code?: string;
  /** x-ms-version the request sent. */
  version?: string;
  source: AnswerSource;
}

/** One answer a claim accepts: a status, and where the claim names them the error codes it accepts. */
export interface AcceptedAnswer {
  status: number;
  codes?: string[];
}

/**
 * An answer a row claims for requests of one shape, as data the lint sets
 * against the corpus. Each constraint a claim names must be one a record
 * shows: a record that cannot show the state or a value never matches.
 */
export interface ClaimedAnswer {
  service: AnswerService;
  operation: string;
  /** The concurrency parameters the request carries, each with the values it may hold (any of them): a record must carry each. */
  params: Record<string, ParameterValue | ParameterValue[]>;
  /** Parameters the request may also carry without changing the claim (an acquire's duration and proposed ID), with the values they may hold; a record carrying any other parameter does not match. */
  also?: Record<string, ParameterValue[]>;
  /** The state the claim is about: each field named must be one the record shows, among the values given. */
  state?: { lease?: LeaseStateOf | LeaseStateOf[]; leaseDuration?: "infinite" | "fixed"; exists?: boolean };
  /** The request's qualifiers, as in RecordedAnswer.shape; none by default. */
  shape?: string[];
  /** What the claim accepts: any one of these. */
  accepts?: AcceptedAnswer[];
  /** What the claim refuses, where it accepts anything else ("not evaluated: neither 304 nor 412"). */
  refuses?: number[];
  /** Where the claim holds from (x-ms-version, YYYY-MM-DD): older records do not match. */
  since?: string;
}

const ETAG_PARAMS = ["if-match", "if-none-match", "x-ms-source-if-match", "x-ms-source-if-none-match"];
const DATE_PARAMS = ["if-modified-since", "if-unmodified-since", "x-ms-source-if-modified-since", "x-ms-source-if-unmodified-since"];

/** The vocabulary a parameter's value takes (see ParameterValue). */
export function kindOfValue(parameter: string): string {
  const p = parameter.toLowerCase();
  if (ETAG_PARAMS.includes(p)) return "etag";
  if (DATE_PARAMS.includes(p)) return "date";
  if (p === "x-ms-lease-id" || p === "x-ms-source-lease-id") return "lease id";
  if (p === "x-ms-proposed-lease-id") return "proposed lease id";
  if (p === "x-ms-lease-duration") return "lease duration";
  if (p === "x-ms-lease-break-period") return "break period";
  if (p === "x-ms-if-tags" || p === "x-ms-source-if-tags") return "tag predicate";
  if (p === "x-ms-blob-condition-appendpos") return "append position";
  if (p === "popreceipt") return "pop receipt";
  if (p === "visibilitytimeout" || p === "messagettl") return "seconds";
  return "holds or fails";
}

/** The values of each vocabulary; "unknown" is in none, so a value a recording could not place matches nothing. */
export const VALUES: Record<string, readonly string[]> = {
  etag: ["current", "other", "*"],
  date: ["before", "equal", "after"],
  "lease id": ["holder", "other", "not-guid"],
  "proposed lease id": ["holder", "other", "not-guid"],
  "lease duration": ["infinite", "in-range", "out-of-range"],
  "break period": ["zero", "in-range", "out-of-range"],
  "tag predicate": ["true", "false", "invalid"],
  "append position": ["length", "other"],
  "pop receipt": ["current", "stale", "malformed"],
  seconds: ["zero", "in-range", "out-of-range", "infinite"],
  "holds or fails": ["holds", "fails"],
};

/**
 * The values of a condition that fail it, by HTTP's reading of the header
 * (RFC 9110 13.1; catalogue C "What yes and no mean"): what a claim about a
 * "failing" or "holding" condition covers. `If-None-Match: *` is left out: on
 * a write that creates nothing the service does not evaluate it (catalogue
 * C), so it is a claim of its own, never a "failing If-None-Match".
 */
export function failingValues(parameter: string): string[] {
  const kind = kindOfValue(parameter);
  return conditionValues(parameter)?.failing ?? (kind === "holds or fails" || kind === "tag predicate" ? ["fails", "false"] : []);
}

export function holdingValues(parameter: string): string[] {
  return conditionValues(parameter)?.holding ?? ["holds", "true"];
}

/** Each condition header's failing and holding values, side by side (a source condition as its header). */
const CONDITION_VALUES = new Map<string, { failing: string[]; holding: string[] }>([
  ["if-match", { failing: ["other"], holding: ["current", "*"] }],
  ["if-none-match", { failing: ["current"], holding: ["other"] }],
  ["if-modified-since", { failing: ["equal", "after"], holding: ["before"] }],
  ["if-unmodified-since", { failing: ["before"], holding: ["equal", "after"] }],
]);
const conditionValues = (parameter: string) => CONDITION_VALUES.get(parameter.toLowerCase().replace(/^x-ms-source-/, ""));

const asList = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);
const sameShape = (a: string[] | undefined, b: string[] | undefined) =>
  (a ?? []).slice().sort().join(",") === (b ?? []).slice().sort().join(",");

/** Whether a record is of a claim's shape: same operation, exactly the claim's parameters with values it names, its state shown, the same qualifiers. */
export function recordMatches(claim: ClaimedAnswer, record: RecordedAnswer): boolean {
  if (record.service !== claim.service || record.operation !== claim.operation) return false;
  if (!sameShape(claim.shape, record.shape)) return false;
  const names = Object.keys(claim.params);
  if (!names.every((n) => n in record.params && asList(claim.params[n]).includes(record.params[n]))) return false;
  const others = Object.keys(record.params).filter((n) => !names.includes(n));
  if (!others.every((n) => claim.also?.[n]?.includes(record.params[n]))) return false;
  const s = claim.state ?? {};
  if (s.lease !== undefined && (record.state.lease === undefined || !asList(s.lease).includes(record.state.lease))) return false;
  if (s.leaseDuration !== undefined && record.state.leaseDuration !== s.leaseDuration) return false;
  if (s.exists !== undefined && record.state.exists !== s.exists) return false;
  if (claim.since && (!record.version || record.version < claim.since)) return false;
  return true;
}

/** Whether a record's answer is one the claim accepts (its code compared where both name one). */
export function answerAgrees(claim: ClaimedAnswer, record: RecordedAnswer): boolean {
  if (claim.refuses && claim.refuses.includes(record.status)) return false;
  if (!claim.accepts) return true;
  return claim.accepts.some((a) => a.status === record.status && (!a.codes || !record.code || a.codes.includes(record.code)));
}

/** The shape of a record, as one line: what the corpus's uncovered list groups by. */
export function shapeKey(r: Pick<RecordedAnswer, "service" | "operation" | "params" | "state" | "shape">): string {
  const params = Object.entries(r.params)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
  const state = Object.entries(r.state)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
  return [r.service, r.operation, params || "-", state || "-", (r.shape ?? []).join(",") || "-"].join(" | ");
}

/** The records of a claim's shape. */
export const recordsOf = (claim: ClaimedAnswer, records: RecordedAnswer[]): RecordedAnswer[] =>
  records.filter((r) => recordMatches(claim, r));

/** Each record of a claim's shape whose answer the claim does not accept. */
export function contradictionsOf(claims: ClaimedAnswer[], records: RecordedAnswer[]): { claim: ClaimedAnswer; record: RecordedAnswer }[] {
  return claims.flatMap((claim) => recordsOf(claim, records).flatMap((record) => (answerAgrees(claim, record) ? [] : [{ claim, record }])));
}

/** Recorded answers of one shape that no row claims (catalogue/azure-answers-uncovered.tsv says why each has no row). */
export interface Uncovered {
  /** shapeKey of the records. */
  shape: string;
  /** "409 ContainerAlreadyExists". */
  answer: string;
  records: number;
  /** The first record's source, in words. */
  source: string;
}

/** The key of an uncovered answer, as its line in catalogue/azure-answers-uncovered.tsv starts (shape, tab, answer). */
export const uncoveredKey = (u: Pick<Uncovered, "shape" | "answer">): string => `${u.shape}\t${u.answer}`;

/** The recorded answers whose shape no claim matches, one entry per (shape, answer), most records first. */
export function uncoveredOf(claims: ClaimedAnswer[], records: RecordedAnswer[]): Uncovered[] {
  const out = new Map<string, Uncovered>();
  for (const r of records) {
    if (claims.some((c) => recordMatches(c, r))) continue;
    const u = { shape: shapeKey(r), answer: `${r.status}${r.code ? ` ${r.code}` : ""}` };
    const seen = out.get(uncoveredKey(u));
    if (seen) seen.records++;
    else out.set(uncoveredKey(u), { ...u, records: 1, source: `${r.source.sdk}: ${r.source.repo}/${r.source.path}#${r.source.index}` });
  }
  return [...out.values()].sort((a, b) => b.records - a.records || uncoveredKey(a).localeCompare(uncoveredKey(b)));
}

/** catalogue/azure-answers-uncovered.tsv (shape, answer, reason; a header line first): why each uncovered answer has no row, by key. */
export function parseUncoveredReasons(text: string): Map<string, string> {
  const lines = text.split("\n").filter((l) => l.trim() && !l.startsWith("#"));
  return new Map(
    lines.slice(1).map((l) => {
      const [shape, answer, reason] = l.split("\t");
      return [uncoveredKey({ shape, answer }), reason ?? ""];
    }),
  );
}

/** Whether a claim is about a refusal: everything it accepts is one (a 3xx or an error), or it names what it refuses. */
export const claimsRefusal = (c: ClaimedAnswer): boolean => !!c.refuses || (!!c.accepts && c.accepts.every((a) => a.status >= 300));

/** What a row's claim rests on: recorded live answers (how many, of which service versions), the reference page alone, or pages that disagree. */
export interface Basis {
  kind: "live" | "reference" | "disputed";
  /** The recorded exchanges that back a claim of the row (live). */
  exchanges?: number;
  /** Their x-ms-version, oldest first (live). */
  versions?: string[];
  /** Their SDKs (live). */
  sdks?: string[];
}

/** A row's basis: a disputed row is disputed; a row with a claim some recorded answer of its shape agrees with is live; any other, the reference. */
export function basisOf(level: string, claims: ClaimedAnswer[] | undefined, records: RecordedAnswer[]): Basis {
  if (level === "disputed") return { kind: "disputed" };
  const backing = (claims ?? []).flatMap((c) => recordsOf(c, records).filter((r) => answerAgrees(c, r)));
  if (!backing.length) return { kind: "reference" };
  const uniq = (xs: (string | undefined)[]) => [...new Set(xs.filter((x): x is string => !!x))].sort();
  return {
    kind: "live",
    exchanges: backing.length,
    versions: uniq(backing.map((r) => r.version)),
    sdks: uniq(backing.map((r) => r.source.sdk)),
  };
}

/** A basis in one line: "live: 4 exchanges (2018-03-28 to 2021-08-06; net, python)", "reference", "disputed". */
export function basisText(b: Basis): string {
  if (b.kind !== "live") return b.kind;
  const v = b.versions ?? [];
  const span = v.length ? (v.length === 1 ? v[0] : `${v[0]} to ${v.at(-1)}`) : "version not recorded";
  return `live: ${b.exchanges} exchange${b.exchanges === 1 ? "" : "s"} (${span}; ${(b.sdks ?? []).join(", ")})`;
}

/** Parses catalogue/azure-answers.jsonl. */
export const parseAnswers = (text: string): RecordedAnswer[] =>
  text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as RecordedAnswer);
