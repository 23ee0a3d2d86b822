// The queue delivery model's driver (catalogue M, `queue/delivery-model`):
// sends each receiver's plan (delivery-plan.ts) to the target, one client per
// receiver, and records every answer (Date, TimeNextVisible, ExpirationTime,
// DequeueCount, pop receipt, text, status) as the checker reads it
// (delivery-check.ts). It judges nothing but whether the history can be judged.
import { performance } from "node:perf_hooks";
import { AssertionError } from "chai";
import type { QueueClient } from "@azure/storage-queue";
import type { RowContext } from "../../fixtures/harness/engine.ts";
import { isTransportFault, RowSignal } from "../../fixtures/wire/signals.ts";
import { granted, ok, usable, type Event } from "./delivery-check.ts";
import { LAPSED_MS, SLACK_MS } from "./delivery-reference.ts";
import { RECEIVERS, TTLS, type Step } from "./delivery-plan.ts";

/** Waits end on a tick shared by all receivers (scheduling only), so their next requests meet. */
const TICK_MS = 300;
/** The drain's receives while the windows run out (scheduling only). */
const DRAIN_POLL_MS = 250;
/** Window of the drain's receives: long enough that nothing it receives comes back during the row. */
const DRAIN_VISIBILITY_S = 30;

interface Rest {
  statusCode?: number;
  code?: string;
  response?: { headers?: { get(n: string): string | undefined } };
}

export class History {
  readonly events: Event[] = [];
  /** Set once an operation went unanswered: everyone stops, the row is INCONCLUSIVE. */
  fault?: Event;
  private readonly t0 = performance.now();

