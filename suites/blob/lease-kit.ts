// Lease helpers shared by the lease suites (section L): lease actions sent raw
// (so exactly the headers the claim names go on the wire, including "no ID"),
// lease state read back from the target, and blobs put into each lease state.
import { randomUUID } from "node:crypto";
import { AssertionError } from "chai";
import type { BlobClient, BlockBlobClient, ContainerClient } from "@azure/storage-blob";
import {
  answerDate,
  expectDate,
  expectEqual,
  expectPresent,
  expectRawStatus,
  expectSent,
  expectTrue,
} from "../../fixtures/harness/assert.ts";
import { WaitTimeout, type RowContext } from "../../fixtures/harness/engine.ts";
import { answerDatesSince, currentEvidence } from "../../fixtures/wire/evidence.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { preconditionFailed } from "../../fixtures/wire/signals.ts";
import { newBlockBlob } from "./blob-kit.ts";

export const guid = (): string => randomUUID();

export const blobLeaseSource = (rest: string) => `seed: pessimistic concurrency for blobs; REST: ${rest}`;
export const containerLeaseSource = (rest: string) => `seed: pessimistic concurrency for containers; REST: ${rest}`;

/** Per resource a lease locks: its lease operation, the prefix of its lease rows' IDs, and the table of its action × state cells. */
export const LEASE_OF = {
  blob: { operation: "Lease Blob", ids: "blob/lease/", stateTable: "L Lease actions × lease states" },
  container: { operation: "Lease Container", ids: "blob/container-lease/", stateTable: "L Container lease actions × lease states" },
} as const;

/** What a lease action is aimed at: a blob or a container, by path below the endpoint. */
export interface LeaseTarget {
  kind: "blob" | "container";
  path: string;
}

export const blobTarget = (b: BlobClient): LeaseTarget => ({ kind: "blob", path: `/${b.containerName}/${b.name}` });
export const containerTarget = (c: ContainerClient): LeaseTarget => ({ kind: "container", path: `/${c.containerName}` });

const leaseQuery = (x: LeaseTarget): Record<string, string> =>
  x.kind === "blob" ? { comp: "lease" } : { restype: "container", comp: "lease" };
const propsQuery = (x: LeaseTarget): Record<string, string> => (x.kind === "blob" ? {} : { restype: "container" });

export type LeaseAction = "acquire" | "renew" | "change" | "release" | "break";

export interface LeaseArgs {
  /** x-ms-lease-id */
  id?: string;
  /** x-ms-proposed-lease-id */
  proposed?: string;
  /** x-ms-lease-duration (acquire) */
  duration?: number;
  /** x-ms-lease-break-period (break) */
  breakPeriod?: number;
}

/** One Lease Blob / Lease Container request, sent raw with exactly the headers given. */
export async function leaseAction(t: RowContext, x: LeaseTarget, action: LeaseAction, a: LeaseArgs = {}): Promise<RawResponse> {
  const headers: Record<string, string> = { "x-ms-lease-action": action };
  if (a.id !== undefined) headers["x-ms-lease-id"] = a.id;
  if (a.proposed !== undefined) headers["x-ms-proposed-lease-id"] = a.proposed;
  if (a.duration !== undefined) headers["x-ms-lease-duration"] = String(a.duration);
  if (a.breakPeriod !== undefined) headers["x-ms-lease-break-period"] = String(a.breakPeriod);
  return t.raw("blob", { method: "PUT", path: x.path, query: leaseQuery(x), headers });
}

/**
 * An acquire over an expired lease (catalogue L): 201 at once, or 409
 * LeaseAlreadyPresent within REACQUIRE_TOLERANCE_MS of the expiry (server
 * clock), retried every 2 s while that minute lasts. Returns the last answer
 * (the one the cell judges) and, when it was not the first, how long after
 * the expiry the lease was granted.
 */
export async function acquireOverExpired(
  t: RowContext,
  x: LeaseTarget,
  args: LeaseArgs,
  expiredAt: Date,
): Promise<{ res: RawResponse; delayS?: number }> {
  const until = expiredAt.getTime() + REACQUIRE_TOLERANCE_MS;
  let res = await leaseAction(t, x, "acquire", args);
  let waited = false;
  while (res.status === 409 && res.errorCode === "LeaseAlreadyPresent" && answerDate(res, LEASE_OF[x.kind].operation) < until) {
    waited = true;
    await t.sleep(2000);
    res = await leaseAction(t, x, "acquire", args);
  }
  return waited ? { res, delayS: Math.round((answerDate(res, LEASE_OF[x.kind].operation) - expiredAt.getTime()) / 1000) } : { res };
}

