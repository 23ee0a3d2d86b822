// The lease model's reference (catalogue M, blob/lease/model): a pure step
// function from a lease's state and a command to the answers the catalogue
// allows and the state each leaves, for a blob or a container lease. Lease
// actions follow the outcome table (lease-table.ts, the data the state rows
// check); writes and reads follow the lease-ops rules of catalogue L (a blob
// write needs the holder's ID while the lease locks it; a container's
// metadata write and property read are shared, an ID must be the holder's,
// and an ID on an unleased container is refused). No target, no clock and
// no run control here: lease-model-check.ts judges a target with it, and
// selftest/unit/lease-reference.test.ts checks it against the table.
import { cellOf, type Action, type LeaseResource } from "./lease-table.ts";
import { REACQUIRE_TOLERANCE_MS, type LeaseState, type StatedLease } from "./lease-kit.ts";

export type Who = "L1" | "L2";
export const otherId = (w: Who): Who => (w === "L1" ? "L2" : "L1");

/** What the reference knows of one resource. */
export interface LeaseModel {
  resource: LeaseResource;
  state: StatedLease;
  /** The ID of the current (or last, for broken/expired) lease. */
  holder?: Who;
  finite: boolean;
  /** Server time (ms) at which a finite lease or a break ends. */
  endsAt?: number;
  /** Server time (ms) at which an expired lease ended. */
  expiredAt?: number;
  /** What a write sets and a read shows: the blob's content, the container's metadata value. */
  content: string;
  etag: string;
  /** An ETag the resource had before its current one. */
  stale: string;
}

export type Verb = "acquire" | "renew" | "change" | "release" | "break";

/** A request, with the ID it carries already resolved (the spec resolves "the holder" or "another ID" against the model). */
export type LeaseCommand =
  | { kind: "lease"; verb: Verb; id: Who; duration?: number; breakPeriod?: number }
  | { kind: "write"; id?: Who; condition: "none" | "current" | "stale"; content: string }
  | { kind: "read"; id?: Who; condition: "none" | "if-none-match-current" | "if-match-stale" };

/** What the target answered, as the reference reads it. */
export interface Answer {
  headers: Record<string, string>;
  body: string;
}

/** An answer the reference allows: its status, the codes accepted (none: any), and the states it may leave. */
export interface Expected {
  status: number;
  codes?: string[];
  next(answer: Answer, now: number): LeaseModel[];
}

/** A finite lease lasts this long (the model acquires no other finite duration). */
export const FINITE_SECONDS = 15;
/** Either side of a lease or break end is accepted within this margin (Date has one-second granularity). */
export const MARGIN_MS = 2000;

export const locked = (s: StatedLease) => s === "leased" || s === "breaking";

/** The model at server time `now`: past an end, the lease has expired or the break completed; near it, either. */
export function settle(m: LeaseModel, now: number): LeaseModel[] {
  if (m.endsAt === undefined) return [m];
  const over: LeaseModel = {
    ...m,
    state: m.state === "breaking" ? "broken" : m.state === "leased" ? "expired" : m.state,
    endsAt: undefined,
    ...(m.state === "leased" ? { expiredAt: m.endsAt } : {}),
  };
  if (now >= m.endsAt + MARGIN_MS) return [over];
  if (now <= m.endsAt - MARGIN_MS) return [m];
  return [m, over];
}

/** The table's action a lease request is, by the ID it carries and the lease's holder. */
export function tableAction(m: LeaseModel, verb: Verb, id: Who, breakPeriod = 0): Action {
  const mine = m.holder === id;
  return (
    {
      acquire: mine ? "acquire-same" : "acquire",
      renew: mine ? "renew" : "renew-other",
      change: mine ? "change" : "change-other",
      release: mine ? "release" : "release-other",
      break: breakPeriod === 0 ? "break-0" : "break-period",
    } as const
  )[verb];
}

/** What a lease state reads as (x-ms-lease-state): an expired lease after a write may read as available (lease-table.ts, WRITTEN). */
export const readsAs = (s: StatedLease): LeaseState[] => (s === "expired-modified" ? ["expired", "available"] : [s]);

export interface LeaseReadBack {
  state?: string;
  status?: string;
  duration?: string;
  etag?: string;
}

/** Whether the lease (and the ETag) read back is what the model holds. */
export function readBackAgrees(m: LeaseModel, v: LeaseReadBack): boolean {
  const state = v.state as LeaseState;
  if (!readsAs(m.state).includes(state)) return false;
  if (v.status !== (locked(state) ? "locked" : "unlocked")) return false;
  if (state === "leased" && v.duration !== (m.finite ? "fixed" : "infinite")) return false;
  return v.etag === m.etag;
}

export const describeModel = (m: LeaseModel) =>
  `${m.state}${m.holder ? ` (${m.holder})` : ""}${m.state === "leased" ? (m.finite ? `, ${FINITE_SECONDS} s` : ", infinite") : ""}`;

