// M Models: blob/lease/model. Random sequences (fast-check commands, from the
// run's seed) of lease actions with two IDs, writes and reads with and without
// IDs and (on blobs) with holding or failing conditions, one wait across an
// expiry, and waits to the last seconds of a short break period (so what
// follows sees the lease still Breaking near its end: a break that ends early
// shows), on one blob or container each; the target is compared with the
// reference model after every step. The reference (lease-reference.ts) is a
// pure step function over the one lease table (lease-table.ts, the same data
// the state rows check) and the lease-ops rules, shared by both resource
// kinds; the plan is lease-model-plan.ts, its commands lease-model-commands.ts,
// the driver lease-model-driver.ts and the checker lease-model-check.ts; this
// file only keeps the verdict.
// Time is the server's (Date headers), with a margin around each lease or
// break end where either side of it is accepted.
import { AssertionError } from "chai";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { replayCommand, seeded } from "../../fixtures/harness/models.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { RowSignal } from "../../fixtures/wire/signals.ts";
import { blobLeaseSource, SHORTEST } from "./lease-kit.ts";
import { runSequences } from "./lease-model-driver.ts";
import { BREAK_END_SEQUENCES, BUDGET_MS, CONTAINER_SEQUENCES, MAX_COMMANDS, PLANS, SEQUENCES } from "./lease-model-plan.ts";

async function leaseModel(t: RowContext): Promise<void> {
  const seed = seeded(t);
  const { runs, fault, executed } = await runSequences(t, seed);
  t.note("commands", executed.n);
  t.note("waits", executed.waits);
  t.note("waits to a break's last seconds", executed.nearEnd);
  t.note(
    "sequences ended by the time budget",
    `${executed.cut} of ${PLANS.length} (no command starts later than ${BUDGET_MS / 1000} s after a sequence's setup, by the server's clock, but the quick tail of one begun before)`,
  );
  for (const [i, d] of runs.entries()) {
    // fast-check reports a sequence cut by its time limit before it ended as failed, with no error: no verdict.
    if (!d.failed || (d.interrupted && d.errorInstance == null)) continue;
    const err = d.errorInstance as Error | undefined;
    const [first, ...rest] = (err?.message ?? "the lease model failed").split("\n");
    throw new AssertionError(
      `${first}\nsequence ${i}, on a ${PLANS[i].resource} (shrunk: ${d.counterexample?.[0] ?? "?"}):\n${rest.join("\n")}\nreplay: ${replayCommand(t, seed)}`,
      {
        failure: (err as { failure?: unknown } | undefined)?.failure,
      },
    );
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
