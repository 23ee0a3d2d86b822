// M Models: blob/lease/model. Random sequences (fast-check commands, from the
// run's seed) of lease actions with two IDs, writes and reads with and without
// IDs and (on blobs) with holding or failing conditions, one wait across an
// expiry, and waits to the last seconds of a short break period (so what
// follows sees the lease still Breaking near its end: a break that ends early
// shows), on one blob or container each; the target is compared with the
// reference model after every step. The reference (lease-reference.ts) is a
// pure step function over the one lease table (lease-table.ts, the same data
// the state rows check) and the lease-ops rules, shared by both resource
// kinds; this file only drives a target with it and keeps the run's budget.
// Time is the server's (Date headers), with a margin around each lease or
// break end where either side of it is accepted.
import type { ContainerClient } from "@azure/storage-blob";
import fc from "fast-check";
import { AssertionError } from "chai";
import { expectPresent } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { replayCommand, seeded } from "../../fixtures/harness/models.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { RowSignal } from "../../fixtures/wire/signals.ts";
import { blobLeaseSource, blobTarget, containerTarget, guid, LEASE_OF, leaseAction, readLease, serverDate, SHORTEST, type LeaseTarget, type LeaseView } from "./lease-kit.ts";
import {
  describeModel,
  expectedAnswers,
  locked,
  MARGIN_MS,
  otherId as other,
  readBackAgrees,
  settle,
  stepModel,
  tableAction,
  wantedAt,
  type LeaseCommand as Cmd,
  type LeaseModel,
  type Verb,
  type Who,
} from "./lease-reference.ts";
import { ACTION_LABEL, cellOf, onState } from "./lease-table.ts";

/**
 * Sequences per run (side by side, one resource each) and commands per
 * sequence: SEQUENCES draw from COMMANDS on blobs (half of them start from a
 * 15 s lease, so an expiry is always within their budget), BREAK_END_SEQUENCES
 * more begin by breaking a lease with a short period and waiting to the
 * break's last seconds (a wait that would leave no budget for the expiry the
 * others wait across), and CONTAINER_SEQUENCES act on container leases (the
 * last of them a break-end one, the second starting from a 15 s lease).
 */
export const SEQUENCES = 16;
export const BREAK_END_SEQUENCES = 4;
export const CONTAINER_SEQUENCES = 4;
export const MAX_COMMANDS = 40;
/**
 * A sequence starts no command later than this after its setup (server time):
 * one expiry and its margin, plus 2 s. Locally all commands fit long before;
 * against a slow target (100-300 ms per request) a sequence runs the prefix
 * that fits, so the row costs one expiry, not MAX_COMMANDS round trips on top.
 */
export const BUDGET_MS = (SHORTEST + 4) * 1000;
const BREAK_PERIOD = 60;
/**
 * A break period short enough to wait to its last seconds within the budget,
 * long enough that a break ending at half of it is over well before (server
 * clock): one ending at 7 s reads Broken from then until the wait stops at
 * 11 s (the end less the margin less 1 s). With 10 s that was 5 s to 7 s,
 * which a loaded target's slow reads could miss altogether.
 */
const SHORT_BREAK = 14;

/** A sequence's state: the reference's (lease-reference.ts) and what runs the sequence. */
interface Model {
  ref: LeaseModel;
  waited: boolean;
  /** A wait to a break's last seconds was made (one per sequence, like the wait past an end). */
  nearEnd: boolean;
  /** Left the model at a deviation pinned for its own state row: the sequence stops there. */
  off?: string;
  /** Server time of the last answer, and the time after which no command starts (BUDGET_MS). */
  now: number;
  deadline: number;
  /** Shared by the row's sequences: once one failed in a run that does not shrink, the verdict is FAIL and the others start no more commands. */
  row: { stopped: boolean };
}

/** Commands start while the sequence's time budget lasts. */
const open = (m: Readonly<Model>) => !m.off && !m.row.stopped && m.now < m.deadline;

interface Step {
  action: string;
  expected: string;
  observed: string;
}