/**
 * Acquires the lease a row needs, on a fresh (available) blob or container. A
 * refusal breaks a claim of the lease table (acquire on Available: 201), so it
 * is a FAIL naming that claim, not an environment the suite cannot build.
 */
export async function holdLease(t: RowContext, x: LeaseTarget, duration: number, id = guid()): Promise<{ id: string; res: RawResponse }> {
  t.step(`acquire ${duration === -1 ? "an infinite" : `a ${duration} s`} lease (setup)`);
  const res = await leaseAction(t, x, "acquire", { proposed: id, duration });
  expectRawStatus(
    `${x.kind === "blob" ? "blob/lease/state/acquire/available" : "blob/container-lease"}: acquire ${duration === -1 ? "an infinite" : `a ${duration} s`} lease on an available ${x.kind} (setup)`,
    res,
    { status: 201 },
  );
  return { id, res };
}

export interface LeaseView {
  state: string | undefined;
  status: string | undefined;
  duration: string | undefined;
  etag: string | undefined;
  lastModified: string | undefined;
  /** The server's Date header of the read. */
  date: Date | undefined;
}

/** Reads x-ms-lease-state / -status / -duration (and the ETag) back from the target. */
export async function readLease(t: RowContext, x: LeaseTarget, leaseId?: string): Promise<LeaseView> {
  const res = await t.raw("blob", {
    method: x.kind === "blob" ? "HEAD" : "GET",
    path: x.path,
    query: propsQuery(x),
    headers: leaseId ? { "x-ms-lease-id": leaseId } : {},
  });
  expectEqual(`read back the ${x.kind}'s properties: status`, res.status, 200);
  const h = res.headers;
  return {
    state: h["x-ms-lease-state"],
    status: h["x-ms-lease-status"],
    duration: h["x-ms-lease-duration"],
    etag: h["etag"],
    lastModified: h["last-modified"],
    date: h["date"] ? new Date(h["date"]) : undefined,
  };
}

/** The server's clock (ms) in a lease read back; an answer without a Date fails the row, naming it. */
export const clockOf = (v: LeaseView): number => expectPresent("the properties read back: the answer's Date", v.date).getTime();

export type LeaseState = "available" | "leased" | "breaking" | "broken" | "expired";
/**
 * A state a row can put a blob in: a lease state, or "expired-modified" (an
 * Expired lease whose blob was then written without a lease ID, which is what
 * decides renew A: blob/lease/state/renew/expired-modified).
 */
export type StatedLease = LeaseState | "expired-modified";
/** States that need a real 15 s lease to lapse first (the row must set waitSeconds). */
export const lapses = (s: StatedLease): s is "expired" | "expired-modified" => s === "expired" || s === "expired-modified";

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
  t.step(`${what}: read with the holder's ID`);
  await readLease(t, x, holder);
  t.step(`${what}: read with another ID`);
  const res = await t.raw("blob", {
    method: x.kind === "blob" ? "HEAD" : "GET",
    path: x.path,
    query: propsQuery(x),
    headers: { "x-ms-lease-id": other },
  });
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

/** The server's clock in an answer (its Date header); an answer without one fails the row, naming what it lacks. */
export const serverDate = (res: RawResponse): Date => new Date(expectDate("the answer's Date header", res.headers["date"]));

/**
 * Polls the lease state until it reads `state` (a real wait: expiry, a break
 * period). The bound is generous; the row's waitSeconds covers it.
 */
export async function waitForLeaseState(
  t: RowContext,
  x: LeaseTarget,
  state: LeaseState,
  timeoutMs: number,
  onRead?: (v: LeaseView) => void,
): Promise<LeaseView> {
  return t.waitFor(
    `lease state ${state}`,
    async () => {
      const v = await readLease(t, x);
      onRead?.(v);
      return v.state === state ? v : undefined;
    },
    { timeoutMs, intervalMs: 500 },
  );
}

