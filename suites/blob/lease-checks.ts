// Checks on a lease, shared by the lease suites (section L): the state and
// status read back, which ID holds it, the lease ID sent, a renewed lease
// outliving its original end, and the guards that turn a check a lapsing
// lease or break period overtook into PRECONDITION_FAILED, never a FAIL.
import { expectEqual, expectRawStatus, expectSent, expectTrue, judgedBefore } from "../../fixtures/harness/assert.ts";
import type { RowContext } from "../../fixtures/harness/engine.ts";
import { currentEvidence, inStrand } from "../../fixtures/wire/evidence.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { allAnswered, preconditionFailed } from "../../fixtures/wire/signals.ts";
import {
  holdLease,
  leaseAction,
  propsQuery,
  readLease,
  serverDate,
  SHORTEST,
  waitForServerTime,
  type LeaseState,
  type LeaseTarget,
  type LeaseView,
  type StatedResource,
} from "./lease-kit.ts";

const LOCKED: LeaseState[] = ["leased", "breaking"];

/** Checks a lease state read back (and the lease status that goes with it). */
export function checkLeaseState(what: string, v: LeaseView, expected: LeaseState | LeaseState[]): void {
  const allowed = Array.isArray(expected) ? expected : [expected];
  expectTrue(`${what}: expected lease state ${allowed.join(" or ")}, got ${v.state ?? "none"}`, allowed.includes(v.state as LeaseState), {
    expected: `lease state ${allowed.join(" or ")}`,
    got: v.state ?? "none",
  });
  expectEqual(`${what}: lease status`, v.status, LOCKED.includes(v.state as LeaseState) ? "locked" : "unlocked");
}

/** Reads the lease state back and checks it. */
export async function expectLeaseState(
  t: RowContext,
  x: LeaseTarget,
  what: string,
  expected: LeaseState | LeaseState[],
): Promise<LeaseView> {
  const v = await readLease(t, x);
  checkLeaseState(what, v, expected);
  return v;
}

/**
 * Shows which ID holds the active lease without changing anything: a read that
 * carries the holder's ID succeeds, one that carries another ID is refused (412).
 */
export async function expectHolder(t: RowContext, x: LeaseTarget, what: string, holder: string, other: string): Promise<void> {
  // The two reads change nothing: they go together, each a strand of the evidence.
  const [, res] = await allAnswered([
    inStrand(() => {
      t.step(`${what}: read with the holder's ID`);
      return readLease(t, x, holder);
    }),
    inStrand(() => {
      t.step(`${what}: read with another ID`);
      return t.raw("blob", {
        method: x.kind === "blob" ? "HEAD" : "GET",
        path: x.path,
        query: propsQuery(x),
        headers: { "x-ms-lease-id": other },
      });
    }),
  ] as const);
  // Back on the row's own strand: a failure below names the read it judges.
  t.step(`${what}: read with another ID`);
  expectRawStatus(`${what}: a read carrying a lease ID that is not the holder's`, res, { status: 412 });
}

/**
 * The x-ms-lease-id header left the client (the SDK did not drop it): checked on
 * the first exchange of the current step, which is the operation under test.
 */
export function expectLeaseIdSent(what: string): void {
  const store = currentEvidence();
  const ex = store?.exchanges.find((e) => e.step === store.step);
  expectTrue(`${what}: no exchange recorded`, ex !== undefined);
  expectSent(what, ex!.requestHeaders, "x-ms-lease-id");
}

/**
 * renew-extends (catalogue L, blobs and containers): a 15 s lease renewed
 * after 8 s (server clock) still reads leased 2 s past its original end, where
 * `locked` shows it still locks the resource. A slow target may answer those
 * checks, or the renew itself, only once the lease ran out (server clock):
 * then they tell nothing (PRECONDITION_FAILED).
 */
export async function renewedPastOriginalEnd(t: RowContext, x: LeaseTarget, locked: () => Promise<void>): Promise<void> {
  const { id, res } = await holdLease(t, x, SHORTEST);
  const acquired = serverDate(res);
  t.step("wait 8 s (server clock), then renew");
  await waitForServerTime(t, x, new Date(acquired.getTime() + 8000), 30_000);
  const renewed = await leaseAction(t, x, "renew", { id });
  // A renew answered once the lease had run out (server clock) came too late to tell.
  if (renewed.status !== 200 && serverDate(renewed).getTime() >= acquired.getTime() + (SHORTEST - 1) * 1000)
    preconditionFailed("the target answered the renew only when the lease had run out (server clock): no time left to tell");
  expectRawStatus("renew before expiry", renewed, { status: 200 });
  const renewedEnd = serverDate(renewed).getTime() + SHORTEST * 1000;
  const inTime = (check: () => Promise<unknown>) =>
    check().catch((err) => {
      const answered = Date.parse(currentEvidence()?.exchanges.at(-1)?.responseHeaders["date"] ?? "");
      if (answered >= renewedEnd - 1000)
        preconditionFailed("the target answered only when the renewed lease had run out too (server clock): no time left to tell");
      throw err;
    });
  t.step("wait past the original end (server clock)");
  const past = await waitForServerTime(t, x, new Date(acquired.getTime() + (SHORTEST + 2) * 1000), 30_000);
  await inTime(async () => checkLeaseState("2 s past the original end of the renewed lease", past, "leased"));
  await inTime(locked);
}

/**
 * For rows acting on a Breaking lease: the read that follows must still fall
 * inside the break period (by the server's clock), or the row cannot tell.
 */
export function stillBreaking(s: StatedResource, v: LeaseView, marginMs = 1000): void {
  if (s.breakEnds && v.date && v.date.getTime() >= s.breakEnds.getTime() - marginMs) {
    preconditionFailed("the break period ran out before the state could be read back");
  }
}

/**
 * Runs checks that need the lease still Breaking after `res` (an action on
 * it, which may have shortened the break: x-ms-lease-time). A check that
 * fails on an answer dated within a second of the break's end (server clock)
 * tells nothing: the row cannot tell (PRECONDITION_FAILED), never a FAIL.
 */
export async function whileBreaking(s: StatedResource, res: RawResponse | undefined, check: () => Promise<void>): Promise<void> {
  const ends = () => {
    const left = Number(res?.headers["x-ms-lease-time"]);
    return Math.min(s.breakEnds?.getTime() ?? Infinity, res && Number.isFinite(left) ? serverDate(res).getTime() + left * 1000 : Infinity);
  };
  // A second before the end: the break may have ended within the Date's grain.
  await judgedBefore(() => ends() - 1000, "the break period ran out before the holder could be checked", check);
}

/**
 * Runs the checks of the lease a lease action left while a finite one (SHORTEST
 * s at the least) must still hold: a check that fails with an answer since
 * exchange `from` dated that long after the action's (server clock) cannot tell
 * a lease that ran out from one never held: PRECONDITION_FAILED, never a FAIL.
 */
export async function beforeLapse(res: RawResponse, from: number, check: () => Promise<void>): Promise<void> {
  await judgedBefore(
    () => serverDate(res).getTime() + (SHORTEST - 1) * 1000,
    "a finite lease ran out before the state and the holder were checked",
    check,
    from,
  );
}