interface Real {
  t: RowContext;
  x: LeaseTarget;
  ids: Record<Who, string>;
  steps: Step[];
  writes: number;
  /** Commands executed, waits made (past an end, and to a break's last seconds), and sequences the time budget ended (across every sequence of the row). */
  executed: { n: number; waits: number; nearEnd: number; cut: number };
}

const show = (res: RawResponse) => `${res.status}${res.errorCode ? " " + res.errorCode : ""}`;
const TABLE_TEXT = { blob: "the Lease Blob table and the lease-ops rules", container: "the Lease Container table and the container lease rules" } as const;

const fail = (r: Real, m: Model, step: Step): never => {
  r.steps.push(step);
  const table = r.steps.map((s, i) => `${String(i + 1).padStart(2)}. ${s.action} | expected ${s.expected} | observed ${s.observed}`).join("\n");
  // Its sequence runs beside others: the departing step's own data, not the row's current step.
  throw new AssertionError(`the target departed from the lease model (${TABLE_TEXT[m.ref.resource]})\nin state ${describeModel(m.ref)}:\n${table}`, {
    failure: { step: step.action, expected: step.expected, got: step.observed },
  });
};

/** What the reference reads of an answer: a container's read shows its metadata value, a blob's its content. */
const answerOf = (r: Real, res: RawResponse) => ({ headers: res.headers, body: r.x.kind === "container" ? (res.headers["x-ms-meta-state"] ?? "") : res.body });

/**
 * Sends a request, finds a state (of those the server's time allows) whose
 * expected answer it is (lease-reference.ts), then reads the lease back and
 * checks it too.
 */
async function step(m: Model, r: Real, action: string, cmd: Cmd, send: () => Promise<RawResponse>, pinnedCell?: (c: LeaseModel, res: RawResponse) => string | undefined): Promise<Model> {
  r.t.step(action);
  r.executed.n++;
  const res = await send();
  const now = serverDate(res).getTime();
  const options = stepModel(m.ref, cmd, now, res.status, res.errorCode, answerOf(r, res));
  const wanted = wantedAt(m.ref, cmd, now);
  if (options.length === 0) {
    const pinned = settle(m.ref, now).map((c) => pinnedCell?.(c, res)).find(Boolean);
    if (pinned) {
      r.steps.push({ action, expected: wanted.join(" or "), observed: `${show(res)}, as pinned for ${pinned}` });
      r.t.note("pinned deviations met", [...new Set([...((r.t.notes["pinned deviations met"] as string[]) ?? []), pinned])]);
      return { ...m, off: pinned };
    }
    fail(r, m, { action, expected: wanted.join(" or "), observed: show(res) });
  }
  const v = leaseIn(res) ?? (r.t.step(`${action}: read the lease back`), await readLease(r.t, r.x));
  const agreeing = options.flatMap((c) => settle(c, v.date!.getTime())).filter((c) => readBackAgrees(c, v));
  const seen = `${show(res)}, then ${v.state}/${v.status}${v.duration ? "/" + v.duration : ""}${v.etag === m.ref.etag ? "" : ", ETag changed"}`;
  if (agreeing.length === 0) fail(r, m, { action, expected: `${wanted.join(" or ")}, then ${options.map(describeModel).join(" or ")}`, observed: seen });
  r.steps.push({ action, expected: wanted.join(" or "), observed: seen });
  return { ...m, ref: agreeing[0], now: v.date!.getTime() };
}

/** The lease read back, as state/status ("none" for a header the answer lacks). */
const leaseShown = (v: LeaseView) => `${v.state ?? "none"}/${v.status ?? "none"}`;

/** A read that succeeded reads the lease itself (x-ms-lease-state, -status, -duration, ETag): no second read is needed. */
function leaseIn(res: RawResponse): LeaseView | undefined {
  const h = res.headers;
  if (res.status !== 200 || !h["x-ms-lease-state"]) return undefined;
  return { state: h["x-ms-lease-state"], status: h["x-ms-lease-status"], duration: h["x-ms-lease-duration"], etag: h["etag"], lastModified: h["last-modified"], date: serverDate(res) };
}

// ---- lease actions: the transition table is lease-table.ts, through lease-reference.ts ----

