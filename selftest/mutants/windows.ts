// Mutants generated from the window claims (suites/blob/window-claims.ts, suites/queue/window-claims.ts):
// for each window, a target that ends it early, which its row must catch: the
// opening request is forwarded with half the length asked while the answer
// states the full one, or, where the operation refuses a shorter length (a
// lease), the resource's reads report the lease lapsed from halfway. The same data gives each kind's
// legal variation, a window ending one second late, which must fail nothing
// (selftest/windows.test.ts); it is not a mutant.
import { BLOB_WINDOWS } from "../../suites/blob/window-claims.ts";
import { QUEUE_WINDOWS } from "../../suites/queue/window-claims.ts";
import type { WindowClaim } from "../../suites/window-kit.ts";

const WINDOWS: WindowClaim[] = [...BLOB_WINDOWS, ...QUEUE_WINDOWS];
import { query, segments, type ClaimTable, type Mutant, type ProxyRequest, type ProxyResponse } from "./types.ts";

/** The request as the window's wire description reads it. */
function opens(claim: WindowClaim, req: ProxyRequest): boolean {
  if (req.service !== claim.wire.service) return false;
  return claim.wire.opens({
    method: req.method,
    path: "/" + segments(req).join("/"),
    query: query(req),
    header: (n) => req.headers[n.toLowerCase()],
  });
}

function readLength(claim: WindowClaim, req: ProxyRequest): number | undefined {
  const { length } = claim.wire;
  const v = length.in === "header" ? req.headers[length.name] : query(req).get(length.name);
  return v === undefined || v === null ? undefined : Number(v);
}

function writeLength(claim: WindowClaim, req: ProxyRequest, seconds: number): void {
  const { length } = claim.wire;
  if (length.in === "header") {
    req.headers[length.name] = String(seconds);
    return;
  }
  const u = new URL(req.url, "http://x");
  u.searchParams.set(length.name, String(seconds));
  req.url = u.pathname + u.search;
}

/** The answer states an end `shift` seconds later than the target keeps (seconds left, or HTTP dates). */
function shiftStatedEnd(claim: WindowClaim, res: ProxyResponse, shift: number): void {
  const { end } = claim.wire;
  if (!end) return;
  const later = (v: string) =>
    end.form === "seconds-left" ? String(Number(v) + shift) : new Date(Date.parse(v) + shift * 1000).toUTCString();
  if (end.in === "header") {
    if (res.headers[end.name] !== undefined) res.headers[end.name] = later(res.headers[end.name]);
    return;
  }
  const re = new RegExp(`<${end.name}>([^<]*)</${end.name}>`, "g");
  res.body = Buffer.from(res.body.toString("utf8").replace(re, (_, v: string) => `<${end.name}>${later(v)}</${end.name}>`));
}

/** The target keeps `keep(asked)` seconds of every window of this kind, and answers as if it kept `asked`. */
export function windowLength(
  claim: WindowClaim,
  name: string,
  description: string,
  keep: (asked: number) => number,
  kills: string[],
): Mutant {
  const asked = new WeakMap<ProxyRequest, number>();
  return {
    name,
    description,
    kills,
    cell: claim.id,
    onRequest(req) {
      if (!opens(claim, req)) return;
      const n = readLength(claim, req);
      // A length the operation refuses stays as asked: the refusal is another claim's.
      if (n === undefined || !Number.isFinite(n) || n > claim.wire.length.max || n < (claim.wire.length.min ?? 0) || keep(n) === n) return;
      asked.set(req, n);
      writeLength(claim, req, keep(n));
    },
    onResponse(req, res) {
      const n = asked.get(req);
      if (n === undefined || res.status >= 300) return;
      shiftStatedEnd(claim, res, n - keep(n));
    },
  };
}

const slug = (claim: WindowClaim) => (claim.resource === "container" ? `container-${claim.kind}` : claim.kind);

/** Reads of the resource report the window's lease lapsed (expired, unlocked) once half its length has passed (the proxy's clock). */
function readsLapsedAtHalf(claim: WindowClaim, name: string, kills: string[]): Mutant {
  const resource = (req: ProxyRequest) => `window:${segments(req).join("/")}`;
  return {
    name,
    description: `every ${claim.resource ? claim.resource + " " : ""}${claim.kind} window reads lapsed (lease state expired, unlocked) from halfway through`,
    kills,
    cell: claim.id,
    onResponse(req, res, state) {
      if (res.status >= 300) return;
      if (opens(claim, req)) {
        const n = readLength(claim, req);
        if (n !== undefined && Number.isFinite(n)) state.set(resource(req), Date.now() + n * 500);
        return;
      }
      const half = state.get(resource(req)) as number | undefined;
      if (
        half !== undefined &&
        Date.now() >= half &&
        (req.method === "GET" || req.method === "HEAD") &&
        res.headers["x-ms-lease-state"] === "leased"
      ) {
        res.headers["x-ms-lease-state"] = "expired";
        res.headers["x-ms-lease-status"] = "unlocked";
      }
    },
  };
}

/**
 * A window ending one second late: legal (the catalogue allows one second at
 * each end). A length of 0 opens no window (visible at once), and the proxy
 * cannot ask for more than the operation accepts (a break period of 60 stays
 * 60).
 */
export const LATE_VARIATIONS: { claim: WindowClaim; variation: Mutant }[] = WINDOWS.map((claim) => ({
  claim,
  variation: windowLength(
    claim,
    `window-${slug(claim)}-one-second-late`,
    `every ${claim.kind} window ends one second after the end the answer states (legal)`,
    (n) => (n === 0 || n === claim.wire.length.max ? n : n + 1),
    [],
  ),
}));

/** A target ending every window of a claim halfway through. */
const halfway = (claim: WindowClaim, name: string, kills: string[]): Mutant =>
  claim.wire.early === "reads-lapsed"
    ? readsLapsedAtHalf(claim, name, kills)
    : windowLength(
        claim,
        name,
        `every ${claim.kind} window ends halfway through, while the answer states its full length`,
        (n) => Math.max(1, Math.floor(n / 2)),
        kills,
      );

/** A target ending every window of a kind halfway through (on every resource: a break period on blobs and containers). */
export function endsAtHalf(kind: WindowClaim["kind"], name: string, kills: string[]): Mutant {
  const parts = WINDOWS.filter((w) => w.kind === kind).map((claim) => halfway(claim, name, kills));
  return {
    ...parts[0],
    async onRequest(req, state) {
      for (const p of parts) {
        const answer = await p.onRequest?.(req, state);
        if (answer) return answer;
      }
    },
    async onResponse(req, res, state) {
      for (const p of parts) await p.onResponse?.(req, res, state);
    },
  };
}

const GENERATED = WINDOWS.map((claim) => halfway(claim, `window-${slug(claim)}-ends-at-half`, [claim.id]));

export const MUTANTS: Mutant[] = GENERATED;

export const CLAIM_TABLES: ClaimTable[] = [
  {
    table: "Windows (catalogue L and Q, both ends)",
    kind: "holds until its end",
    claims: WINDOWS.map((claim, i) => ({
      claim: `a ${claim.resource ? claim.resource + " " : ""}${claim.kind} window holds until its end`,
      row: claim.id,
      mutants: [GENERATED[i].name],
    })),
  },
];
