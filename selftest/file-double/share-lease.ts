// The file double's share leases (Lease Share, REST 2020-02-10+): acquire
// (15–60 s or -1), renew, change, release and break (period 0–60) over the
// states available, leased, breaking, broken and expired, as the Lease Blob
// page's outcome table has them, with expiry and break periods by the clock.
// Written from the REST pages, not from the suite's table, so the share
// lease rows check it rather than restate it.
import { randomUUID } from "node:crypto";
import { isGuid, type ExtraFlags } from "./double-types.ts";

export type ShareLeaseState = "available" | "leased" | "breaking" | "broken" | "expired";

export interface ShareLease {
  state: ShareLeaseState;
  id?: string;
  /** Seconds, or -1 (infinite). */
  duration?: number;
  expiresAt?: number;
  breakAt?: number;
}

export interface LeaseAnswer {
  status: number;
  code?: string;
  headers: Record<string, string>;
}

/** Brings a lease up to `now`: a finite lease past its end is expired, a breaking one past its break is broken. */
export function settle(l: ShareLease, now = Date.now()): ShareLease {
  if (l.state === "leased" && l.duration !== -1 && l.expiresAt !== undefined && now >= l.expiresAt) l.state = "expired";
  if (l.state === "breaking" && l.breakAt !== undefined && now >= l.breakAt) l.state = "broken";
  return l;
}

/** A lease that locks: leased, or breaking (until the break ends). */
export const activeLease = (l: ShareLease) => settle(l).state === "leased" || l.state === "breaking";

const refused = (status: number, code: string): LeaseAnswer => ({ status, code, headers: {} });
const int = (v: string) => (/^-?\d+$/.test(v) ? Number(v) : NaN);

type Get = (name: string) => string | undefined;

function acquire(l: ShareLease, h: Get, flags: ExtraFlags, now: number): LeaseAnswer {
  const raw = h("x-ms-lease-duration");
  if (raw === undefined) return refused(400, "MissingRequiredHeader");
  const d = int(raw);
  const inRange = d === -1 || (d >= 15 && d <= 60);
  if (!(inRange || (flags.shareDurationUnchecked && Number.isInteger(d)))) return refused(400, "InvalidHeaderValue");
  const proposed = h("x-ms-proposed-lease-id");
  if (proposed !== undefined && !isGuid(proposed)) return refused(400, "InvalidHeaderValue");
  const id = proposed ?? randomUUID();
  if (l.state === "leased" && id !== l.id) return refused(409, "LeaseAlreadyPresent");
  if (l.state === "breaking") return refused(409, id === l.id ? "LeaseIsBreakingAndCannotBeAcquired" : "LeaseAlreadyPresent");
  Object.assign(l, { state: "leased", id, duration: d, expiresAt: d === -1 ? undefined : now + d * 1000, breakAt: undefined });
  return { status: 201, headers: { "x-ms-lease-id": id } };
}

function renew(l: ShareLease, h: Get, flags: ExtraFlags, now: number): LeaseAnswer {
  const id = h("x-ms-lease-id");
  if (id === undefined) return refused(400, "MissingRequiredHeader");
  if (l.state === "available" && !(flags.shareReleaseKeepsId && id === l.id)) return refused(409, "LeaseNotPresentWithLeaseOperation");
  if (id !== l.id) return refused(409, "LeaseIdMismatchWithLeaseOperation");
  if (l.state === "breaking" || l.state === "broken") return refused(409, "LeaseIsBrokenAndCannotBeRenewed");
  Object.assign(l, { state: "leased", expiresAt: l.duration === -1 ? undefined : now + (l.duration ?? 60) * 1000 });
  return { status: 200, headers: { "x-ms-lease-id": id } };
}

function change(l: ShareLease, h: Get): LeaseAnswer {
  const id = h("x-ms-lease-id");
  const proposed = h("x-ms-proposed-lease-id");
  if (id === undefined || proposed === undefined) return refused(400, "MissingRequiredHeader");
  if (!isGuid(proposed)) return refused(400, "InvalidHeaderValue");
  if (l.state === "leased") {
    if (id !== l.id && proposed !== l.id) return refused(409, "LeaseIdMismatchWithLeaseOperation");
    l.id = proposed;
    return { status: 200, headers: { "x-ms-lease-id": proposed } };
  }
  if (l.state === "breaking") return refused(409, id === l.id ? "LeaseIsBreakingAndCannotBeChanged" : "LeaseIdMismatchWithLeaseOperation");
  return refused(409, "LeaseNotPresentWithLeaseOperation");
}