/** Who a command speaks as: the lease's holder (L1 when there is none), or the other ID. */
type Role = "holder" | "other";
const roleId = (m: Readonly<Model>, role: Role): Who => (role === "holder" ? (m.ref.holder ?? "L1") : other(m.ref.holder ?? "L1"));

// Commands hold no state of their own: one instance may serve many sequences at once.
class LeaseCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly verb: Verb,
    readonly role: Role,
    readonly duration: number,
    readonly breakPeriod: number,
  ) {}
  /** Only cells the table has (change: only by the holder). */
  check(m: Readonly<Model>): boolean {
    if (!open(m) || (this.verb === "change" && (m.ref.holder === undefined || this.role !== "holder"))) return false;
    return expectedAnswers(m.ref, this.cmd(roleId(m, this.role))).length > 0;
  }
  cmd(id: Who): Cmd {
    return { kind: "lease", verb: this.verb, id, duration: this.duration, breakPeriod: this.breakPeriod };
  }
  async run(m: Model, r: Real): Promise<void> {
    const id = roleId(m, this.role);
    const next = await step(
      m,
      r,
      this.label(id),
      this.cmd(id),
      () => {
        const ids = r.ids;
        const args =
          this.verb === "acquire" ? { proposed: ids[id], duration: this.duration }
          : this.verb === "change" ? { id: ids[id], proposed: ids[other(id)] }
          : this.verb === "break" ? { breakPeriod: this.breakPeriod }
          : { id: ids[id] };
        return leaseAction(r.t, r.x, this.verb, args);
      },
      (c, res) => this.pinnedCell(r, c, res, id),
    );
    Object.assign(m, next);
  }
  /**
   * The same action on the same state is a state row of its own; where that
   * row's failure is pinned for the target and this answer is exactly it, the
   * deviation is judged there, and this sequence stops at it.
   */
  pinnedCell(r: Real, c: LeaseModel, res: RawResponse, id: Who): string | undefined {
    const action = tableAction(c, this.verb, id, this.breakPeriod);
    const o = cellOf(c.resource, action, c.state)?.outcomes[0];
    const row = `${LEASE_OF[c.resource].ids}state/${action}/${c.state}`;
    const pin = r.t.run.options.pinned?.(row);
    const expected = `${o?.status}${o?.code ? " " + o.code : ""}`;
    const pinned = pin?.signature;
    // A pin matches the state row's failure as data (what its check expected and got); one in the older text form, its message.
    const same = typeof pinned === "string" ? pinned === `${ACTION_LABEL[action]} on ${onState(c.state)}: expected ${expected}, got ${show(res)}` : pinned?.expected === expected && pinned?.got === show(res);
    return pin?.status === "FAIL" && same ? row : undefined;
  }
  /** With the ID the role had when the command ran. */
  label(id: Who): string {
    const as = `${id} (${this.role === "holder" ? "the holder" : "another ID"})`;
    if (this.verb === "acquire") return `acquire ${as}, ${this.duration === -1 ? "infinite" : this.duration + " s"}`;
    if (this.verb === "change") return `change ${id}→${other(id)}`;
    if (this.verb === "break") return `break (period ${this.breakPeriod})`;
    return `${this.verb} ${as}`;
  }
  toString(): string {
    return this.verb === "break" ? `break (period ${this.breakPeriod})` : `${this.verb} (${this.role === "holder" ? "the holder" : "another ID"}${this.verb === "acquire" ? `, ${this.duration === -1 ? "infinite" : this.duration + " s"}` : ""})`;
  }
}

// ---- writes and reads: the lease-ops rules and conditional headers ----

type IdMode = "none" | "holder" | "other";
const idOf = (m: Model, mode: IdMode): Who | undefined => (mode === "none" ? undefined : roleId(m, mode));
const idText = (mode: IdMode) => (mode === "none" ? "no lease ID" : mode === "holder" ? "the holder's ID" : "another ID");

