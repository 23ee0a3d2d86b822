// M Models: queue delivery under random interleavings (catalogue M,
// `queue/delivery-model`). Several receivers, each with its own client, run
// a plan drawn from the run's seed (put, some with an initial visibility
// timeout and some with a time to live of a few seconds, get with 1-2 s
// windows and some of 5 s, update and delete with the receipt they hold,
// delete/update with a receipt they know is superseded, short waits; at the
// end a put and a get with a 5-6 s window) concurrently on one queue, after
// one Clear Messages while messages are invisible and one message taken to
// expire while invisible; every answer is recorded
// (Date, TimeNextVisible, ExpirationTime, DequeueCount, pop receipt, text,
// status). A drain
// then receives every message that becomes visible, polling until the
// server's clock is 2 s past every TimeNextVisible given: a window that ends
// early (at half its length, while the full one is stated) shows as a delivery
// before its TimeNextVisible. Each message's history must be linearizable against
// a small model of the documented behaviour (Q rows): a delivery only once
// the message is visible by the server's clock (1 s of granularity allowed),
// before its ExpirationTime and with the ExpirationTime Put Message gave,
// with DequeueCount + 1 and the last successfully updated text (Update Message
// leaves DequeueCount alone); only the current receipt deletes or updates, and
// it always does until the message expires; a deleted, cleared or expired
// message never comes back; at the drain, a message neither deleted, cleared
// nor expired is not missing. Time
// verdicts use the server's Date and TimeNextVisible only; the local monotonic
// clock only orders what one process saw (an answer received before a request
// was sent), never measures a duration in a verdict.
import { performance } from "node:perf_hooks";
import fc from "fast-check";
import { AssertionError } from "chai";
import type { QueueClient } from "@azure/storage-queue";
import type { RowContext, RowDef } from "../../fixtures/engine.ts";
import { fail } from "../../fixtures/assert.ts";
import { checkLinearizable, type Model, type Operation } from "../../fixtures/linearizability.ts";
import { replayCommand, seeded } from "../../fixtures/models.ts";
import { defineTable } from "../../fixtures/registry.ts";
import { isTransportFault, RowSignal } from "../../fixtures/signals.ts";
import { queueSource } from "./queue-kit.ts";

/** Receivers. */
export const RECEIVERS = 4;
/** Waits end on a tick shared by all receivers (scheduling only), so their next requests meet. */
const TICK_MS = 300;
/** The server's clocks have one-second granularity: Date and TimeNextVisible may disagree by this much. */
const SLACK_MS = 1000;
/**
 * A message must be visible again by a Date this long after its TimeNextVisible:
 * the granularity, plus a window legally ending up to 1 s late.
 */
const LAPSED_MS = 2 * SLACK_MS;
/** The drain's receives while the windows run out (scheduling only). */
const DRAIN_POLL_MS = 250;
/** Window of the drain's receives: long enough that nothing it receives comes back during the row. */
const DRAIN_VISIBILITY_S = 30;

// ---- the plan ----------------------------------------------------------------

export type Step =
  | { kind: "put"; delay: number; ttl?: number } // Put Message, initial visibilitytimeout (s), messagettl (s)
  | { kind: "get"; n: number; visibility: number } // Get Messages, numofmessages, visibilitytimeout (s)
  // Update Message on a held message, new text; then, maybe, the receipt it superseded is used again at
  // once (the client bug of Azure/durabletask#1246: a delete racing a renewal with the old receipt).
  | { kind: "update"; pick: number; visibility: number; then?: "update" | "delete" }
  | { kind: "delete"; pick: number } // Delete Message on a held message
  | { kind: "stale"; pick: number; action: "update" | "delete"; of: "superseded" | "deleted" } // with a receipt this receiver knows is stale
  | { kind: "wait"; ticks: number };

/**
 * What each receiver does, in an order drawn from the seed: every kind in
 * every run (a plain weighted draw leaves some runs with no delete at all).
 */
const BAG: Step["kind"][] = ["put", "get", "get", "get", "get", "get", "get", "update", "update", "update", "delete", "delete", "delete", "stale", "stale", "stale", "wait", "wait", "wait", "wait"];

/** Times to live of a few seconds, so messages expire during the row (longer than any initial visibility timeout: catalogue Q, visibility-below-ttl). */
const TTLS = [4, 6];

const params = fc.record({
  delay: fc.constantFrom(0, 0, 0, 1, 2),
  ttl: fc.constantFrom(undefined, undefined, undefined, ...TTLS),
  n: fc.constantFrom(1, 2),
  // Some windows long enough that one ending at half its length shows (1-2 s ones hide in the granularity).
  getVisibility: fc.constantFrom(1, 2, 1, 2, 5),
  updateVisibility: fc.constantFrom(0, 1, 1),
  pick: fc.nat(7),
  action: fc.constantFrom("update" as const, "delete" as const),
  of: fc.constantFrom("superseded" as const, "superseded" as const, "superseded" as const, "deleted" as const),
  then: fc.constantFrom(undefined, undefined, "update" as const, "delete" as const),
  ticks: fc.integer({ min: 1, max: 3 }),
});

