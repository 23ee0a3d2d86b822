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
// The plan is delivery-plan.ts, the driver delivery-driver.ts, the reference
// delivery-reference.ts and the checker delivery-check.ts.
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { fail } from "../../fixtures/harness/assert.ts";
import { replayCommand, seeded } from "../../fixtures/harness/models.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { expectAnswersAsAsked, ok, usable, violationsOf, type Event } from "./delivery-check.ts";
import { drain, History, newReceiver, prelude, runReceivers } from "./delivery-driver.ts";
import { plan, RECEIVERS } from "./delivery-plan.ts";
import { queueSource } from "./queue-kit.ts";

async function deliveryModel(t: RowContext): Promise<void> {
  const seed = seeded(t);
  const steps = plan(seed);
  const q = await t.newQueue();
  const h = new History();
  const receivers = steps.map((_, i) => newReceiver(t, q.name, `R${i + 1}`));
  await prelude(t, h, receivers[0]);
  await runReceivers(t, h, receivers, steps);

  usable(h.events);
  const answered = h.events.filter(ok);
  const puts = answered.filter((e) => e.kind === "put");
  const { received, lastDate } = await drain(t, h, q.name, answered);
  noteHistory(t, h.events, puts, received);

  const violations = violationsOf(puts, h.events, received, lastDate);
  if (violations.length === 0) return expectAnswersAsAsked(h.events, puts, replayCommand(t, seed));
  // The highest-ranked invariant is the signature; ties go to the first message put.
  const worst = violations.reduce((a, v) => (v.rank < a.rank ? v : a));
  t.note(
    "violations",
    violations.map((v) => `${v.id}: ${v.signature}`),
  );
  fail(
    `${worst.signature}\n${worst.explanation}\n${violations.length > 1 ? `(${violations.length} messages broke an invariant; shown: the highest-ranked)\n` : ""}replay: ${replayCommand(t, seed)}`,
    { got: worst.invariant ?? "unexplained" },
  );
}

/** What the history holds, in the row's notes. */
function noteHistory(t: RowContext, events: Event[], puts: Event[], received: Set<string>): void {
  const deliveries = events.flatMap((e) => (e.who !== "drain" ? (e.delivered ?? []) : []));
  const staleOps = events.filter((e) => e.stale);
  t.note("operations", events.length);
  t.note("messages", puts.length);
  t.note("deliveries", deliveries.length);
  t.note("redeliveries (DequeueCount > 1)", deliveries.filter((d) => d.count > 1).length);
  t.note("deletes that succeeded", events.filter((e) => e.kind === "delete" && ok(e)).length);
  t.note("messages with a time to live", puts.filter((p) => p.ttl !== undefined).length);
  t.note("Clear Messages", events.filter((e) => e.kind === "clear" && ok(e)).length);
  const answers = new Map<string, number>();
  for (const e of staleOps) {
    const k = `${e.kind} ${e.status}${e.code ? " " + e.code : ""}`;
    answers.set(k, (answers.get(k) ?? 0) + 1);
  }
  t.note("stale-receipt operations, answers", [...answers].map(([k, n]) => `${k} ×${n}`).join(", "));
  t.note("drained", received.size);
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