  /** Runs one operation, recording the server's answer (or that there was none). */
  async record<T>(
    who: string,
    fields: Omit<Event, "seq" | "who" | "call" | "ret">,
    op: () => Promise<T>,
    answer: (e: Event, r: T) => void,
  ): Promise<Event> {
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

export interface Receiver {
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
  await h.record(
    r.who,
    { kind: "put", text, visibility: delay, ttl },
    () => r.q.sendMessage(text, { visibilityTimeout: delay, messageTimeToLive: ttl }),
    (e, res) => {
      e.status = res._response.status;
      e.date = time(res.date);
      e.id = res.messageId;
      e.newReceipt = res.popReceipt;
      e.tnv = time(res.nextVisibleOn);
      e.expires = time(res.expiresOn);
    },
  );
}

async function clear(h: History, r: Receiver): Promise<void> {
  await h.record(
    r.who,
    { kind: "clear" },
    () => r.q.clearMessages(),
    (e, res) => {
      e.status = res._response.status;
      e.date = time(res.date);
    },
  );
}

async function get(h: History, r: Receiver, n: number, visibility: number): Promise<void> {
  await h.record(
    r.who,
    { kind: "get", n, visibility },
    () => r.q.receiveMessages({ numberOfMessages: n, visibilityTimeout: visibility }),
    (e, res) => {
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
    },
  );
}

async function update(
  h: History,
  r: Receiver,
  target: { id: string; receipt: string },
  text: string,
  visibility: number,
  stale: boolean,
): Promise<Event> {
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
  return h.record(
    r.who,
    { kind: "delete", stale, id: target.id, receipt: target.receipt },
    () => r.q.deleteMessage(target.id, target.receipt),
    (e, res) => {
      e.status = res._response.status;
      e.date = time(res.date);
    },
  );
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
    const stale =
      s.kind !== "stale" ? [] : s.of === "deleted" && r.deleted.length > 0 ? r.deleted : r.superseded.length > 0 ? r.superseded : r.deleted;
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

/** A receiver with a client of its own on the queue named `queue`. */
export const newReceiver = (t: RowContext, queue: string, who: string): Receiver => ({
  who,
  q: t.clients.queue().getQueueClient(queue),
  held: [],
  superseded: [],
  deleted: [],
});

/** R1's steps before the receivers start. */
export async function prelude(t: RowContext, h: History, r1: Receiver): Promise<void> {
  // Before the receivers start, R1 clears the queue while two of three messages are invisible
  // (catalogue Q, clear-messages/includes-invisible): none may come back, their receipts may not act
  // (R1 keeps them for its stale steps). Done first, so the messages of the run are not cleared.
  t.step("R1: three puts, two of them taken with a 5 s window, then Clear Messages");
  await Promise.all([1, 2, 3].map((k) => put(h, r1, `c${k}`, 0)));
  await get(h, r1, 2, 5);
  await clear(h, r1);
  r1.superseded.push(...r1.held.splice(0));
  // Then R1 takes a message with the shorter time to live, on the queue alone, with a window that outlasts
  // it, and keeps no receipt of it: it expires while invisible (catalogue Q, message-ttl/expires-while-invisible)
  // whatever the receivers' interleaving. The end steps' such messages may be taken and deleted by another
  // receiver first; this one only a target that kept it can deliver again.
  t.step(`R1: a put with a ${TTLS[0]} s time to live, taken with a ${TTLS[0] + 2} s window`);
  await put(h, r1, "e1", 0, TTLS[0]);
  await get(h, r1, 1, TTLS[0] + 2);
  r1.held.splice(0);
}

/** Every receiver runs its steps, concurrently; an unanswered operation makes the row INCONCLUSIVE. */
export async function runReceivers(t: RowContext, h: History, receivers: Receiver[], steps: Step[][]): Promise<void> {
  t.step(`${RECEIVERS} receivers × ${steps[0].length} steps, concurrently`);
  const start = performance.now();
  await Promise.all(receivers.map((r, i) => runReceiver(h, r, steps[i], i, start)));
  const lost = h.unanswered();
  if (lost)
    throw new RowSignal(
      "INCONCLUSIVE",
      `an operation went unanswered (${lost.who} ${lost.kind}: ${lost.fault}): its effect is unknown, the history cannot be judged`,
    );
}

/**
 * The drain, after the receivers (`answered`: their answered operations):
 * the IDs it received, and the Date of its last receive.
 */
export async function drain(
  t: RowContext,
  h: History,
  queue: string,
  answered: Event[],
): Promise<{ received: Set<string>; lastDate: number | undefined }> {
  t.step("drain: receive what becomes visible until the server's clock is past every window, then everything");
  const drainer = newReceiver(t, queue, "drain");
  // Past every TimeNextVisible given, but not past what the windows asked for: a target answering
  // far-off TimeNextVisibles fails on that below, without keeping the row waiting for them.
  const until = Math.max(...granted(answered).map((g) => Math.min(g.tnv, g.asked + SLACK_MS))) + LAPSED_MS;
  const puts = answered.filter((e) => e.kind === "put");
  const received = new Set<string>();
  const deletedIds = new Set(h.events.filter((e) => e.kind === "delete" && ok(e)).map((e) => e.id!));
  const clears = h.events.filter((e) => e.kind === "clear" && ok(e));
  // Awaited: neither deleted, cleared nor put to expire.
  const awaited = () =>
    puts.filter((p) => !received.has(p.id!) && !deletedIds.has(p.id!) && p.ttl === undefined && !clears.some((c) => c.call > p.ret)).length;
  let lastDate: number | undefined;
  // A bound on local time only, so a target whose clock stalls still gets a verdict.
  const giveUp = Date.now() + 20_000;
  // While the windows run out, every message that becomes visible is received (and judged: a window
  // that ended early shows). Past them, until an empty answer; while a message never deleted is still
  // missing, a few more (a distributed service may answer a receive with fewer messages than are
  // visible). No verdict rests on the count.
  for (let past = 0, empty = 0; past < 20 && empty < (awaited() > 0 ? 3 : 1);) {
    const before = h.events.length;
    await get(h, drainer, 32, DRAIN_VISIBILITY_S);
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
  return { received, lastDate };
}