function release(l: ShareLease, h: Get, flags: ExtraFlags): LeaseAnswer {
  const id = h("x-ms-lease-id");
  if (id === undefined) return refused(400, "MissingRequiredHeader");
  if (l.state === "available") return refused(409, "LeaseNotPresentWithLeaseOperation");
  if (id !== l.id) return refused(409, "LeaseIdMismatchWithLeaseOperation");
  Object.assign(l, { state: "available", id: flags.shareReleaseKeepsId ? l.id : undefined, expiresAt: undefined, breakAt: undefined });
  return { status: 200, headers: {} };
}

function breakLease(l: ShareLease, h: Get, flags: ExtraFlags, now: number): LeaseAnswer {
  const raw = h("x-ms-lease-break-period");
  const p = raw === undefined ? undefined : int(raw);
  if (p !== undefined && !((p >= 0 && p <= 60) || (flags.shareBreakPeriodUnchecked && Number.isInteger(p)))) {
    return refused(400, "InvalidHeaderValue");
  }
  const id = h("x-ms-lease-id");
  if (l.state === "available") return refused(409, "LeaseNotPresentWithLeaseOperation");
  if (id !== undefined && (l.state === "leased" || l.state === "breaking") && id !== l.id) {
    return refused(409, "LeaseIdMismatchWithLeaseOperation");
  }
  let left = 0;
  if (l.state === "leased") {
    const remaining = l.duration === -1 ? Infinity : Math.ceil(((l.expiresAt ?? now) - now) / 1000);
    left = Math.max(0, p === undefined ? (l.duration === -1 ? 0 : remaining) : Math.min(p, remaining));
  } else if (l.state === "breaking") {
    const remaining = Math.ceil(((l.breakAt ?? now) - now) / 1000);
    left = Math.max(0, p === undefined ? remaining : Math.min(p, remaining));
  }
  Object.assign(l, left > 0 ? { state: "breaking", breakAt: now + left * 1000 } : { state: "broken", breakAt: undefined });
  return { status: 202, headers: { "x-ms-lease-time": String(left) } };
}

/** The cell of the lease table a request is (suites/blob/lease-table.ts's names): the action, with A (the holder) or another ID. */
function cellOf(l: ShareLease, h: Get): string {
  const action = h("x-ms-lease-action") ?? "";
  const same = (v: string | undefined) => v !== undefined && v === l.id;
  switch (action) {
    case "acquire":
      return same(h("x-ms-proposed-lease-id")) ? "acquire-same" : "acquire";
    case "break":
      return (h("x-ms-lease-break-period") ?? "0") === "0" ? "break-0" : "break-period";
    default:
      return same(h("x-ms-lease-id")) ? action : `${action}-other`;
  }
}

const base = (cell: string) => cell.replace(/-(same|other)$/, "");
const OK: Record<string, number> = { acquire: 201, renew: 200, change: 200, release: 200, break: 202 };

/** Answers a Lease Share request and applies it; the shareLeaseCell flag answers its cell the other way (nothing applied). */
export function leaseShare(l: ShareLease, h: Get, flags: ExtraFlags, now = Date.now()): LeaseAnswer {
  settle(l, now);
  const action = h("x-ms-lease-action") ?? "";
  const flip = flags.shareLeaseCell;
  const cell = cellOf(l, h);
  // On a lease never held, A and B are alike: the flag names either.
  if (flip && flip.state === l.state && (flip.action === cell || (l.state === "available" && base(flip.action) === base(cell)))) {
    const trial = leaseShare({ ...l }, h, { ...flags, shareLeaseCell: undefined }, now);
    return trial.status < 300 ? refused(409, "LeaseAlreadyPresent") : { status: OK[action] ?? 200, headers: {} };
  }
  switch (action) {
    case "acquire":
      return acquire(l, h, flags, now);
    case "renew":
      return renew(l, h, flags, now);
    case "change":
      return change(l, h);
    case "release":
      return release(l, h, flags);
    case "break":
      return breakLease(l, h, flags, now);
    default:
      return refused(400, "InvalidHeaderValue");
  }
}
