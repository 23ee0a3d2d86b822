// Resources put into each lease state for the lease suites (section L): held
// by their own ID A (infinite, 60 s or 15 s leases), expired (and then
// written), breaking or broken, each step checked against the lease table's
// claims, so a target that breaks one fails naming it.
import type { BlockBlobClient } from "@azure/storage-blob";
import { expectRawStatus, expectTrue } from "../../fixtures/harness/assert.ts";
import { WaitTimeout, type RowContext } from "../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { newBlockBlob } from "./blob-kit.ts";
import { checkLeaseState } from "./lease-checks.ts";
import {
  blobTarget,
  BREAKING_PERIOD,
  guid,
  holdLease,
  lapses,
  LASTING,
  LEASE_OF,
  leaseAction,
  readLease,
  serverDate,
  SHORTEST,
  waitForLeaseState,
  waitForServerTime,
  type LeaseTarget,
  type LeaseView,
  type StatedLease,
  type StatedResource,
} from "./lease-kit.ts";
import { inStrand } from "../../fixtures/wire/evidence.ts";
import { allAnswered } from "../../fixtures/wire/signals.ts";

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
  // Each resource is set up in a strand of its own, all at once (their leases then also lapse together).
  const acquired = await allAnswered(out.map((s) => inStrand(async () => serverDate((await holdLease(t, s.x, duration, s.a)).res))));
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
      await allAnswered(
        out.map((s) =>
          inStrand(async () => {
            const write = WRITE_WITHOUT_ID[s.x.kind];
            t.step(`${write.operation} without a lease ID after the expiry (setup)`);
            expectRawStatus(
              `${LEASE_OF[s.x.kind].ids}expiry-frees: ${write.operation} without a lease ID once the lease expired (setup)`,
              await write.send(t, s.x),
              { status: write.status },
            );
          }),
        ),
      );
    }
    return out;
  }
  const period = state === "broken" ? 0 : BREAKING_PERIOD;
  const cell = `${LEASE_OF[out[0].x.kind].ids}state/break-${period === 0 ? "0" : "period"}/leased`;
  const breakOne = async (s: StatedResource) => {
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
  };
  await allAnswered(out.map((s) => inStrand(() => breakOne(s))));
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
