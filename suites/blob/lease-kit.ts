// Lease helpers shared by the lease suites (section L): lease actions sent raw
// (so exactly the headers the claim names go on the wire, including "no ID"),
// the lease read back from the target (and waited for), and the lease
// durations and states the rows use. The checks on a lease read back are in
// lease-checks.ts; resources put into each lease state in lease-setup.ts.
import { randomUUID } from "node:crypto";
import type { BlobClient, ContainerClient } from "@azure/storage-blob";
import { answerDate, expectDate, expectEqual, expectPresent, expectRawStatus } from "../../fixtures/harness/assert.ts";
import type { RowContext } from "../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";

export const guid = (): string => randomUUID();

/** The parameters an acquire carries besides the one a claim is about (model/answers.ts): its duration and proposed ID. */
export const ACQUIRE = { "x-ms-lease-duration": ["infinite", "in-range"], "x-ms-proposed-lease-id": ["holder", "other"] };

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
/** The query of a read of the resource's properties (Get Blob Properties, Get Container Properties). */
export const propsQuery = (x: LeaseTarget): Record<string, string> => (x.kind === "blob" ? {} : { restype: "container" });

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
  return leaseViewOf(res);
}

/** The lease an answer carries (x-ms-lease-state / -status / -duration, ETag, Last-Modified, Date). */
export function leaseViewOf(res: RawResponse): LeaseView {
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
