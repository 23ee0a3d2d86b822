// What a concurrency parameter held, in its vocabulary (model/answers.ts
// VALUES), relative to the state the recording had established; "unknown"
// where the recording cannot place it.
import { kindOfValue } from "../../model/answers.ts";
import { seconds, type ResourceState } from "./tracker.ts";

export const UNKNOWN = "unknown";

export interface Context {
  /** The addressed resource, and the copy source (x-ms-copy-source) for the x-ms-source-* parameters. */
  addressed: ResourceState;
  source?: ResourceState;
  status: number;
  version?: string;
  /** What an append adds (tracker.ts appendedBytes). */
  appended?: number;
  /** Where a pop receipt stands among the queue's messages (the tracker's receiptStanding). */
  receiptStanding?: (receipt: string) => "current" | "stale" | undefined;
}

/** ETags compared as the service does: quotes, a weak prefix and percent-encoding aside. */
const bareEtag = (e: string) => {
  const s = e.trim().replace(/^W\//, "").replace(/^"|"$/g, "");
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

const GUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
/** A lease ID as the service compares it: a GUID's hyphens are optional (JS tests send 32 hex digits, the answer hyphenates them). */
const sameLease = (a: string, b: string) => {
  const bare = (v: string) =>
    v
      .trim()
      .toLowerCase()
      .replace(/^\{|\}$/g, "");
  const x = bare(a),
    y = bare(b);
  return x === y || (GUID.test(x) && GUID.test(y) && x.replace(/-/g, "") === y.replace(/-/g, ""));
};
const integer = (v: string) => (/^\s*-?\d+\s*$/.test(v) ? Number(v) : undefined);

/** A tag predicate's truth on the given tags; undefined where it is not one this reads (`"k" = 'v' AND "k2" >= 'w'`). */
export function predicateHolds(predicate: string, tags: Record<string, string>): boolean | undefined {
  const terms = predicate.split(/\s+AND\s+/i);
  let holds = true;
  for (const term of terms) {
    // The key double-quoted, or bare (the C++ SDK's tests send `key1 = 'value1'`, which the service reads); `!=` is read as `<>`.
    const m = /^\s*(?:"([^"]+)"|([A-Za-z0-9_.:/+@-]+))\s*(=|<>|!=|<=|>=|<|>)\s*'([^']*)'\s*$/.exec(term);
    if (!m) return undefined;
    const [, quoted, bare, written, value] = m;
    const key = quoted ?? bare;
    const op = written === "!=" ? "<>" : written;
    const tag = tags[key];
    const ok =
      tag !== undefined &&
      (op === "="
        ? tag === value
        : op === "<>"
          ? tag !== value
          : op === "<"
            ? tag < value
            : op === ">"
              ? tag > value
              : op === "<="
                ? tag <= value
                : tag >= value);
    holds &&= ok;
  }
  return holds;
}

/** Where a pop receipt stands: the one that works, a superseded one, or not a receipt at all. */
function receiptValue(value: string, c: Context): string {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return "malformed";
  if (c.addressed.receipt === value) return "current";
  if (c.addressed.staleReceipts?.has(value)) return "stale";
  return c.receiptStanding?.(value) ?? UNKNOWN;
}

function secondsValue(parameter: string, value: string, version: string | undefined): string {
  const n = integer(value);
  if (n === undefined) return "out-of-range";
  if (n === 0) return "zero";
  if (parameter === "messagettl") {
    if (n === -1) return "infinite";
    // From 2017-07-29 a message may live any positive number of seconds; before, seven days at most.
    return n > 0 && (n <= 604800 || (!!version && version >= "2017-07-29" && n <= 2147483647)) ? "in-range" : "out-of-range";
  }
  return n > 0 && n <= 604800 ? "in-range" : "out-of-range";
}

/** What `parameter` (lower case) holding `value` was, in its vocabulary. */
export function valueOf(parameter: string, value: string, c: Context): string {
  const target = parameter.startsWith("x-ms-source-") ? c.source : c.addressed;
  switch (kindOfValue(parameter)) {
    case "etag":
      if (value.trim() === "*") return "*";
      if (!target?.etag) return UNKNOWN;
      return bareEtag(value) === bareEtag(target.etag) ? "current" : "other";
    case "date": {
      const at = seconds(value);
      if (at === undefined || target?.lastModified === undefined) return UNKNOWN;
      return at < target.lastModified ? "before" : at === target.lastModified ? "equal" : "after";
    }
    case "lease id":
      // A value that is no GUID is refused for its form (400 InvalidHeaderValue), whatever the lease: a shape of its own.
      if (!GUID.test(value.trim())) return "not-guid";
      if (target?.leaseId) return sameLease(value, target.leaseId) ? "holder" : "other";
      // Never leased in a recording that created it: no ID is the holder's.
      return target?.created ? "other" : UNKNOWN;
    case "proposed lease id":
      if (!GUID.test(value.trim())) return "not-guid";
      if (target?.leaseId) return sameLease(value, target.leaseId) ? "holder" : "other";
      return target?.created ? "other" : UNKNOWN;
    case "lease duration": {
      const n = integer(value);
      return n === -1 ? "infinite" : n !== undefined && n >= 15 && n <= 60 ? "in-range" : "out-of-range";
    }
    case "break period": {
      const n = integer(value);
      return n === 0 ? "zero" : n !== undefined && n >= 1 && n <= 60 ? "in-range" : "out-of-range";
    }
    case "tag predicate": {
      const holds = target?.tags ? predicateHolds(value, target.tags) : undefined;
      if (holds !== undefined) return String(holds);
      // A predicate this cannot read, refused as a bad request: the service could not parse it either.
      return predicateHolds(value, {}) === undefined && c.status === 400 ? "invalid" : UNKNOWN;
    }
    case "append position": {
      const n = integer(value);
      return c.addressed.length === undefined || n === undefined ? UNKNOWN : n === c.addressed.length ? "length" : "other";
    }
    case "pop receipt":
      return receiptValue(value, c);
    case "seconds":
      return secondsValue(parameter, value, c.version);
  }
  return holdsOrFails(parameter, value, c);
}

/** A sequence-number or maximum-size condition, where the tracked state tells. */
function holdsOrFails(parameter: string, value: string, c: Context): string {
  const n = integer(value);
  const s = c.addressed;
  if (n === undefined) return UNKNOWN;
  // A negative sequence number is no sequence number: the service refuses it as input (400 InvalidInput), not as a failed condition.
  if (n < 0 && parameter.startsWith("x-ms-if-sequence-number-")) return UNKNOWN;
  const verdict = (ok: boolean) => (ok ? "holds" : "fails");
  if (s.sequenceNumber !== undefined) {
    if (parameter === "x-ms-if-sequence-number-le") return verdict(s.sequenceNumber <= n);
    if (parameter === "x-ms-if-sequence-number-lt") return verdict(s.sequenceNumber < n);
    if (parameter === "x-ms-if-sequence-number-eq") return verdict(s.sequenceNumber === n);
  }
  if (parameter === "x-ms-blob-condition-maxsize" && s.length !== undefined && c.appended !== undefined)
    return verdict(s.length + c.appended <= n);
  return UNKNOWN;
}