const receiverPlan: fc.Arbitrary<Step[]> = fc
  .tuple(fc.shuffledSubarray(BAG, { minLength: BAG.length, maxLength: BAG.length }), fc.array(params, { minLength: BAG.length, maxLength: BAG.length }))
  .map(([kinds, ps]) =>
    kinds.map((kind, i): Step => {
      const p = ps[i];
      switch (kind) {
        case "put":
          return { kind, delay: p.delay, ttl: p.ttl };
        case "get":
          return { kind, n: p.n, visibility: p.getVisibility };
        case "update":
          return { kind, pick: p.pick, visibility: p.updateVisibility, then: p.then };
        case "delete":
          return { kind, pick: p.pick };
        case "stale":
          return { kind, pick: p.pick, action: p.action, of: p.of };
        case "wait":
          return { kind, ticks: p.ticks };
      }
    }),
  );

/**
 * The plan of one run: per receiver, two puts, the bag in the seed's order,
 * and a put and a get with a long window at the end, which the drain sees run
 * out; for half of them that put lives 4 s and that get takes every visible
 * message, so the message expires while invisible (catalogue Q,
 * message-ttl/expires-while-invisible).
 */
export function plan(seed: number): Step[][] {
  const n = RECEIVERS;
  const [[steps, last]] = fc.sample(
    fc.tuple(fc.array(receiverPlan, { minLength: n, maxLength: n }), fc.array(fc.constantFrom(5, 6), { minLength: n, maxLength: n })),
    { seed, numRuns: 1 },
  );
  return steps.map((s, i) => [
    { kind: "put", delay: 0 },
    { kind: "put", delay: 0 },
    ...s,
    ...(i % 2 === 0
      ? [{ kind: "put", delay: 0, ttl: TTLS[0] } as const, { kind: "get", n: 32, visibility: last[i] } as const]
      : [{ kind: "put", delay: 0 } as const, { kind: "get", n: 2, visibility: last[i] } as const]),
  ]);
}

// ---- the history -------------------------------------------------------------

interface Delivered {
  id: string;
  receipt: string;
  /** TimeNextVisible, ms since the epoch (whole seconds). */
  tnv: number;
  /** ExpirationTime, ms since the epoch. */
  expires?: number;
  count: number;
  text: string;
}

/** One operation as issued and answered. Times: `call`/`ret` local (ordering only); `date`/`tnv` the server's. */
interface Event {
  seq: number;
  who: string;
  kind: "put" | "get" | "update" | "delete" | "clear";
  /** Sent with a receipt the receiver knew was superseded (or its message deleted). */
  stale?: boolean;
  call: number;
  ret: number;
  id?: string;
  receipt?: string;
  text?: string;
  visibility?: number;
  /** Put Message's messagettl (s). */
  ttl?: number;
  n?: number;
  status?: number;
  code?: string;
  date?: number;
  newReceipt?: string;
  tnv?: number;
  /** Put Message's ExpirationTime. */
  expires?: number;
  delivered?: Delivered[];
  fault?: string;
}

const ok = (e: Event) => e.status !== undefined && e.status >= 200 && e.status < 300;

interface Rest {
  statusCode?: number;
  code?: string;
  response?: { headers?: { get(n: string): string | undefined } };
}

class History {
  readonly events: Event[] = [];
  /** Set once an operation went unanswered: everyone stops, the row is INCONCLUSIVE. */
  fault?: Event;
  private readonly t0 = performance.now();

  /** Runs one operation, recording the server's answer (or that there was none). */
  async record<T>(who: string, fields: Omit<Event, "seq" | "who" | "call" | "ret">, op: () => Promise<T>, answer: (e: Event, r: T) => void): Promise<Event> {
    const e: Event = { seq: this.events.length, who, ...fields, call: this.now(), ret: Infinity };
    this.events.push(e);
    try {
      const r = await op();
      e.ret = this.now();
      answer(e, r);
    } catch (err) {
      e.ret = this.now();
      if (isTransportFault(err)) {
        e.ret = Infinity;
        e.fault = (err as Error).message ?? String(err);
        this.fault ??= e;
        return e;
      }
      const r = err as Rest;
      if (r?.statusCode === undefined) throw err;
      e.status = r.statusCode;
      e.code = r.response?.headers?.get("x-ms-error-code") ?? r.code;
      const date = r.response?.headers?.get("date");
      if (date) e.date = Date.parse(date);
    }
    return e;
  }

  /** The first operation that went unanswered, if any. */
  unanswered(): Event | undefined {
    return this.fault;
  }

