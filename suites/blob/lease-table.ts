// The lease outcome table (catalogue L, REST "Lease Blob" and "Lease
// Container"): action × lease state → status, code, the state read back and
// who holds the lease. One source of truth for both resources:
// lease-state.rows.ts and lease-state-container.rows.ts check it cell by cell on blobs and on containers, the
// lease model (lease-model.rows.ts) uses it as its transition table, and
// selftest/mutants/lease-cells.ts generates a mutant per cell.
import { claimAt } from "../../fixtures/harness/locations.ts";
import { answer, claimOn, type ClaimedAnswer } from "../../fixtures/harness/claims.ts";
import type { LeaseStateOf, ParameterValue } from "../../model/answers.ts";
import { LASTING, SHORTEST as SHORTEST_LEASE, type LeaseState, type LeaseTarget, type StatedLease } from "./lease-kit.ts";

/** The table's actions, in its row order. A = the holder's ID, B = another ID. */
export const ACTIONS = [
  "acquire",
  "acquire-same",
  "renew",
  "renew-other",
  "change",
  "change-other",
  "release",
  "release-other",
  "break-0",
  "break-period",
] as const;
export type Action = (typeof ACTIONS)[number];

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
  // B→C, B not the holder: refused, the holder kept (blob/lease/state/change-other/*).
  "change-other": {
    available: c409("available"),
    leased: c409("leased", "LeaseIdMismatchWithLeaseOperation", "A"),
    breaking: c409("breaking", undefined, "A"),
    broken: c409("broken"),
    expired: c409("expired"),
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
  "change-other": "change B→C",
  release: "release A",
  "release-other": "release B",
  "break-0": "break (period 0)",
  "break-period": `break (period ${BREAK_PERIOD} s)`,
};
export const onState = (state: StatedLease) =>
  state === "expired-modified"
    ? "an expired lease after a write"
    : `${state === "available" || state === "expired" ? "an" : "a"} ${state} lease`;

export type LeaseResource = LeaseTarget["kind"];
/** A column of the table: a lease state, or an expired lease whose resource was then written without an ID. */
export type Column = StatedLease;
export const COLUMNS: Column[] = ["available", "leased", "breaking", "broken", "expired", "expired-modified"];

/** A cell: the outcomes the catalogue accepts (two where it is disputed) and its level. */
export interface Cell {
  outcomes: Outcome[];
  level: "rest" | "disputed";
}

// Lease Container renews an expired lease "as long as the container has not
// been leased again since the expiration"; Lease Blob only "if the blob has not
// been modified". After a write the two pages disagree (catalogue L, †): the
// Lease Container page's answer, or the blob rule's.
const CONTAINER_RENEW_AFTER_WRITE: Outcome[] = [{ status: 200, after: "leased", holder: "A" }, TABLE.renew["expired-modified"]!];
/** The container table's expired-modified column has the actions the catalogue gives a cell there. */
const CONTAINER_AFTER_WRITE: Action[] = ["acquire", "acquire-same", "renew"];

/** The cell of `action` on `column` for a resource, if the catalogue gives one. */
export function cellOf(resource: LeaseResource, action: Action, column: Column): Cell | undefined {
  const o = TABLE[action][column];
  if (!o) return undefined;
  if (resource === "container" && column === "expired-modified") {
    if (!CONTAINER_AFTER_WRITE.includes(action)) return undefined;
    if (action === "renew") return { outcomes: CONTAINER_RENEW_AFTER_WRITE, level: "disputed" };
  }
  return { outcomes: [o], level: "rest" };
}

const key = (k: string) => (k.includes("-") ? `"${k}"` : k);
/** The line of a cell in TABLE (both resources' cells are there). */
export const cellAt = (action: Action, column: Column) => claimAt(import.meta.url, `    ${key(column)}: `, `  ${key(action)}: {`);

/** The columns where an action has a cell. */
export const columnsOf = (resource: LeaseResource, action: Action): Column[] => COLUMNS.filter((c) => cellOf(resource, action, c));

/**
 * The request shapes a cell covers (catalogue L: "a cell of the state table is
 * a claim about every request that reaches it"): acquire with another ID and
 * with none, each for a finite and an infinite lease; the holder's acquire for
 * both durations. The other actions have one shape (break-0 and break-period
 * differ by the period their action names).
 */
export interface Shape {
  /** Acquire: the proposed ID ("none": no x-ms-proposed-lease-id). */
  proposed?: "A" | "B" | "none";
  /** Acquire: x-ms-lease-duration. */
  duration?: number;
}
export const SHAPES: Record<Action, Shape[]> = {
  // In this order, paired with the lease kinds in turn (variationsOf), every
  // pair of lease kind, ID and duration is sent.
  acquire: [
    { proposed: "B", duration: -1 },
    { proposed: "B", duration: SHORTEST_LEASE },
    { proposed: "none", duration: SHORTEST_LEASE },
    { proposed: "none", duration: -1 },
  ],
  "acquire-same": [
    { proposed: "A", duration: -1 },
    { proposed: "A", duration: SHORTEST_LEASE },
  ],
  renew: [{}],
  "renew-other": [{}],
  change: [{}],
  "change-other": [{}],
  release: [{}],
  "release-other": [{}],
  "break-0": [{}],
  "break-period": [{}],
};

/** The lease a state is built on: none (available), a finite one or an infinite one. */
export type LeaseKind = "none" | "finite" | "infinite";
/** Held, breaking and broken leases come finite and infinite; an expired lease was finite; an available resource has none. */
export const leaseKindsOf = (column: Column): LeaseKind[] =>
  column === "available" ? ["none"] : column === "expired" || column === "expired-modified" ? ["finite"] : ["infinite", "finite"];