/** A lease action: the table's cell, with the holder and the end each outcome leaves. */
function leaseStep(c: LeaseModel, cmd: Extract<LeaseCommand, { kind: "lease" }>, now?: number): Expected[] {
  const cell = cellOf(c.resource, tableAction(c, cmd.verb, cmd.id, cmd.breakPeriod), c.state);
  if (!cell) return [];
  // Within a minute of an expiry an acquire may also meet 409 LeaseAlreadyPresent, the lease staying expired (catalogue L).
  const expiredRecently =
    cmd.verb === "acquire" &&
    (c.state === "expired" || c.state === "expired-modified") &&
    c.expiredAt !== undefined &&
    now !== undefined &&
    now < c.expiredAt + REACQUIRE_TOLERANCE_MS;
  const notYet: Expected[] = expiredRecently ? [{ status: 409, codes: ["LeaseAlreadyPresent"], next: () => [c] }] : [];
  return [
    ...notYet,
    ...cell.outcomes.map((o) => ({
      status: o.status,
      codes: o.code ? [o.code] : undefined,
      next: (_answer: Answer, now: number) =>
        (Array.isArray(o.after) ? o.after : [o.after]).map((state): LeaseModel => {
          // A = the lease's holder, B = the ID the action brought (a change's proposed one).
          const holder =
            o.holder === "A"
              ? c.holder
              : o.holder === "B"
                ? cmd.verb === "change"
                  ? otherId(cmd.id)
                  : cmd.id
                : state === "available"
                  ? undefined
                  : c.holder;
          if (o.status >= 300) return { ...c, state, holder };
          const duration = cmd.duration ?? -1;
          if (cmd.verb === "acquire")
            return { ...c, state, holder, finite: duration !== -1, endsAt: duration === -1 ? undefined : now + duration * 1000 };
          if (cmd.verb === "renew") return { ...c, state, holder, endsAt: c.finite ? now + FINITE_SECONDS * 1000 : undefined };
          if (state === "breaking")
            return { ...c, state, holder, endsAt: Math.min(c.endsAt ?? Infinity, now + (cmd.breakPeriod ?? 0) * 1000) };
          return { ...c, state, holder, endsAt: state === "leased" ? c.endsAt : undefined };
        }),
    })),
  ];
}

/**
 * The lease-ops rules for a request carrying `id` (or none): "ok", or refused
 * with 412 and one of the codes returned (undefined: a code no rule gives).
 * Blob: a locked blob needs its holder's ID; an unlocked one takes none.
 * Container (writes other than Delete, and reads): shared, so no ID is always
 * fine; an ID must be the holder's while locked, and is refused on an
 * unlocked container.
 */
function leaseOpsRule(c: LeaseModel, id: Who | undefined, write: boolean): "ok" | string[] | undefined {
  const op = c.resource === "blob" ? "Blob" : "Container";
  if (locked(c.state)) {
    if (id === c.holder) return "ok";
    if (id === undefined) return c.resource === "blob" && write ? ["LeaseIdMissing"] : "ok";
    return [`LeaseIdMismatchWith${op}Operation`];
  }
  if (id === undefined) return "ok";
  // With an ID on an unleased resource: 412; the code is given for Available only.
  return c.state === "available" ? [`LeaseNotPresentWith${op}Operation`] : undefined;
}

function writeStep(c: LeaseModel, cmd: Extract<LeaseCommand, { kind: "write" }>): Expected[] {
  const lease = leaseOpsRule(c, cmd.id, true);
  if (lease === "ok" && cmd.condition !== "stale") {
    const written: LeaseModel = { ...c, content: cmd.content, stale: c.etag, state: c.state === "expired" ? "expired-modified" : c.state };
    // Neither the catalogue nor the REST page says whether a write leaves a
    // Broken lease Broken or resets it (Azurite resets a blob's, since
    // Azurite#618); the lease read back decides which the model follows.
    const forms = c.state === "broken" ? [written, { ...written, state: "available" as const, holder: undefined }] : [written];
    return [{ status: c.resource === "blob" ? 201 : 200, next: (a) => forms.map((f) => ({ ...f, etag: a.headers["etag"] })) }];
  }
  // Refused, unchanged: the lease's code, or the condition's, whichever the target checks first.
  const codes = lease === "ok" ? ["ConditionNotMet"] : lease && cmd.condition === "stale" ? [...lease, "ConditionNotMet"] : lease;
  return [{ status: 412, codes, next: () => [c] }];
}

function readStep(c: LeaseModel, cmd: Extract<LeaseCommand, { kind: "read" }>): Expected[] {
  if (cmd.condition === "if-none-match-current") return [{ status: 304, next: () => [c] }];
  if (cmd.condition === "if-match-stale") return [{ status: 412, codes: ["ConditionNotMet"], next: () => [c] }];
  const lease = leaseOpsRule(c, cmd.id, false);
  if (lease !== "ok") return [{ status: 412, codes: lease, next: () => [c] }];
  return [{ status: 200, next: (a) => (a.body === c.content && a.headers["etag"] === c.etag ? [c] : []) }];
}

/** The answers the reference allows to `cmd` on a resource in state `c` (already settled to the answer's time). */
export function expectedAnswers(c: LeaseModel, cmd: LeaseCommand, now?: number): Expected[] {
  switch (cmd.kind) {
    case "lease":
      return leaseStep(c, cmd, now);
    case "write":
      return writeStep(c, cmd);
    case "read":
      return readStep(c, cmd);
  }
}

/**
 * One step of the reference: the states the model may be in when the answer
 * is dated `now` (server clock), and, for an answer with `status` and `code`,
 * the states it may leave. Empty: the answer departs from the model.
 */
export function stepModel(
  m: LeaseModel,
  cmd: LeaseCommand,
  now: number,
  status: number,
  code: string | undefined,
  answer: Answer,
): LeaseModel[] {
  return settle(m, now).flatMap((c) =>
    expectedAnswers(c, cmd, now)
      .filter((e) => e.status === status && (!e.codes || e.codes.includes(code ?? "")))
      .flatMap((e) => e.next(answer, now)),
  );
}

/** What the reference would have accepted at `now`, in words (for a failure's table). */
export function wantedAt(m: LeaseModel, cmd: LeaseCommand, now: number): string[] {
  return [
    ...new Set(
      settle(m, now).flatMap((c) => expectedAnswers(c, cmd, now).map((e) => `${e.status}${e.codes ? " " + e.codes.join("|") : ""}`)),
    ),
  ];
}
