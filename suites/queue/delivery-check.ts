// The queue delivery model's checker (catalogue M, `queue/delivery-model`):
// the history the driver records, and its verdict. Each message's operations
// must be linearizable against the reference (delivery-reference.ts); the
// first relaxation that explains a failing history names the broken rule.
// No target here: it reads a recorded history only.
import { AssertionError } from "chai";
import { checkLinearizable, type Operation } from "../../fixtures/harness/linearizability.ts";
import { RowSignal } from "../../fixtures/wire/signals.ts";
import {
  messageModel,
  RELAXATIONS,
  SLACK_MS,
  UNEXPLAINED,
  type MsgInput,
  type MsgOutput,
  type MsgState,
  type Relax,
} from "./delivery-reference.ts";

export interface Delivered {
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
export interface Event {
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

export const ok = (e: Event) => e.status !== undefined && e.status >= 200 && e.status < 300;

export interface Violation {
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
      if (m)
        ops.push({
          client: e.who,
          call: e.call,
          ret: e.ret,
          input: { op: "get" },
          output: { ok: true, date: e.date, count: m.count, receipt: m.receipt, tnv: m.tnv, expires: m.expires, text: m.text },
        });
    } else if (clearReaches(e, putEvent)) {
      ops.push({
        client: e.who,
        call: e.call,
        ret: e.ret,
        input: { op: "clear", certain: e.call > putEvent.ret },
        output: { ok: true, date: e.date },
      });
    } else if ((e.kind === "update" || e.kind === "delete") && e.id === id) {
      const input: MsgInput =
        e.kind === "update"
          ? { op: "update", receipt: e.receipt!, text: e.text!, visibility: e.visibility ?? 0 }
          : { op: "delete", receipt: e.receipt! };
      ops.push({ client: e.who, call: e.call, ret: e.ret, input, output: { ok: ok(e), date: e.date, receipt: e.newReceipt, tnv: e.tnv } });
    }
  }
  if (absentAt !== undefined) {
    const last = Math.max(...events.map((e) => e.ret));
    ops.push({ client: "drain", call: last, ret: last, input: { op: "absent" }, output: { ok: true, date: absentAt } });
  }
  return ops;
}

export function checkMessage(putEvent: Event, events: Event[], absentAt: number | undefined): Violation | undefined {
  const id = putEvent.id!;
  const init: MsgState = {
    exists: true,
    count: 0,
    receipts: [putEvent.newReceipt!],
    visibleAt: putEvent.tnv!,
    expiresAt: putEvent.expires,
    text: putEvent.text!,
  };
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
  const touching = events.filter(
    (e) =>
      e === putEvent ||
      (e.kind === "get" ? e.delivered?.some((d) => d.id === id) : e.kind === "clear" ? clearReaches(e, putEvent) : e.id === id),
  );
  const explanation = [
    `message ${id}, put by ${putEvent.who}; its operations (local times order them only; Date and TimeNextVisible are the server's):`,
    ...touching.map((e) => describe(e, id)),
    ...(absentAt !== undefined ? [`  drain: not received by the receive dated ${clock(absentAt)}`] : []),
    named ? `broken rule: ${named.rule}` : "no single documented rule explains it",
    strict.explanation,
  ].join("\n");
  return { rank, signature: named?.signature ?? UNEXPLAINED, invariant: named?.relax, rule: named?.rule, id, explanation };
}

/** Every TimeNextVisible answered (Put, Get, Update Message), with the answer's Date + the visibility timeout asked. */
export function granted(events: Event[]): { event: Event; id: string; tnv: number; asked: number }[] {
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
export function usable(events: Event[]): void {
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
  if (undated)
    throw new AssertionError(
      `a ${undated.kind} answer carries no Date, TimeNextVisible, ExpirationTime or pop receipt (queue/get-messages/pop-receipt)`,
    );
}

/** The messages whose history the reference does not allow; `received`: the IDs the drain received, `lastDate`: its last receive's Date. */
export function violationsOf(puts: Event[], events: Event[], received: ReadonlySet<string>, lastDate: number | undefined): Violation[] {
  return puts.map((p) => checkMessage(p, events, received.has(p.id!) ? undefined : lastDate)).filter((v): v is Violation => !!v);
}

/** With every message's history allowed: no message nobody put was delivered, and every TimeNextVisible and ExpirationTime is what was asked. */
export function expectAnswersAsAsked(events: Event[], puts: Event[], replay: string): void {
  const known = new Set(puts.map((p) => p.id!));
  const phantom = events.find((e) => e.delivered?.some((d) => !known.has(d.id)));
  if (phantom) {
    const d = phantom.delivered!.find((x) => !known.has(x.id))!;
    throw new AssertionError(`a message nobody put was delivered
${describe(phantom, d.id)} (message ${d.id}; the queue was created empty by this row)
replay: ${replay}`);
  }
  const offWindow = granted(events.filter(ok)).find((g) => Math.abs(g.tnv - g.asked) > SLACK_MS);
  if (offWindow) {
    throw new AssertionError(
      `a TimeNextVisible is not the answer's Date plus the visibility timeout asked (±1 s)\n${describe(offWindow.event, offWindow.id)}\nreplay: ${replay}`,
    );
  }
  const offExpiry = puts.find((p) => p.ttl !== undefined && Math.abs(p.expires! - p.date! - p.ttl * 1000) > SLACK_MS);
  if (offExpiry) {
    throw new AssertionError(
      `an ExpirationTime is not Put Message's Date plus the time to live asked (±1 s)\n${describe(offExpiry, offExpiry.id!)}\nreplay: ${replay}`,
    );
  }
}