/** One request a cell's test sends: a shape on a lease of a kind. */
export interface Variation {
  lease: LeaseKind;
  shape: Shape;
  /** A duration out of the range 15–60 / -1: refused with 400, the lease read back as it was (not the cell's outcome). */
  outOfRange?: true;
}

/**
 * The duration range at both ends (catalogue L: "the duration range wherever
 * an acquire is allowed"): where a cell grants an acquire, it also sends the
 * longest finite duration (60 s, granted as the cell says) and the two values
 * just outside the range (14 and 61 s: 400, the lease unchanged).
 */
export const DURATION_ENDS = { inside: LASTING, outside: [SHORTEST_LEASE - 1, LASTING + 1] } as const;

/**
 * The requests a cell sends: each shape, on the column's kinds of lease in
 * turn (pairwise: each lease kind meets both IDs and both durations, not every
 * combination of the three), and where the cell grants an acquire, the
 * duration's ends.
 */
export function variationsOf(action: Action, column: Column): Variation[] {
  const kinds = leaseKindsOf(column);
  const shapes = SHAPES[action];
  const paired = Array.from({ length: Math.max(kinds.length, shapes.length) }, (_, i) => ({
    lease: kinds[i % kinds.length],
    shape: shapes[i % shapes.length],
  }));
  const grants = action.startsWith("acquire") && TABLE[action][column]?.status === 201;
  if (!grants) return paired;
  const proposed = shapes[0].proposed;
  const lease = kinds.at(-1)!;
  return [
    ...paired,
    { lease, shape: { proposed, duration: DURATION_ENDS.inside } },
    ...DURATION_ENDS.outside.map((duration): Variation => ({ lease, shape: { proposed, duration }, outOfRange: true })),
  ];
}

/** Where a lease table's cells are sent: a blob, a container, a share (file service). */
export type LeaseHome = "blob" | "container" | "share";

const LEASE_REQUEST: Record<LeaseHome, { service: "blob" | "file"; path: string; query: Record<string, string> }> = {
  blob: { service: "blob", path: "/c/b", query: { comp: "lease" } },
  container: { service: "blob", path: "/c", query: { restype: "container", comp: "lease" } },
  share: { service: "file", path: "/s", query: { restype: "share", comp: "lease" } },
};

/** A column as a recording shows its state (model/answers.ts LeaseStateOf); none for a column no recording can show. */
const STATE_OF: Partial<Record<Column, LeaseStateOf[]>> = {
  available: ["available", "released"],
  leased: ["leased"],
  breaking: ["breaking"],
  broken: ["broken"],
  expired: ["expired"],
};

/** The parameters of an action's request in a variation, in the corpus's vocabulary (model/answers.ts). */
function paramsOf(action: Action, v: Variation): Record<string, ParameterValue> {
  const proposed = (who: Shape["proposed"]): Record<string, ParameterValue> =>
    who === "none" ? {} : { "x-ms-proposed-lease-id": who === "A" ? "holder" : "other" };
  const duration = (d: number | undefined) => ({
    "x-ms-lease-duration": d === -1 ? "infinite" : d !== undefined && d >= SHORTEST_LEASE && d <= LASTING ? "in-range" : "out-of-range",
  });
  switch (action) {
    case "acquire":
      return { ...proposed(v.shape.proposed ?? "B"), ...duration(v.shape.duration) };
    case "acquire-same":
      return { ...proposed("A"), ...duration(v.shape.duration) };
    case "renew":
    case "release":
      return { "x-ms-lease-id": "holder" };
    case "renew-other":
    case "release-other":
      return { "x-ms-lease-id": "other" };
    case "change":
      return { "x-ms-lease-id": "holder", "x-ms-proposed-lease-id": "other" };
    case "change-other":
      return { "x-ms-lease-id": "other", "x-ms-proposed-lease-id": "other" };
    case "break-0":
      return { "x-ms-lease-break-period": "zero" };
    case "break-period":
      return { "x-ms-lease-break-period": "in-range" };
  }
}

const VERB: Record<Action, string> = {
  acquire: "acquire",
  "acquire-same": "acquire",
  renew: "renew",
  "renew-other": "renew",
  change: "change",
  "change-other": "change",
  release: "release",
  "release-other": "release",
  "break-0": "break",
  "break-period": "break",
};

/**
 * What a cell claims Azure answers, as data (fixtures/harness/claims.ts): each
 * variation's request it sends (`sent`: by default variationsOf's) on the column's state, answered as the cell says (a
 * duration out of range: 400). A column no recording can show (expired, then
 * written) claims nothing the corpus could match.
 */
export function cellClaims(
  home: LeaseHome,
  action: Action,
  column: Column,
  outcomes: Outcome[],
  sent: Variation[] = variationsOf(action, column),
): ClaimedAnswer[] {
  const states = STATE_OF[column];
  if (!states) return [];
  const r = LEASE_REQUEST[home];
  const request = { method: "PUT", path: r.path, query: r.query, headers: { "x-ms-lease-action": VERB[action] } };
  return sent.map((v) =>
    claimOn(
      r.service,
      request,
      {
        params: paramsOf(action, v),
        lease: states,
        ...(column === "leased" && v.lease !== "none"
          ? { leaseDuration: v.lease === "infinite" ? ("infinite" as const) : ("fixed" as const) }
          : {}),
      },
      v.outOfRange ? [answer(400)] : outcomes.map((o) => answer(o.status, ...(o.code ? [o.code] : []))),
    ),
  );
}
