// The blob lease model's driver (catalogue M, `blob/lease/model`): runs the
// plan's sequences (lease-model-plan.ts) side by side, each on a fresh blob or
// container brought to its starting state, and stops the others once one
// fails where nothing shrinks it, or meets a fault that is no departure.
import type { ContainerClient } from "@azure/storage-blob";
import fc from "fast-check";
import { AssertionError } from "chai";
import { expectPresent } from "../../fixtures/harness/assert.ts";
import type { RowContext } from "../../fixtures/harness/engine.ts";
import { blobTarget, containerTarget, guid, leaseAction, serverDate, SHORTEST, type LeaseTarget } from "./lease-kit.ts";
import { fail, show, type Model, type Real } from "./lease-model-check.ts";
import { Stopped } from "./lease-model-commands.ts";
import { deadlineFrom, MAX_COMMANDS, NEAR_BREAK_END, PLANS } from "./lease-model-plan.ts";
import { locked, type LeaseModel } from "./lease-reference.ts";
import { inStrand } from "../../fixtures/wire/evidence.ts";

/**
 * A fresh resource for a sequence, written twice (so it has a stale ETag, the
 * first write's answer's): a block blob in the row's one container for blobs
 * (content v1), or a container (metadata state=v1). Each request here is a
 * round trip the sequence's time budget waits for against a slow target.
 */
async function fresh(
  t: RowContext,
  resource: LeaseModel["resource"],
  blobs: () => Promise<ContainerClient>,
): Promise<{ x: LeaseTarget; ref: LeaseModel; date: number; roundTripMs: number }> {
  // Each write timed by the local clock: the quicker is the sequence's round trip (lease-model-plan.ts deadlineFrom).
  const timed = async <T>(write: () => Promise<T>): Promise<[T, number]> => {
    const t0 = performance.now();
    const out = await write();
    return [out, performance.now() - t0];
  };
  if (resource === "container") {
    const c = t.blob.getContainerClient(t.name("c"));
    const [created, first] = await timed(() => c.create());
    const [written, second] = await timed(() => c.setMetadata({ state: "v1" }));
    return {
      x: containerTarget(c),
      ref: { resource, state: "available", finite: false, content: "v1", etag: written.etag!, stale: created.etag! },
      date: expectPresent("Set Container Metadata: the answer's Date", written.date).getTime(),
      roundTripMs: Math.min(first, second),
    };
  }
  const b = (await blobs()).getBlockBlobClient(t.name("b"));
  const [stale, first] = await timed(() => b.upload("v0", 2));
  const [written, second] = await timed(() => b.upload("v1", 2));
  return {
    x: blobTarget(b),
    ref: { resource, state: "available", finite: false, content: "v1", etag: written.etag!, stale: stale.etag! },
    date: expectPresent("Put Blob: the answer's Date", written.date).getTime(),
    roundTripMs: Math.min(first, second),
  };
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
  const { x, ref, date, roundTripMs } = await fresh(t, resource, blobs);
  const real: Real = { t, x, ids: { L1: guid(), L2: guid() }, steps: [], writes: 0, executed };
  let now = date;
  const model: Model = { ref, waited: false, nearEnd: false, now, deadline: deadlineFrom(now, roundTripMs), row };
  // A leased sequence starts from a 15 s lease, a break-end one from an infinite lease it breaks.
  const setupLease = start === "leased" ? SHORTEST : start === "near-break-end" ? -1 : undefined;
  if (setupLease !== undefined) {
    const action = `acquire L1 (the holder), ${setupLease === -1 ? "infinite" : `${setupLease} s`} (setup)`;
    t.step(action);
    const res = await leaseAction(t, real.x, "acquire", { proposed: real.ids.L1, duration: setupLease });
    if (res.status !== 201) fail(real, model, { action, expected: "201", observed: show(res) });
    now = serverDate(res).getTime();
    const finite = setupLease !== -1;
    Object.assign(model, {
      ref: { ...ref, state: "leased", holder: "L1", finite, endsAt: finite ? now + setupLease * 1000 : undefined },
      now,
      deadline: deadlineFrom(now, roundTripMs),
    });
    real.steps.push({ action, expected: "201", observed: show(res) });
  }
  // A break-end sequence then breaks the lease with the short period and waits to its last seconds
  // (drawn among the commands, that path often came too late to fit). Its budget runs from the break,
  // as a leased sequence's from its acquire: the wait fits however long a loaded target took to answer
  // the acquire and the break (from the setup, it was skipped there, and a break ending early went unseen).
  if (start === "near-break-end") {
    const [, brk, wait] = NEAR_BREAK_END.parts;
    if (brk.check({ ...model, deadline: Infinity })) await brk.run(model, real);
    model.deadline = deadlineFrom(model.now, roundTripMs);
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

/**
 * Runs every sequence of the plan, one fast-check run each (seeded with the
 * run's seed + its index), and returns their outcomes, the first fault that
 * was no departure, and what the sequences executed.
 */
export async function runSequences(t: RowContext, seed: number) {
  const executed = { n: 0, waits: 0, nearEnd: 0, cut: 0 };
  const noShrink = t.run.options.shrink === false;
  const row = { stopped: false };
  // The blob sequences' blobs share one container, made once: a sequence's setup is a round trip shorter.
  let container: Promise<ContainerClient> | undefined;
  const blobs = () => (container ??= t.newContainer());
  /** The first answer that was no departure from the model (a server error on every try, no answer): no sequence can go on. */
  let fault: unknown;
  const runs = await Promise.all(
    PLANS.map((plan, i) =>
      fc.check(
        fc.asyncProperty(fc.commands(plan.commands, { maxCommands: MAX_COMMANDS, size: "max" }), async (cmds) => {
          try {
            // Each sequence is a strand of the evidence: its exchanges carry its own steps.
            await inStrand(() => sequence(t, plan.resource, blobs, cmds, executed, plan.start, row));
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
  return { runs, fault, executed };
}
