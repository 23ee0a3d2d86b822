// The blob lease model's commands (catalogue M, `blob/lease/model`): the
// lease actions, writes, reads and waits a sequence draws (lease-model-plan.ts),
// each with when it may run on the model's state and what it sends to the
// target; every answer is judged by lease-model-check.ts.
import fc from "fast-check";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { LEASE_OF, leaseAction, readLease, type LeaseView } from "./lease-kit.ts";
import { fail, leaseShown, open, show, step, type Model, type Real } from "./lease-model-check.ts";
import {
  describeModel,
  expectedAnswers,
  locked,
  MARGIN_MS,
  otherId as other,
  readBackAgrees,
  settle,
  tableAction,
  type LeaseCommand as Cmd,
  type LeaseModel,
  type Verb,
  type Who,
} from "./lease-reference.ts";
import { ACTION_LABEL, cellOf, onState } from "./lease-table.ts";

// ---- lease actions: the transition table is lease-table.ts, through lease-reference.ts ----

/** Who a command speaks as: the lease's holder (L1 when there is none), or the other ID. */
export type Role = "holder" | "other";
const roleId = (m: Readonly<Model>, role: Role): Who => (role === "holder" ? (m.ref.holder ?? "L1") : other(m.ref.holder ?? "L1"));

// Commands hold no state of their own: one instance may serve many sequences at once.
export class LeaseCommand implements fc.AsyncCommand<Model, Real> {
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
          this.verb === "acquire"
            ? { proposed: ids[id], duration: this.duration }
            : this.verb === "change"
              ? { id: ids[id], proposed: ids[other(id)] }
              : this.verb === "break"
                ? { breakPeriod: this.breakPeriod }
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
    const same =
      typeof pinned === "string"
        ? pinned === `${ACTION_LABEL[action]} on ${onState(c.state)}: expected ${expected}, got ${show(res)}`
        : pinned?.expected === expected && pinned?.got === show(res);
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
    return this.verb === "break"
      ? `break (period ${this.breakPeriod})`
      : `${this.verb} (${this.role === "holder" ? "the holder" : "another ID"}${this.verb === "acquire" ? `, ${this.duration === -1 ? "infinite" : this.duration + " s"}` : ""})`;
  }
}

// ---- writes and reads: the lease-ops rules and conditional headers ----

export type IdMode = "none" | "holder" | "other";
const idOf = (m: Model, mode: IdMode): Who | undefined => (mode === "none" ? undefined : roleId(m, mode));
const idText = (mode: IdMode) => (mode === "none" ? "no lease ID" : mode === "holder" ? "the holder's ID" : "another ID");

/** A blob's Put Blob, or a container's Set Container Metadata (the container write a lease leaves shared). */
export class WriteCommand implements fc.AsyncCommand<Model, Real> {
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
        ? r.t.raw("blob", {
            method: "PUT",
            path: r.x.path,
            query: { restype: "container", comp: "metadata" },
            headers: { ...lease, "x-ms-meta-state": content },
          })
        : r.t.raw("blob", {
            method: "PUT",
            path: r.x.path,
            headers: {
              "x-ms-blob-type": "BlockBlob",
              ...lease,
              ...(this.condition === "none" ? {} : { "if-match": this.condition === "current" ? m.ref.etag : m.ref.stale }),
            },
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
export class ReadCommand implements fc.AsyncCommand<Model, Real> {
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
          ...(this.condition === "if-none-match-current"
            ? { "if-none-match": m.ref.etag }
            : this.condition === "if-match-stale"
              ? { "if-match": m.ref.stale }
              : {}),
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
export class Stopped extends Error {}

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
export class WaitCommand implements fc.AsyncCommand<Model, Real> {
  check(m: Readonly<Model>): boolean {
    // Only a wait that ends within the budget.
    return open(m) && m.ref.endsAt !== undefined && m.ref.finite && !m.waited && m.ref.endsAt + MARGIN_MS <= m.deadline;
  }
  async run(m: Model, r: Real): Promise<void> {
    r.t.step("wait past the lease's or the break's end (server time)");
    r.executed.n++;
    r.executed.waits++;
    const until = m.ref.endsAt! + MARGIN_MS;
    const v = await r.t.waitFor(
      "the server's clock past the end",
      async () => {
        const view = await readUnlessStopped(m, r);
        if (view.date!.getTime() >= until) return view;
        // Nothing is judged before the end: the next read a second before it (a Date counts whole seconds), not one a second.
        await sleepUnlessStopped(m, r, until - view.date!.getTime() - 1000);
        return undefined;
      },
      { timeoutMs: 40_000, intervalMs: 250 },
    );
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
export class NearEndWait implements fc.AsyncCommand<Model, Real> {
  check(m: Readonly<Model>): boolean {
    const ends = m.ref.endsAt;
    return (
      open(m) &&
      !m.nearEnd &&
      m.ref.state === "breaking" &&
      ends !== undefined &&
      ends - MARGIN_MS - 1000 > m.now &&
      ends - MARGIN_MS <= m.deadline
    );
  }
  async run(m: Model, r: Real): Promise<void> {
    r.t.step("wait to the last seconds of the break period (server time)");
    r.executed.n++;
    r.executed.nearEnd++;
    const until = m.ref.endsAt! - MARGIN_MS - 1000;
    const v = await r.t.waitFor(
      "the server's clock near the break's end",
      async () => {
        const view = await readUnlessStopped(m, r);
        // Every read on the way is judged: the lease must read Breaking until the margin.
        if (!settle(m.ref, view.date!.getTime()).some((c) => readBackAgrees(c, view))) {
          fail(r, m, { action: this.toString(), expected: describeModel(m.ref), observed: leaseShown(view) });
        }
        return view.date!.getTime() >= until ? view : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
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
export class Then implements fc.AsyncCommand<Model, Real> {
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