/** A blob's Put Blob, or a container's Set Container Metadata (the container write a lease leaves shared). */
class WriteCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly id: IdMode,
    readonly condition: "none" | "current" | "stale",
  ) {}
  check(m: Readonly<Model>): boolean {
    // Set Container Metadata takes no ETag condition.
    return open(m) && (m.ref.resource === "blob" || this.condition === "none");
  }
  async run(m: Model, r: Real): Promise<void> {
    const content = `write ${++r.writes}`;
    const id = idOf(m, this.id);
    const lease: Record<string, string> = id ? { "x-ms-lease-id": r.ids[id] } : {};
    const next = await step(m, r, this.toString(), { kind: "write", id, condition: this.condition, content }, () =>
      r.x.kind === "container"
        ? r.t.raw("blob", { method: "PUT", path: r.x.path, query: { restype: "container", comp: "metadata" }, headers: { ...lease, "x-ms-meta-state": content } })
        : r.t.raw("blob", {
            method: "PUT",
            path: r.x.path,
            headers: { "x-ms-blob-type": "BlockBlob", ...lease, ...(this.condition === "none" ? {} : { "if-match": this.condition === "current" ? m.ref.etag : m.ref.stale }) },
            body: content,
          }),
    );
    Object.assign(m, next);
  }
  toString(): string {
    return `write (${idText(this.id)}${this.condition === "none" ? "" : `, ${this.condition} If-Match`})`;
  }
}

/** A blob's Get Blob, or a container's Get Container Properties. */
class ReadCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly id: IdMode,
    readonly condition: "none" | "if-none-match-current" | "if-match-stale",
  ) {}
  /** A read with an ID only on a locked lease away from its end (the REST page's read rules cover those); a container's read takes no ETag condition. */
  check(m: Readonly<Model>): boolean {
    if (!open(m) || (m.ref.resource === "container" && this.condition !== "none")) return false;
    if (this.id === "none") return true;
    return this.condition === "none" && locked(m.ref.state) && m.ref.endsAt === undefined;
  }
  async run(m: Model, r: Real): Promise<void> {
    const id = idOf(m, this.id);
    const next = await step(m, r, this.toString(), { kind: "read", id, condition: this.condition }, () =>
      r.t.raw("blob", {
        method: "GET",
        path: r.x.path,
        query: r.x.kind === "container" ? { restype: "container" } : undefined,
        headers: {
          ...(id ? { "x-ms-lease-id": r.ids[id] } : {}),
          ...(this.condition === "if-none-match-current" ? { "if-none-match": m.ref.etag } : this.condition === "if-match-stale" ? { "if-match": m.ref.stale } : {}),
        },
      }),
    );
    Object.assign(m, next);
  }
  toString(): string {
    return `read (${idText(this.id)}${this.condition === "none" ? "" : `, ${this.condition}`})`;
  }
}

/** Another sequence of the row failed (Model.row): this one ends where it is, without a verdict of its own. */
class Stopped extends Error {}

/** Reads the lease for a wait, unless the row has stopped (a wait then ends at its next read, within a second). */
async function readUnlessStopped(m: Readonly<Model>, r: Real): Promise<LeaseView> {
  if (m.row.stopped) throw new Stopped();
  return readLease(r.t, r.x);
}

/** How often a sleeping wait looks whether the row stopped. */
const STOP_CHECK_MS = 250;

/** Sleeps `ms` by the local clock (scheduling only), or less when the row stops meanwhile. */
async function sleepUnlessStopped(m: Readonly<Model>, r: Real, ms: number): Promise<void> {
  for (let left = ms; left > 0 && !m.row.stopped; left -= STOP_CHECK_MS) await r.t.sleep(Math.min(STOP_CHECK_MS, left));
}

/**
 * Waits (by the server's clock) until a 15 s lease's end has passed, or its
 * break's (a break never outlasts the lease). One per sequence, so a run
 * costs little more than one expiry.
 */
