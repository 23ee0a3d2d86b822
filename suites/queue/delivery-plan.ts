// The queue delivery model's plan (catalogue M, `queue/delivery-model`): what
// each receiver does, drawn from the run's seed. The same seed gives the same
// plan; delivery-driver.ts carries it out.
import fc from "fast-check";

/** Receivers. */
export const RECEIVERS = 4;

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
const BAG: Step["kind"][] = [
  "put",
  "get",
  "get",
  "get",
  "get",
  "get",
  "get",
  "update",
  "update",
  "update",
  "delete",
  "delete",
  "delete",
  "stale",
  "stale",
  "stale",
  "wait",
  "wait",
  "wait",
  "wait",
];

/** Times to live of a few seconds, so messages expire during the row (longer than any initial visibility timeout: catalogue Q, visibility-below-ttl). */
export const TTLS = [4, 6];

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
  .tuple(
    fc.shuffledSubarray(BAG, { minLength: BAG.length, maxLength: BAG.length }),
    fc.array(params, { minLength: BAG.length, maxLength: BAG.length }),
  )
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