/** Waits until the server's own clock reads at least `at` (no local clock in a verdict). */
export async function waitForServerTime(t: RowContext, x: LeaseTarget, at: Date, timeoutMs: number): Promise<LeaseView> {
  return t.waitForServerTime(
    `server time ${at.toISOString()}`,
    () => readLease(t, x),
    (v) => v.date?.getTime() ?? -Infinity,
    at.getTime(),
    { timeoutMs, intervalMs: 500 },
  );
}

/**
 * renew-extends (catalogue L, blobs and containers): a 15 s lease renewed
 * after 8 s (server clock) still reads leased 2 s past its original end, where
 * `locked` shows it still locks the resource. A slow target may answer those
 * checks only once the renewed lease ran out too (server clock): then they
 * tell nothing (PRECONDITION_FAILED).
 */
export async function renewedPastOriginalEnd(t: RowContext, x: LeaseTarget, locked: () => Promise<void>): Promise<void> {
  const { id, res } = await holdLease(t, x, SHORTEST);
  const acquired = serverDate(res);
  t.step("wait 8 s (server clock), then renew");
  await waitForServerTime(t, x, new Date(acquired.getTime() + 8000), 30_000);
  const renewed = await leaseAction(t, x, "renew", { id });
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

/** Break period used to hold a lease in Breaking long enough to act on it. */
export const BREAKING_PERIOD = 20;
/** Shortest finite lease. */
export const SHORTEST = 15;

/** A finite lease that cannot run out while a row acts on it (held, breaking and broken states). */
export const LASTING = 60;

/** A blob or container in a lease state, held (or last held) by A. */
export interface StatedResource {
  x: LeaseTarget;
  /** The holder's ID (A). */
  a: string;
  /** Another ID (B). */
  other: string;
  /** For Breaking: when the break period ends, by the server's clock. */
  breakEnds?: Date;
  /** For Expired: when the 15 s lease ended, by the server's clock (its acquire's Date + 15 s). */
  expiredAt?: Date;
}

/**
 * After a lease expires rather than being released, "a client may need to
 * wait up to one minute before a new lease can be acquired" (Lease Blob;
 * catalogue L): an acquire over an expired lease may meet 409
 * LeaseAlreadyPresent for this long after the expiry (server clock).
 */
export const REACQUIRE_TOLERANCE_MS = 60_000;

export interface StatedBlob extends StatedResource {
  b: BlockBlobClient;
}

/** The write without a lease ID that turns an Expired lease into column expired-modified: Put Blob, or Set Container Metadata. */
const WRITE_WITHOUT_ID: Record<
  LeaseTarget["kind"],
  { operation: string; status: number; send(t: RowContext, x: LeaseTarget): Promise<RawResponse> }
> = {
  blob: {
    operation: "Put Blob",
    status: 201,
    send: (t, x) =>
      t.raw("blob", { method: "PUT", path: x.path, headers: { "x-ms-blob-type": "BlockBlob" }, body: "written after the lease expired" }),
  },
  container: {
    operation: "Set Container Metadata",
    status: 200,
    send: (t, x) =>
      t.raw("blob", {
        method: "PUT",
        path: x.path,
        query: { restype: "container", comp: "metadata" },
        headers: { "x-ms-meta-state": "written-after-expiry" },
      }),
  },
};

/**
 * Resources put in the given lease state, each held (or last held) by its own
 * A: with an infinite lease unless `finite` (a 60 s lease; a 15 s one for the
 * states where it lapses). Lapsing states acquire every lease first and wait
 * for them together (the row must set waitSeconds); expired-modified then has
 * each resource written without a lease ID.
 */
export async function leasesInState(t: RowContext, xs: LeaseTarget[], state: StatedLease, finite = false): Promise<StatedResource[]> {
  const out: StatedResource[] = xs.map((x) => ({ x, a: guid(), other: guid() }));
  if (state === "available") return out;
  const duration = lapses(state) ? SHORTEST : finite ? LASTING : -1;
  const acquired: Date[] = [];
  for (const s of out) acquired.push(serverDate((await holdLease(t, s.x, duration, s.a)).res));
  if (state === "leased") return out;
  // What the setup relies on are claims of the lease table: a target that breaks
  // one fails here, naming it (never PRECONDITION_FAILED).
  if (lapses(state)) {
    out.forEach((s, i) => (s.expiredAt = new Date(acquired[i].getTime() + SHORTEST * 1000)));
    t.step(`wait for the 15 s lease${out.length > 1 ? `s (${out.length})` : ""} to expire (setup)`);
    await Promise.all(
      out.map(async (s, i) => {
        // Read from a second before its end by the server's clock: a read before then tells nothing (a few reads, not one every 500 ms).
        await waitForServerTime(t, s.x, new Date(acquired[i].getTime() + (SHORTEST - 1) * 1000), 45_000);
        let last: LeaseView | undefined;
        await waitForLeaseState(t, s.x, "expired", 45_000, (v) => (last = v)).catch((err) => {
          if (!(err instanceof WaitTimeout)) throw err; // a transport fault stays INCONCLUSIVE
          // The data says what was read last: no lease state at all is a missing header, whatever the row.
          expectTrue(`${LEASE_OF[s.x.kind].ids}expiry-frees: the 15 s lease did not read back as expired within 45 s (setup)`, false, {
            expected: "lease state expired",
            got: last?.state ? `lease state ${last.state}` : "none",
          });
        });
      }),
    );
    if (state === "expired-modified") {
      for (const s of out) {
        const write = WRITE_WITHOUT_ID[s.x.kind];
        t.step(`${write.operation} without a lease ID after the expiry (setup)`);
        expectRawStatus(
          `${LEASE_OF[s.x.kind].ids}expiry-frees: ${write.operation} without a lease ID once the lease expired (setup)`,
          await write.send(t, s.x),
          { status: write.status },
        );
      }
    }
    return out;
  }
  const period = state === "broken" ? 0 : BREAKING_PERIOD;
  const cell = `${LEASE_OF[out[0].x.kind].ids}state/break-${period === 0 ? "0" : "period"}/leased`;
  for (const s of out) {
    t.step(`break the lease, period ${period} s (setup)`);
    const res = await leaseAction(t, s.x, "break", { breakPeriod: period });
    expectRawStatus(`${cell}: break ${finite ? "a 60 s" : "an infinite"} lease with period ${period} (setup)`, res, { status: 202 });
    // x-ms-lease-time: the seconds left of the break period; the row times its checks by it.
    const remaining = Number(res.headers["x-ms-lease-time"]);
    expectTrue(
      `${LEASE_OF[s.x.kind].operation} break with period ${period}: x-ms-lease-time is not ${period} (±1)`,
      Math.abs(remaining - period) <= 1,
    );
    const v = await readLease(t, s.x);
    checkLeaseState(`${cell}: the lease read back after a break with period ${period} (setup)`, v, state);
    if (state === "breaking") s.breakEnds = new Date(serverDate(res).getTime() + remaining * 1000);
  }
  return out;
}

/**
 * A block blob in the given lease state, held (or last held) by A, on an
 * infinite lease (a 15 s one where it lapses: the row must set waitSeconds).
 */
export async function blobInState(t: RowContext, state: StatedLease, blob?: BlockBlobClient): Promise<StatedBlob> {
  const b = blob ?? (await newBlockBlob(t));
  const [s] = await leasesInState(t, [blobTarget(b)], state);
  return { ...s, b };
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
  const from = currentEvidence()?.exchanges.length ?? 0;
  try {
    await check();
  } catch (err) {
    const left = Number(res?.headers["x-ms-lease-time"]);
    const ends = Math.min(
      s.breakEnds?.getTime() ?? Infinity,
      res && Number.isFinite(left) ? serverDate(res).getTime() + left * 1000 : Infinity,
    );
    if (err instanceof AssertionError && answerDatesSince(from).some((d) => d >= ends - 1000))
      preconditionFailed("the break period ran out before the holder could be checked");
    throw err;
  }
}

/**
 * Runs the checks of the lease a lease action left while a finite one (SHORTEST
 * s at the least) must still hold: a check that fails with an answer since
 * exchange `from` dated that long after the action's (server clock) cannot tell
 * a lease that ran out from one never held: PRECONDITION_FAILED, never a FAIL.
 */
export async function beforeLapse(res: RawResponse, from: number, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (err) {
    const ends = serverDate(res).getTime() + (SHORTEST - 1) * 1000;
    if (err instanceof AssertionError && answerDatesSince(from).some((d) => d >= ends))
      preconditionFailed("a finite lease ran out before the state and the holder were checked");
    throw err;
  }
}