class WaitCommand implements fc.AsyncCommand<Model, Real> {
  check(m: Readonly<Model>): boolean {
    // Only a wait that ends within the budget.
    return open(m) && m.ref.endsAt !== undefined && m.ref.finite && !m.waited && m.ref.endsAt + MARGIN_MS <= m.deadline;
  }
  async run(m: Model, r: Real): Promise<void> {
    r.t.step("wait past the lease's or the break's end (server time)");
    r.executed.n++;
    r.executed.waits++;
    const until = m.ref.endsAt! + MARGIN_MS;
    const v = await r.t.waitFor("the server's clock past the end", async () => {
      const view = await readUnlessStopped(m, r);
      if (view.date!.getTime() >= until) return view;
      // Nothing is judged before the end: the next read a second before it (a Date counts whole seconds), not one a second.
      await sleepUnlessStopped(m, r, until - view.date!.getTime() - 1000);
      return undefined;
    }, { timeoutMs: 40_000, intervalMs: 250 });
    const settled = settle(m.ref, v.date!.getTime())[0];
    if (!readBackAgrees(settled, v)) fail(r, m, { action: this.toString(), expected: describeModel(settled), observed: leaseShown(v) });
    r.steps.push({ action: this.toString(), expected: describeModel(settled), observed: leaseShown(v) });
    Object.assign(m, { ref: settled, waited: true, now: v.date!.getTime() });
  }
  toString(): string {
    return "wait past the end";
  }
}

/**
 * Waits (by the server's clock) until the last second in which a Breaking
 * lease must still read Breaking (its end less the margin less 1 s), reading
 * the lease as it goes: the commands after it act on a lease near the end of
 * its break (catalogue L, blob/lease/break-period-holds).
 */
class NearEndWait implements fc.AsyncCommand<Model, Real> {
  check(m: Readonly<Model>): boolean {
    const ends = m.ref.endsAt;
    return open(m) && !m.nearEnd && m.ref.state === "breaking" && ends !== undefined && ends - MARGIN_MS - 1000 > m.now && ends - MARGIN_MS <= m.deadline;
  }
  async run(m: Model, r: Real): Promise<void> {
    r.t.step("wait to the last seconds of the break period (server time)");
    r.executed.n++;
    r.executed.nearEnd++;
    const until = m.ref.endsAt! - MARGIN_MS - 1000;
    const v = await r.t.waitFor("the server's clock near the break's end", async () => {
      const view = await readUnlessStopped(m, r);
      // Every read on the way is judged: the lease must read Breaking until the margin.
      if (!settle(m.ref, view.date!.getTime()).some((c) => readBackAgrees(c, view))) {
        fail(r, m, { action: this.toString(), expected: describeModel(m.ref), observed: leaseShown(view) });
      }
      return view.date!.getTime() >= until ? view : undefined;
    }, { timeoutMs: 30_000, intervalMs: 500 });
    r.steps.push({ action: this.toString(), expected: describeModel(m.ref), observed: leaseShown(v) });
    Object.assign(m, { nearEnd: true, now: v.date!.getTime() });
  }
  toString(): string {
    return "wait to the last seconds of the break";
  }
}

/**
 * Commands run back to back (each only where its check holds): paths a random
 * order seldom reaches, such as expiry, a write, then renew with the old ID
 * (blob/lease/state/renew/expired-modified, Azurite#2352), or a change followed
 * by the old ID (which no longer holds the lease).
 */
class Then implements fc.AsyncCommand<Model, Real> {
  readonly parts: fc.AsyncCommand<Model, Real>[];
  constructor(...parts: fc.AsyncCommand<Model, Real>[]) {
    this.parts = parts;
  }
  check(m: Readonly<Model>): boolean {
    return this.parts[0].check(m);
  }
  async run(m: Model, r: Real): Promise<void> {
    for (const [i, c] of this.parts.entries()) {
      // The first part started within the time budget; the quick parts after
      // it finish the path it began even past the deadline (a write, then a
      // renew, right after a wait that ended near it). A wait never does.
      const tail = i > 0 && !(c instanceof WaitCommand || c instanceof NearEndWait);
      if (c.check(tail ? { ...m, deadline: Infinity } : m)) await c.run(m, r);
    }
  }
  toString(): string {
    return this.parts.join(", then ");
  }
}