  /** Milliseconds since the row started, to 0.1 ms (rounding only merges instants, never reorders them). */
  private now(): number {
    return Math.round((performance.now() - this.t0) * 10) / 10;
  }
}

const time = (d: Date | undefined) => (d ? d.getTime() : undefined);

interface Receiver {
  who: string;
  q: QueueClient;
  held: { id: string; receipt: string }[];
  /** Receipts it knows are no longer current: superseded by its own update or a later dequeue (its own, or another's when refused). */
  superseded: { id: string; receipt: string }[];
  /** Receipts of messages it deleted. */
  deleted: { id: string; receipt: string }[];
  /** It has used a receipt its own update superseded, right after the update. */
  raced?: boolean;
}

async function put(h: History, r: Receiver, text: string, delay: number, ttl?: number): Promise<void> {
  await h.record(r.who, { kind: "put", text, visibility: delay, ttl }, () => r.q.sendMessage(text, { visibilityTimeout: delay, messageTimeToLive: ttl }), (e, res) => {
    e.status = res._response.status;
    e.date = time(res.date);
    e.id = res.messageId;
    e.newReceipt = res.popReceipt;
    e.tnv = time(res.nextVisibleOn);
    e.expires = time(res.expiresOn);
  });
}

async function clear(h: History, r: Receiver): Promise<void> {
  await h.record(r.who, { kind: "clear" }, () => r.q.clearMessages(), (e, res) => {
    e.status = res._response.status;
    e.date = time(res.date);
  });
}

async function get(h: History, r: Receiver, n: number, visibility: number): Promise<void> {
  await h.record(r.who, { kind: "get", n, visibility }, () => r.q.receiveMessages({ numberOfMessages: n, visibilityTimeout: visibility }), (e, res) => {
    e.status = res._response.status;
    e.date = time(res.date);
    e.delivered = res.receivedMessageItems.map((m) => ({
      id: m.messageId,
      receipt: m.popReceipt,
      tnv: time(m.nextVisibleOn) ?? NaN,
      expires: time(m.expiresOn),
      count: m.dequeueCount,
      text: m.messageText,
    }));
    for (const m of e.delivered) {
      const had = r.held.findIndex((x) => x.id === m.id);
      if (had >= 0) r.superseded.push(...r.held.splice(had, 1));
      r.held.push({ id: m.id, receipt: m.receipt });
    }
  });
}

async function update(h: History, r: Receiver, target: { id: string; receipt: string }, text: string, visibility: number, stale: boolean): Promise<Event> {
  return h.record(
    r.who,
    { kind: "update", stale, id: target.id, receipt: target.receipt, text, visibility },
    () => r.q.updateMessage(target.id, target.receipt, text, visibility),
    (e, res) => {
      e.status = res._response.status;
      e.date = time(res.date);
      e.newReceipt = res.popReceipt;
      e.tnv = time(res.nextVisibleOn);
    },
  );
}

