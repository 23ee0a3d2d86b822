// The Lease Blob outcome table (catalogue L, REST "Lease Blob"): action ×
// lease state → status, code, the state read back and who holds the lease.
// One source of truth: lease-state.spec.ts checks it cell by cell, and the
// lease model (lease-model.spec.ts) uses it as its transition table.
import type { LeaseState, StatedLease } from "./lease-kit.ts";

/** A = the holder's ID, B = another ID. */
export type Action = "acquire" | "acquire-same" | "renew" | "renew-other" | "change" | "release" | "release-other" | "break-0" | "break-period";

export interface Outcome {
  status: number;
  code?: string;
  /** Lease state read back afterwards. */
  after: LeaseState | LeaseState[];
  /** Who holds the lease afterwards, when one is held. */
  holder?: "A" | "B";
}

const c409 = (after: LeaseState | LeaseState[], code?: string, holder?: "A"): Outcome => ({ status: 409, code, after, holder });
// Breaking an expired lease: the REST table gives Available; the catalogue only
// says 202. Either way the lease must no longer lock the blob.
const EXPIRED_BROKEN: LeaseState[] = ["available", "broken"];
// Expired, then written: the write may also have reset the lease to Available
// (Azurite does); either way the blob must stay unleased.
const WRITTEN: LeaseState[] = ["expired", "available"];

/**
 * The catalogue's table (status, code) with the REST table's resulting state.
 * Column expired-modified has the catalogue's cells (acquire, acquire A, renew
 * A) and, marked so, the Expired column's 409s that hold whether or not the
 * write made the target forget A. Release A and break have no cell there: the
 * Expired column's 200/202 assume the target still knows A's lease, which renew
 * A's LeaseIdMismatchWithLeaseOperation says it may not, and neither the
 * catalogue nor the REST page settles it.
 */
export const TABLE: Record<Action, Record<LeaseState, Outcome> & { "expired-modified"?: Outcome }> = {
  acquire: {
    available: { status: 201, after: "leased", holder: "B" },
    leased: c409("leased", "LeaseAlreadyPresent", "A"),
    breaking: c409("breaking", "LeaseAlreadyPresent", "A"),
    broken: { status: 201, after: "leased", holder: "B" },
    expired: { status: 201, after: "leased", holder: "B" },
    "expired-modified": { status: 201, after: "leased", holder: "B" },
  },
  "acquire-same": {
    available: { status: 201, after: "leased", holder: "A" },
    leased: { status: 201, after: "leased", holder: "A" },
    breaking: c409("breaking", "LeaseIsBreakingAndCannotBeAcquired", "A"),
    broken: { status: 201, after: "leased", holder: "A" },
    expired: { status: 201, after: "leased", holder: "A" },
    "expired-modified": { status: 201, after: "leased", holder: "A" },
  },
  renew: {
    available: c409("available"),
    leased: { status: 200, after: "leased", holder: "A" },
    breaking: c409("breaking", "LeaseIsBrokenAndCannotBeRenewed", "A"),
    broken: c409("broken", "LeaseIsBrokenAndCannotBeRenewed"),
    // "200 if the blob was not modified": these blobs are not.
    expired: { status: 200, after: "leased", holder: "A" },
    // …and once it was (blob/lease/state/renew/expired-modified), the lease is
    // gone: the catalogue's code, the one Azure's own SDK tests assert.
    "expired-modified": c409(WRITTEN, "LeaseIdMismatchWithLeaseOperation"),
  },
  "renew-other": {
    available: c409("available"),
    leased: c409("leased", undefined, "A"),
    breaking: c409("breaking", undefined, "A"),
    broken: c409("broken"),
    expired: c409("expired"),
    // The Expired column's outcome (blob/lease/state/renew-other/expired).
    "expired-modified": c409(WRITTEN),
  },
  change: {
    available: c409("available"),
    leased: { status: 200, after: "leased", holder: "B" },
    breaking: c409("breaking", "LeaseIsBreakingAndCannotBeChanged", "A"),
    broken: c409("broken"),
    expired: c409("expired"),
    // The Expired column's outcome (blob/lease/state/change/expired).
    "expired-modified": c409(WRITTEN),
  },
  release: {
    available: c409("available"),
    leased: { status: 200, after: "available" },
    breaking: { status: 200, after: "available" },
    broken: { status: 200, after: "available" },
    expired: { status: 200, after: "available" },
  },
  "release-other": {
    available: c409("available"),
    leased: c409("leased", undefined, "A"),
    breaking: c409("breaking", undefined, "A"),
    broken: c409("broken"),
    expired: c409("expired"),
    // The Expired column's outcome (blob/lease/state/release-other/expired).
    "expired-modified": c409(WRITTEN),
  },
  "break-0": {
    available: c409("available", "LeaseNotPresentWithLeaseOperation"),
    leased: { status: 202, after: "broken" },
    breaking: { status: 202, after: "broken" },
    broken: { status: 202, after: "broken" },
    expired: { status: 202, after: EXPIRED_BROKEN },
  },
  "break-period": {
    available: c409("available"),
    leased: { status: 202, after: "breaking", holder: "A" },
    breaking: { status: 202, after: "breaking", holder: "A" },
    broken: { status: 202, after: "broken" },
    expired: { status: 202, after: EXPIRED_BROKEN },
  },
};

/** Break period of the table's "period > 0" action; shorter than BREAKING_PERIOD so a Breaking lease keeps its own end. */
export const BREAK_PERIOD = 15;

/** How the state rows name each action and state (their failure messages, and so their pins, use these). */
export const ACTION_LABEL: Record<Action, string> = {
  acquire: "acquire (another ID)",
  "acquire-same": "acquire A",
  renew: "renew A",
  "renew-other": "renew B",
  change: "change A→B",
  release: "release A",
  "release-other": "release B",
  "break-0": "break (period 0)",
  "break-period": `break (period ${BREAK_PERIOD} s)`,
};
export const onState = (state: StatedLease) =>
  state === "expired-modified" ? "an expired lease after a write" : `${state === "available" || state === "expired" ? "an" : "a"} ${state} lease`;