const RENEW_AFTER_WRITE = new Then(new WaitCommand(), new WriteCommand("none", "none"), new LeaseCommand("renew", "holder", 0, 0));
// An infinite lease broken with the short period, then a wait to its last seconds.
const NEAR_BREAK_END = new Then(new LeaseCommand("acquire", "holder", -1, 0), new LeaseCommand("break", "holder", 0, SHORT_BREAK), new NearEndWait());
// The wait, alone or followed by a write without a lease ID (column
// expired-modified) and renew with the old ID there (Azurite#2352's path), which half of the waits take.
const EXPIRY_WAITS = [
  fc.constant(new WaitCommand()),
  fc.constantFrom(new Then(new WaitCommand(), new WriteCommand("none", "none")), RENEW_AFTER_WRITE),
  fc.constant(RENEW_AFTER_WRITE),
];
// Weighted towards the holder's ID, so sequences go deep into the table rather than stay refused.
const role = fc.constantFrom<Role>("holder", "holder", "other");
const COMMANDS = [
  fc.tuple(role, fc.constantFrom(SHORTEST, SHORTEST, -1)).map(([r, d]) => new LeaseCommand("acquire", r, d, 0)),
  fc.tuple(role, fc.constantFrom(SHORTEST, SHORTEST, -1)).map(([r, d]) => new LeaseCommand("acquire", r, d, 0)),
  role.map((r) => new LeaseCommand("renew", r, 0, 0)),
  fc.constant(new LeaseCommand("change", "holder", 0, 0)),
  role.map((r) => new LeaseCommand("release", r, 0, 0)),
  fc.constantFrom(0, BREAK_PERIOD).map((p) => new LeaseCommand("break", "holder", 0, p)),
  fc.tuple(fc.constantFrom<IdMode>("none", "holder", "holder", "other"), fc.constantFrom("none", "none", "current", "stale") as fc.Arbitrary<"none" | "current" | "stale">).map(([id, c]) => new WriteCommand(id, c)),
  fc.tuple(fc.constantFrom<IdMode>("none", "holder", "other"), fc.constantFrom("none", "if-none-match-current", "if-match-stale") as fc.Arbitrary<"none" | "if-none-match-current" | "if-match-stale">).map(([id, c]) => new ReadCommand(id, c)),
  ...EXPIRY_WAITS,
  // After a change the old ID is "another ID": acting with it must be refused.
  fc.constantFrom<Verb>("renew", "release").map((v) => new Then(new LeaseCommand("change", "holder", 0, 0), new LeaseCommand(v, "other", 0, 0))),
];
/**
 * The same but the expiry waits, and a short break period with a wait near its
 * end, alone (on whatever Breaking lease the sequence has) or after breaking a lease.
 */
const BREAK_END_COMMANDS = [
  ...COMMANDS.filter((c) => !EXPIRY_WAITS.includes(c)),
  fc.constant(new LeaseCommand("break", "holder", 0, SHORT_BREAK)),
  fc.constantFrom<fc.AsyncCommand<Model, Real>>(new NearEndWait(), NEAR_BREAK_END),
  fc.constant(NEAR_BREAK_END),
];

/**
 * Container sequences: the same, with more of the writes a container lease
 * leaves shared (Set Container Metadata takes no ETag condition, so the
 * conditional writes drawn above do not run there).
 */
const SHARED_WRITES = fc.constantFrom<IdMode>("none", "none", "holder").map((id) => new WriteCommand(id, "none"));
const CONTAINER_COMMANDS = [...COMMANDS, SHARED_WRITES, SHARED_WRITES];
const CONTAINER_BREAK_END_COMMANDS = [...BREAK_END_COMMANDS, SHARED_WRITES, SHARED_WRITES];

/**
 * A fresh resource for a sequence, written twice (so it has a stale ETag, the
 * first write's answer's): a block blob in the row's one container for blobs
 * (content v1), or a container (metadata state=v1). Each request here is a
 * round trip the sequence's time budget waits for against a slow target.
 */