async function remove(h: History, r: Receiver, target: { id: string; receipt: string }, stale: boolean): Promise<Event> {
  return h.record(r.who, { kind: "delete", stale, id: target.id, receipt: target.receipt }, () => r.q.deleteMessage(target.id, target.receipt), (e, res) => {
    e.status = res._response.status;
    e.date = time(res.date);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One receiver runs its steps; what it holds decides which message a step touches. */
async function runReceiver(h: History, r: Receiver, steps: Step[], index: number, start: number): Promise<void> {
  for (const [i, s] of steps.entries()) {
    if (h.fault) return;
    const tag = `${index + 1}.${i}`;
    // The most recent of what it holds (as a consumer deletes what it just processed), and the most
    // recently superseded receipts (the likeliest to be taken for current by a faulty target).
    const recent = <T>(list: T[], pick: number) => list[list.length - 1 - (pick % Math.min(2, list.length))];
    const pickHeld = (pick: number) => recent(r.held, pick);

    if ((s.kind === "update" || s.kind === "delete") && r.held.length === 0) {
      await get(h, r, 1, 2);
      continue;
    }
    const stale = s.kind !== "stale" ? [] : s.of === "deleted" && r.deleted.length > 0 ? r.deleted : r.superseded.length > 0 ? r.superseded : r.deleted;
    if (s.kind === "stale" && stale.length === 0) {
      await get(h, r, 1, 2);
      continue;
    }
    switch (s.kind) {
      case "put":
        await put(h, r, `p${tag}`, s.delay, s.ttl);
        break;
      case "get":
        await get(h, r, s.n, s.visibility);
        break;
      case "update": {
        const target = pickHeld(s.pick);
        const e = await update(h, r, target, `u${tag}`, s.visibility, false);
        r.held.splice(r.held.indexOf(target), 1);
        r.superseded.push(target);
        if (ok(e)) r.held.push({ id: target.id, receipt: e.newReceipt! });
        // A receiver's first update that lands is always followed by the receipt it superseded (half
        // the receivers delete with it, half update), so every run has that race, not only the draws that give it;
        // those that delete with it then delete the message with its current receipt: a rewritten message
        // deleted, which must never return either.
        const forced = ok(e) && !s.then && !r.raced;
        const then = s.then ?? (r.raced ? undefined : index % 2 === 0 ? "delete" : "update");
        if (ok(e) && then) r.raced = true;
        if (ok(e) && then === "update") await update(h, r, target, `s${tag}`, 0, true);
        if (ok(e) && then === "delete") await remove(h, r, target, true);
        if (forced && then === "delete") {
          const current = r.held.find((m) => m.id === target.id)!;
          const d = await remove(h, r, current, false);
          r.held.splice(r.held.indexOf(current), 1);
          (ok(d) ? r.deleted : r.superseded).push(current);
        }
        break;
      }
      case "delete": {
        const target = pickHeld(s.pick);
        const e = await remove(h, r, target, false);
        r.held.splice(r.held.indexOf(target), 1);
        (ok(e) ? r.deleted : r.superseded).push(target);
        break;
      }
      case "stale": {
        const target = recent(stale, s.pick);
        if (s.action === "update") await update(h, r, target, `s${tag}`, 0, true);
        else await remove(h, r, target, true);
        break;
      }
      case "wait": {
        const now = performance.now() - start;
        await sleep((Math.floor(now / TICK_MS) + s.ticks) * TICK_MS - now);
        break;
      }
    }
  }
}

// ---- the model ---------------------------------------------------------------

/**
 * One message as the documentation describes it. `exists: "maybe"` and more
 * than one candidate receipt only arise under a relaxation (used to name the
 * invariant a failing history breaks).
 */
interface MsgState {
  exists: boolean | "maybe";
  count: number;
  receipts: string[];
  /** The TimeNextVisible it was last given (ms). */
  visibleAt: number;
  /** The ExpirationTime Put Message gave (ms). */
  expiresAt?: number;
  text: string;
}

/** clear: Clear Messages, `certain` when it was sent after the put had returned (else the put may have come after it). */
type MsgInput =
  | { op: "get" }
  | { op: "update"; receipt: string; text: string; visibility: number }
  | { op: "delete"; receipt: string }
  | { op: "clear"; certain: boolean }
  | { op: "absent" };
/** `ok`: 2xx. get: what was delivered; update: the new receipt and TimeNextVisible; absent: the drain's last Date. */
interface MsgOutput {
  ok: boolean;
  date?: number;
  count?: number;
  receipt?: string;
  tnv?: number;
  expires?: number;
  text?: string;
}

/** Each relaxation drops one documented rule; the first that explains a failing history names the broken invariant. */
const RELAXATIONS = [
  { relax: "dup", signature: "a message was delivered to two receivers within one visibility window", rule: "one dequeue (one DequeueCount) was handed out twice" },
  { relax: "window", signature: "a message was delivered before the TimeNextVisible it was last given", rule: "a delivery's Date is more than 1 s before the TimeNextVisible the message was last given (by Put, Get or Update Message)" },
  { relax: "stale", signature: "a stale pop receipt deleted or updated a message", rule: "Delete / Update Message succeeded with a receipt that was no longer the message's current one" },
  { relax: "deleted", signature: "a deleted message came back", rule: "a message was delivered (or updated) after a Delete Message succeeded" },
  { relax: "cleared", signature: "a message came back after Clear Messages", rule: "a message put before Clear Messages (visible or not) was delivered, updated or deleted after it" },
  { relax: "expired", signature: "a message was delivered, updated or deleted after its ExpirationTime", rule: "an answer dated more than 1 s past the message's ExpirationTime (Put Message's) delivered it or let its receipt act" },
  { relax: "expires", signature: "a delivery's ExpirationTime is not the one Put Message gave", rule: "Get Messages reported another ExpirationTime than the Put Message answer" },
  { relax: "count", signature: "a delivery's DequeueCount is not the previous one + 1", rule: "DequeueCount did not grow by exactly one per delivery" },
  { relax: "text", signature: "a delivered message's text is not the last successfully updated one", rule: "a delivery carried another text than the put's or the last successful update's" },
  { relax: "absent", signature: "an undeleted message did not come back after its visibility timeout", rule: "the drain did not receive a message that was never deleted, its TimeNextVisible long past" },
  { relax: "current", signature: "Delete / Update Message refused the message's current pop receipt", rule: "an operation with the current receipt was refused" },
] as const;
type Relax = (typeof RELAXATIONS)[number]["relax"];
const UNEXPLAINED = "the deliveries of a message cannot be explained by the documented behaviour";

function messageModel(init: MsgState, relax: ReadonlySet<Relax>): Model<MsgState, MsgInput, MsgOutput> {
  return {
    init: () => init,
    step(s, input, o) {
      const no = { ok: false, state: s };
      if (!o) return no; // unanswered operations end the row before any check
      const yes = (state: MsgState) => ({ ok: true, state });
      // Past its ExpirationTime for sure by the answer's Date (1 s of granularity allowed)...
      const expired = () => s.expiresAt !== undefined && o.date !== undefined && o.date >= s.expiresAt + SLACK_MS;
      // ...or possibly, `leadMs` after the answer's Date.
      const mayHaveExpired = (leadMs: number) => s.expiresAt !== undefined && o.date !== undefined && o.date + leadMs >= s.expiresAt - SLACK_MS;
      switch (input.op) {
        case "get": {
          if (s.exists === false) return no;
          if (expired() && !relax.has("expired")) return no;
          if (o.expires !== undefined && s.expiresAt !== undefined && o.expires !== s.expiresAt && !relax.has("expires")) return no;
          const textOk = o.text === s.text || relax.has("text");
          if (!textOk) return no;
          const visible = s.visibleAt <= o.date! + SLACK_MS || relax.has("window");
          if (visible && (o.count === s.count + 1 || relax.has("count"))) {
            return yes({ ...s, exists: true, count: o.count!, receipts: [o.receipt!], visibleAt: o.tnv!, text: o.text! });
          }
          // The same dequeue handed to a second receiver: same DequeueCount, inside its window (or with
          // its very TimeNextVisible); nothing else changes.
          const again = o.count === s.count && s.count > 0 && (o.tnv === s.visibleAt || o.date! < s.visibleAt);
          if (relax.has("dup") && again) return yes({ ...s, receipts: [...new Set([...s.receipts, o.receipt!])] });
          return no;
        }
        case "update":
        case "delete": {
          const holds = s.exists !== false && s.receipts.includes(input.receipt);
          if (o.ok) {
            if (s.exists === false) return no;
            if (!holds && !relax.has("stale")) return no;
            if (expired() && !relax.has("expired")) return no;
            if (input.op === "delete") return yes({ ...s, exists: relax.has("deleted") ? "maybe" : false });
            return yes({ ...s, exists: true, receipts: [o.receipt!], visibleAt: o.tnv!, text: input.text });
          }
          const current = s.exists === true && s.receipts.length === 1 && s.receipts[0] === input.receipt;
          // Near or past its expiry the current receipt may be refused: the message is gone, or (Update
          // Message) the new visibility timeout would end after the ExpirationTime (catalogue Q).
          const ending = mayHaveExpired(input.op === "update" ? input.visibility * 1000 : 0);
          if (current && !ending && !relax.has("current")) return no;
          return yes(s.receipts.length > 1 ? { ...s, receipts: s.receipts.filter((r) => r !== input.receipt) } : s);
        }
        case "clear":
          if (s.exists === false) return yes(s);
          return yes({ ...s, exists: input.certain && !relax.has("cleared") ? false : "maybe" });
        case "absent":
          // Visible for sure, even allowing for the clocks' granularity and a window ending 1 s late, and not yet expired, yet not received.
          return s.exists === true && s.visibleAt <= o.date! - LAPSED_MS && !mayHaveExpired(0) && !relax.has("absent") ? no : yes(s);
      }
    },
  };
}

// ---- checking ----------------------------------------------------------------

interface Violation {
  rank: number;
  signature: string;
  /** The broken invariant's key (INVARIANTS), what a pin matches on. */
  invariant?: string;
  rule?: string;
  id: string;
  explanation: string;
}

const clock = (ms: number | undefined) => (ms === undefined ? "?" : new Date(ms).toISOString().slice(11, 19));
const tail = (receipt: string | undefined) => (receipt ? `…${receipt.slice(-8)}` : "?");

function describe(e: Event, id: string): string {
  const head = `  ${e.who} ${e.stale ? "stale " : ""}${e.kind}`;
  const at = `[${e.call}–${e.ret} ms]`;
  const answer = e.fault ? `no answer (${e.fault})` : `${e.status}${e.code ? " " + e.code : ""}, Date ${clock(e.date)}`;
  switch (e.kind) {
    case "put":
      return `${head} "${e.text}" (visibility ${e.visibility} s${e.ttl ? `, time to live ${e.ttl} s` : ""}) ${at} → ${answer}, TimeNextVisible ${clock(e.tnv)}, ExpirationTime ${clock(e.expires)}, receipt ${tail(e.newReceipt)}`;
    case "get": {
      const m = e.delivered?.find((d) => d.id === id);
      return `${head} (up to ${e.n}, visibility ${e.visibility} s) ${at} → ${answer}: DequeueCount ${m?.count}, TimeNextVisible ${clock(m?.tnv)}, ExpirationTime ${clock(m?.expires)}, receipt ${tail(m?.receipt)}, text "${m?.text}"`;
    }
    case "update":
      return `${head} receipt ${tail(e.receipt)} → "${e.text}" (visibility ${e.visibility} s) ${at} → ${answer}${ok(e) ? `, TimeNextVisible ${clock(e.tnv)}, receipt ${tail(e.newReceipt)}` : ""}`;
    case "delete":
      return `${head} receipt ${tail(e.receipt)} ${at} → ${answer}`;
    case "clear":
      return `${head} (Clear Messages) ${at} → ${answer}`;
  }
}

/** Whether Clear Messages `e` may have taken the message `putEvent` put (one answered before the put was sent cannot). */
const clearReaches = (e: Event, putEvent: Event) => e.kind === "clear" && ok(e) && e.ret > putEvent.call;

/** The operations on the message `putEvent` put, as the model sees them. */
function operationsOn(putEvent: Event, events: Event[], absentAt: number | undefined): Operation<MsgInput, MsgOutput>[] {
  const id = putEvent.id!;
  const ops: Operation<MsgInput, MsgOutput>[] = [];
  for (const e of events) {
    if (e.kind === "get") {
      const m = e.delivered?.find((d) => d.id === id);
      if (m) ops.push({ client: e.who, call: e.call, ret: e.ret, input: { op: "get" }, output: { ok: true, date: e.date, count: m.count, receipt: m.receipt, tnv: m.tnv, expires: m.expires, text: m.text } });
    } else if (clearReaches(e, putEvent)) {
      ops.push({ client: e.who, call: e.call, ret: e.ret, input: { op: "clear", certain: e.call > putEvent.ret }, output: { ok: true, date: e.date } });
    } else if ((e.kind === "update" || e.kind === "delete") && e.id === id) {
      const input: MsgInput = e.kind === "update" ? { op: "update", receipt: e.receipt!, text: e.text!, visibility: e.visibility ?? 0 } : { op: "delete", receipt: e.receipt! };
      ops.push({ client: e.who, call: e.call, ret: e.ret, input, output: { ok: ok(e), date: e.date, receipt: e.newReceipt, tnv: e.tnv } });
    }
  }
  if (absentAt !== undefined) {
    const last = Math.max(...events.map((e) => e.ret));
    ops.push({ client: "drain", call: last, ret: last, input: { op: "absent" }, output: { ok: true, date: absentAt } });
  }
  return ops;
}

function checkMessage(putEvent: Event, events: Event[], absentAt: number | undefined): Violation | undefined {
  const id = putEvent.id!;
  const init: MsgState = { exists: true, count: 0, receipts: [putEvent.newReceipt!], visibleAt: putEvent.tnv!, expiresAt: putEvent.expires, text: putEvent.text! };
  const ops = operationsOn(putEvent, events, absentAt);
  const strict = checkLinearizable(messageModel(init, new Set()), ops);
  if (strict.ok === true) return undefined;
  if (strict.ok === "unknown") throw new RowSignal("INCONCLUSIVE", `message ${id}: the history search gave up (${strict.reason})`);
  const explains = (relax: Relax[]) => checkLinearizable(messageModel(init, new Set(relax)), ops, { explain: false }).ok === true;
  // The first single rule whose absence explains the history names it; failing that, the shortest prefix of the list.
  let rank = RELAXATIONS.findIndex((r) => explains([r.relax]));
  if (rank < 0) {
    const k = RELAXATIONS.findIndex((_, i) => explains(RELAXATIONS.slice(0, i + 1).map((r) => r.relax)));
    rank = k < 0 ? RELAXATIONS.length : k;
  }
  const named = RELAXATIONS[rank] as (typeof RELAXATIONS)[number] | undefined;
  const touching = events.filter((e) => e === putEvent || (e.kind === "get" ? e.delivered?.some((d) => d.id === id) : e.kind === "clear" ? clearReaches(e, putEvent) : e.id === id));
  const explanation = [
    `message ${id}, put by ${putEvent.who}; its operations (local times order them only; Date and TimeNextVisible are the server's):`,
    ...touching.map((e) => describe(e, id)),
    ...(absentAt !== undefined ? [`  drain: not received by the receive dated ${clock(absentAt)}`] : []),
    named ? `broken rule: ${named.rule}` : "no single documented rule explains it",
    strict.explanation,
  ].join("\n");
  return { rank, signature: named?.signature ?? UNEXPLAINED, invariant: named?.relax, rule: named?.rule, id, explanation };
}

// ---- the row -----------------------------------------------------------------

/** Every TimeNextVisible answered (Put, Get, Update Message), with the answer's Date + the visibility timeout asked. */
function granted(events: Event[]): { event: Event; id: string; tnv: number; asked: number }[] {
  return events.flatMap((e) => {
    const asked = e.date! + (e.visibility ?? 0) * 1000;
    if (e.kind === "get") return (e.delivered ?? []).map((d) => ({ event: e, id: d.id, tnv: d.tnv, asked }));
    return e.kind === "delete" || e.tnv === undefined ? [] : [{ event: e, id: e.id!, tnv: e.tnv, asked }];
  });
}

/**
 * A history the model can judge: puts and gets answered, every answer dated by
 * the server, every delivery with its TimeNextVisible and receipt. Each is a
 * documented claim (Put and Get Messages on an existing queue succeed; every
 * answer carries Date; catalogue Q, get-messages/pop-receipt): a target
 * breaking one fails here, never PRECONDITION_FAILED.
 */
function usable(events: Event[]): void {
  const refused = events.find((e) => (e.kind === "put" || e.kind === "get") && !ok(e));
  if (refused) {
    const what = refused.kind === "put" ? "Put Message" : "Get Messages";
    throw new AssertionError(`${what} on the row's own queue was refused (${[refused.status, refused.code].filter(Boolean).join(" ")})`);
  }
  const undated = events.find(
    (e) =>
      ok(e) &&
      (e.date === undefined ||
        ((e.kind === "put" || e.kind === "update") && e.tnv === undefined) ||
        (e.kind === "put" && e.expires === undefined) ||
        e.delivered?.some((d) => Number.isNaN(d.tnv) || !d.receipt)),
  );
  if (undated) throw new AssertionError(`a ${undated.kind} answer carries no Date, TimeNextVisible, ExpirationTime or pop receipt (queue/get-messages/pop-receipt)`);
}

async function deliveryModel(t: RowContext): Promise<void> {
  const seed = seeded(t);
  const steps = plan(seed);
  const q = await t.newQueue();
  const h = new History();
  const receivers: Receiver[] = steps.map((_, i) => ({ who: `R${i + 1}`, q: t.clients.queue().getQueueClient(q.name), held: [], superseded: [], deleted: [] }));

  // Before the receivers start, R1 clears the queue while two of three messages are invisible
  // (catalogue Q, clear-messages/includes-invisible): none may come back, their receipts may not act
  // (R1 keeps them for its stale steps). Done first, so the messages of the run are not cleared.
  t.step("R1: three puts, two of them taken with a 5 s window, then Clear Messages");
  for (const k of [1, 2, 3]) await put(h, receivers[0], `c${k}`, 0);
  await get(h, receivers[0], 2, 5);
  await clear(h, receivers[0]);
  receivers[0].superseded.push(...receivers[0].held.splice(0));
  // Then R1 takes a message with the shorter time to live, on the queue alone, with a window that outlasts
  // it, and keeps no receipt of it: it expires while invisible (catalogue Q, message-ttl/expires-while-invisible)
  // whatever the receivers' interleaving. The end steps' such messages may be taken and deleted by another
  // receiver first; this one only a target that kept it can deliver again.
  t.step(`R1: a put with a ${TTLS[0]} s time to live, taken with a ${TTLS[0] + 2} s window`);
  await put(h, receivers[0], "e1", 0, TTLS[0]);
  await get(h, receivers[0], 1, TTLS[0] + 2);
  receivers[0].held.splice(0);
  t.step(`${RECEIVERS} receivers × ${steps[0].length} steps, concurrently`);
  const start = performance.now();
  await Promise.all(receivers.map((r, i) => runReceiver(h, r, steps[i], i, start)));
  const lost = h.unanswered();
  if (lost) throw new RowSignal("INCONCLUSIVE", `an operation went unanswered (${lost.who} ${lost.kind}: ${lost.fault}): its effect is unknown, the history cannot be judged`);

  usable(h.events);
  const answered = h.events.filter(ok);
  const puts = answered.filter((e) => e.kind === "put");

  t.step("drain: receive what becomes visible until the server's clock is past every window, then everything");
  const drainer = t.clients.queue().getQueueClient(q.name);
  // Past every TimeNextVisible given, but not past what the windows asked for: a target answering
  // far-off TimeNextVisibles fails on that below, without keeping the row waiting for them.
  const until = Math.max(...granted(answered).map((g) => Math.min(g.tnv, g.asked + SLACK_MS))) + LAPSED_MS;
  const drain: Receiver = { who: "drain", q: drainer, held: [], superseded: [], deleted: [] };
  const received = new Set<string>();
  const deletedIds = new Set(h.events.filter((e) => e.kind === "delete" && ok(e)).map((e) => e.id!));
  const clears = h.events.filter((e) => e.kind === "clear" && ok(e));
  // Awaited: neither deleted, cleared nor put to expire.
  const awaited = () => puts.filter((p) => !received.has(p.id!) && !deletedIds.has(p.id!) && p.ttl === undefined && !clears.some((c) => c.call > p.ret)).length;
  let lastDate: number | undefined;
  // A bound on local time only, so a target whose clock stalls still gets a verdict.
  const giveUp = Date.now() + 20_000;
  // While the windows run out, every message that becomes visible is received (and judged: a window
  // that ended early shows). Past them, until an empty answer; while a message never deleted is still
  // missing, a few more (a distributed service may answer a receive with fewer messages than are
  // visible). No verdict rests on the count.
  for (let past = 0, empty = 0; past < 20 && empty < (awaited() > 0 ? 3 : 1); ) {
    const before = h.events.length;
    await get(h, drain, 32, DRAIN_VISIBILITY_S);
    const lost = h.unanswered();
    if (lost) throw new RowSignal("INCONCLUSIVE", `the drain's Get Messages went unanswered (${lost.fault})`);
    const e = h.events[before];
    usable([e]);
    lastDate = e.date;
    e.delivered!.forEach((d) => received.add(d.id));
    if (e.date! < until) {
      if (Date.now() > giveUp) throw new AssertionError("the server's Date did not pass every TimeNextVisible given within 20 s");
      await t.sleep(DRAIN_POLL_MS);
      continue;
    }
    past++;
    empty = e.delivered!.length === 0 ? empty + 1 : 0;
    if (empty > 0) await t.sleep(250);
  }

  const deliveries = h.events.flatMap((e) => (e.who !== "drain" ? e.delivered ?? [] : []));
  const staleOps = h.events.filter((e) => e.stale);
  t.note("operations", h.events.length);
  t.note("messages", puts.length);
  t.note("deliveries", deliveries.length);
  t.note("redeliveries (DequeueCount > 1)", deliveries.filter((d) => d.count > 1).length);
  t.note("deletes that succeeded", h.events.filter((e) => e.kind === "delete" && ok(e)).length);
  t.note("messages with a time to live", puts.filter((p) => p.ttl !== undefined).length);
  t.note("Clear Messages", clears.length);
  const answers = new Map<string, number>();
  for (const e of staleOps) {
    const k = `${e.kind} ${e.status}${e.code ? " " + e.code : ""}`;
    answers.set(k, (answers.get(k) ?? 0) + 1);
  }
  t.note("stale-receipt operations, answers", [...answers].map(([k, n]) => `${k} ×${n}`).join(", "));
  t.note("drained", received.size);

  const violations = puts.map((p) => checkMessage(p, h.events, received.has(p.id!) ? undefined : lastDate)).filter((v): v is Violation => !!v);
  const known = new Set(puts.map((p) => p.id!));
  const phantom = h.events.find((e) => e.delivered?.some((d) => !known.has(d.id)));
  if (violations.length === 0 && phantom) {
    const d = phantom.delivered!.find((x) => !known.has(x.id))!;
    throw new AssertionError(`a message nobody put was delivered
${describe(phantom, d.id)} (message ${d.id}; the queue was created empty by this row)
replay: ${replayCommand(t, seed)}`);
  }
  const offWindow = granted(h.events.filter(ok)).find((g) => Math.abs(g.tnv - g.asked) > SLACK_MS);
  if (violations.length === 0 && offWindow) {
    throw new AssertionError(
      `a TimeNextVisible is not the answer's Date plus the visibility timeout asked (±1 s)\n${describe(offWindow.event, offWindow.id)}\nreplay: ${replayCommand(t, seed)}`,
    );
  }
  const offExpiry = puts.find((p) => p.ttl !== undefined && Math.abs(p.expires! - p.date! - p.ttl * 1000) > SLACK_MS);
  if (violations.length === 0 && offExpiry) {
    throw new AssertionError(`an ExpirationTime is not Put Message's Date plus the time to live asked (±1 s)\n${describe(offExpiry, offExpiry.id!)}\nreplay: ${replayCommand(t, seed)}`);
  }
  if (violations.length === 0) return;
  // The highest-ranked invariant is the signature; ties go to the first message put.
  const worst = violations.reduce((a, v) => (v.rank < a.rank ? v : a));
  t.note("violations", violations.map((v) => `${v.id}: ${v.signature}`));
  fail(`${worst.signature}\n${worst.explanation}\n${violations.length > 1 ? `(${violations.length} messages broke an invariant; shown: the highest-ranked)\n` : ""}replay: ${replayCommand(t, seed)}`, { got: worst.invariant ?? "unexplained" });
}

const rows: RowDef[] = [
  {
    id: "queue/delivery-model",
    title: `${RECEIVERS} receivers run random puts (some invisible at first, some with a time to live of a few seconds), gets (1–6 s windows), updates and deletes with held and stale receipts, and a Clear Messages while messages are invisible, on one queue: no delivery before the last TimeNextVisible, after the ExpirationTime nor twice in one window, stale receipts never work, deleted, cleared and expired messages never return, the others return with DequeueCount + 1`,
    level: "rest",
    source: queueSource("Put Message, Get Messages, Update Message, Delete Message, Clear Messages; catalogue Q and M"),
    service: "queue",
    waitSeconds: 10,
    run: deliveryModel,
  },
];

defineTable({ table: "M Models", service: "queue" }, rows);