async function fresh(t: RowContext, resource: LeaseModel["resource"], blobs: () => Promise<ContainerClient>): Promise<{ x: LeaseTarget; ref: LeaseModel; date: number }> {
  if (resource === "container") {
    const c = t.blob.getContainerClient(t.name("c"));
    const stale = (await c.create()).etag!;
    const written = await c.setMetadata({ state: "v1" });
    return { x: containerTarget(c), ref: { resource, state: "available", finite: false, content: "v1", etag: written.etag!, stale }, date: expectPresent("Set Container Metadata: the answer's Date", written.date).getTime() };
  }
  const b = (await blobs()).getBlockBlobClient(t.name("b"));
  const stale = (await b.upload("v0", 2)).etag!;
  const written = await b.upload("v1", 2);
  return { x: blobTarget(b), ref: { resource, state: "available", finite: false, content: "v1", etag: written.etag!, stale }, date: expectPresent("Put Blob: the answer's Date", written.date).getTime() };
}

/**
 * One sequence on a fresh blob or container: its model starts from what the
 * setup wrote. With `leased`, the setup also acquires a 15 s lease (L1), and
 * the time budget runs from that acquire: a wait across its expiry always
 * fits, however long the first commands take on a loaded target (the expiry
 * paths, such as Azurite#2352's renew after a write, are then reached in every
 * run, not only where a finite lease happens to be acquired within the first
 * seconds).
 */
async function sequence(
  t: RowContext,
  resource: LeaseModel["resource"],
  blobs: () => Promise<ContainerClient>,
  commands: Iterable<fc.AsyncCommand<Model, Real>>,
  executed: Real["executed"],
  start: "available" | "leased" | "near-break-end",
  row: Model["row"],
): Promise<void> {
  const { x, ref, date } = await fresh(t, resource, blobs);
  const real: Real = { t, x, ids: { L1: guid(), L2: guid() }, steps: [], writes: 0, executed };
  let now = date;
  const model: Model = { ref, waited: false, nearEnd: false, now, deadline: now + BUDGET_MS, row };
  // A leased sequence starts from a 15 s lease, a break-end one from an infinite lease it breaks.
  const setupLease = start === "leased" ? SHORTEST : start === "near-break-end" ? -1 : undefined;
  if (setupLease !== undefined) {
    const action = `acquire L1 (the holder), ${setupLease === -1 ? "infinite" : `${setupLease} s`} (setup)`;
    t.step(action);
    const res = await leaseAction(t, real.x, "acquire", { proposed: real.ids.L1, duration: setupLease });
    if (res.status !== 201) fail(real, model, { action, expected: "201", observed: show(res) });
    now = serverDate(res).getTime();
    const finite = setupLease !== -1;
    Object.assign(model, { ref: { ...ref, state: "leased", holder: "L1", finite, endsAt: finite ? now + setupLease * 1000 : undefined }, now, deadline: now + BUDGET_MS });
    real.steps.push({ action, expected: "201", observed: show(res) });
  }
  // A break-end sequence then breaks the lease with the short period and waits to its last seconds
  // (drawn among the commands, that path often came too late to fit). Its budget runs from the break,
  // as a leased sequence's from its acquire: the wait fits however long a loaded target took to answer
  // the acquire and the break (from the setup, it was skipped there, and a break ending early went unseen).
  if (start === "near-break-end") {
    const [, brk, wait] = NEAR_BREAK_END.parts;
    if (brk.check({ ...model, deadline: Infinity })) await brk.run(model, real);
    model.deadline = model.now + BUDGET_MS;
    if (wait.check(model)) await wait.run(model, real);
  }
  await fc.asyncModelRun(() => ({ model, real }), commands);
  if (model.now >= model.deadline) executed.cut++;
  // A container left leased refuses Delete Container without the lease's ID: broken here (period 0, not
  // judged), the row's cleanup removes it with one request instead of three round trips after the verdict.
  if (resource === "container" && locked(model.ref.state)) {
    t.step("break the container's lease for its removal (period 0, not judged)");
    await leaseAction(t, real.x, "break", { breakPeriod: 0 });
  }
}

async function leaseModel(t: RowContext): Promise<void> {
  const seed = seeded(t);
  const executed = { n: 0, waits: 0, nearEnd: 0, cut: 0 };
  const noShrink = t.run.options.shrink === false;
  const row = { stopped: false };
  // The blob sequences' blobs share one container, made once: a sequence's setup is a round trip shorter.
  let container: Promise<ContainerClient> | undefined;
  const blobs = () => (container ??= t.newContainer());
  // Blob sequences first (their seeds are the run's seed + 0..19), then the container ones.
  const plans = [
    ...Array.from({ length: SEQUENCES }, (_, i) => ({ resource: "blob" as const, commands: COMMANDS, start: i % 2 === 1 ? ("leased" as const) : ("available" as const) })),
    ...Array.from({ length: BREAK_END_SEQUENCES }, () => ({ resource: "blob" as const, commands: BREAK_END_COMMANDS, start: "near-break-end" as const })),
    ...Array.from({ length: CONTAINER_SEQUENCES }, (_, i) =>
      i < CONTAINER_SEQUENCES - 1
        ? { resource: "container" as const, commands: CONTAINER_COMMANDS, start: i % 2 === 1 ? ("leased" as const) : ("available" as const) }
        : { resource: "container" as const, commands: CONTAINER_BREAK_END_COMMANDS, start: "near-break-end" as const },
    ),
  ];
  /** The first answer that was no departure from the model (a server error on every try, no answer): no sequence can go on. */
  let fault: unknown;
  const runs = await Promise.all(
    plans.map((plan, i) =>
      fc.check(
        fc.asyncProperty(fc.commands(plan.commands, { maxCommands: MAX_COMMANDS, size: "max" }), async (cmds) => {
          try {
            await sequence(t, plan.resource, blobs, cmds, executed, plan.start, row);
          } catch (err) {
            if (err instanceof Stopped) return;
            // Not a departure: shrinking would only replay the sequences, waits included, to meet it again.
            if (!(err instanceof AssertionError)) {
              fault ??= err;
              row.stopped = true;
              return;
            }
            // Without shrinking nothing replays this sequence: the others may stop.
            if (noShrink) row.stopped = true;
            throw err;
          }
        }),
        { seed: seed + i, numRuns: 1, interruptAfterTimeLimit: 60_000, endOnFailure: noShrink },
      ),
    ),
  );
  t.note("commands", executed.n);
  t.note("waits", executed.waits);
  t.note("waits to a break's last seconds", executed.nearEnd);
  t.note("sequences ended by the time budget", `${executed.cut} of ${plans.length} (no command starts later than ${BUDGET_MS / 1000} s after a sequence's setup, by the server's clock, but the quick tail of one begun before)`);
  for (const [i, d] of runs.entries()) {
    // fast-check reports a sequence cut by its time limit before it ended as failed, with no error: no verdict.
    if (!d.failed || (d.interrupted && d.errorInstance == null)) continue;
    const err = d.errorInstance as Error | undefined;
    const [first, ...rest] = (err?.message ?? "the lease model failed").split("\n");
    throw new AssertionError(`${first}\nsequence ${i}, on a ${plans[i].resource} (shrunk: ${d.counterexample?.[0] ?? "?"}):\n${rest.join("\n")}\nreplay: ${replayCommand(t, seed)}`, {
      failure: (err as { failure?: unknown } | undefined)?.failure,
    });
  }
  if (fault !== undefined) throw fault;
  if (runs.some((d) => d.interrupted)) throw new RowSignal("INCONCLUSIVE", "a sequence did not finish within its time limit");
}

const rows: RowDef[] = [
  {
    id: "blob/lease/model",
    title: `Random sequences (${SEQUENCES + BREAK_END_SEQUENCES} on blobs, ${CONTAINER_SEQUENCES} on containers, each up to ${MAX_COMMANDS} commands within ${BUDGET_MS / 1000} s) of lease actions by two IDs, writes and reads with and without IDs (and, on blobs, conditions), a wait across an expiry, and (${BREAK_END_SEQUENCES + 1} of them) short breaks and waits to their last seconds: every answer and the lease read back agree with the one lease table (Lease Blob, Lease Container) and the lease-ops rules`,
    level: "rest",
    source: blobLeaseSource("Lease Blob and Lease Container (outcomes by lease state), the lease-ops rules; catalogue M"),
    service: "blob",
    waitSeconds: SHORTEST + 2,
    timeoutMs: 150_000,
    run: leaseModel,
  },
];

defineTable({ table: "M Models", service: "blob" }, rows);
