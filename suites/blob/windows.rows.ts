// Both ends of the blob service's windows (window-claims.ts): a break period
// or a finite lease, on a blob or a container, probed right after it opened
// and in its last part by the server's clock, then shown lapsed by its end
// (suites/window-kit.ts runs both ends).
import { expectEqual, expectRawStatus, expectRefused, expectSame, expectSucceeds, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext } from "../../fixtures/harness/engine.ts";
import { allAnswered } from "../../fixtures/wire/signals.ts";
import { defineWindowRows, when, type OpenWindow, type WindowClaim } from "../window-kit.ts";
import { downloadAll, blobSnapshot, newBlockBlob } from "./blob-kit.ts";
import { deleteRefused, req, view } from "./container-lease-claims.ts";
import {
  blobTarget,
  clockOf,
  containerTarget,
  guid,
  holdLease,
  leaseAction,
  readLease,
  serverDate,
  type LeaseTarget,
} from "./lease-kit.ts";
import { checkLeaseState } from "./lease-checks.ts";
import { BLOB_WINDOWS } from "./window-claims.ts";

const WRITTEN = "written once the break ended";

/** A blob or container a lease locks: what a write without the lease ID does while it holds, and once it lapsed. */
interface LeaseSubject {
  x: LeaseTarget;
  /** The lock holds: a write without the ID is refused and changes nothing. */
  refused(during: string): Promise<void>;
  /** The lock is gone: a write without the ID succeeds. */
  freed(when: string): Promise<void>;
}

async function leaseSubject(t: RowContext, resource: "blob" | "container"): Promise<LeaseSubject> {
  const c = await t.newContainer();
  if (resource === "container") {
    const x = containerTarget(c);
    return {
      x,
      refused: (during) => deleteRefused(t, x, during),
      async freed(when) {
        expectRawStatus(`Delete Container without the lease ID ${when}`, await req(t, x, "DELETE", {}), { status: 202 });
        expectEqual(`the container exists after Delete Container without the lease ID ${when}`, (await view(t, x)).exists, false);
      },
    };
  }
  const b = await newBlockBlob(t, "original", c);
  const base = await blobSnapshot(b, c, "block");
  return {
    x: blobTarget(b),
    async refused(during) {
      await expectRefused(`Put Blob without the lease ID ${during}`, b.upload("not allowed", 11), { status: 412 });
      expectSame(`the blob after the refused write ${during}`, await blobSnapshot(b, c, "block"), base);
    },
    async freed(when) {
      await expectSucceeds(`Put Blob without the lease ID ${when}`, b.upload(WRITTEN, WRITTEN.length));
      expectEqual(`content after the write ${when}`, (await downloadAll(b)).toString("utf8"), WRITTEN);
    },
  };
}

/** A lease window (a break period, a finite lease) on its subject: locked while it holds, with another acquire refused. */
function leaseWindow(
  t: RowContext,
  s: LeaseSubject,
  end: number,
  state: "breaking" | "leased",
  lapsedAs: "broken" | "expired",
  freedWhen: string,
): OpenWindow {
  const x = s.x;
  return {
    end,
    async held(phase) {
      const during = `${when(phase)} (${state === "breaking" ? "Breaking" : "Leased"})`;
      await allAnswered([
        s.refused(during),
        (async () => checkLeaseState(`the lease ${during}`, await readLease(t, x), state))(),
        (async () =>
          expectRawStatus(`acquire with another ID ${during}`, await leaseAction(t, x, "acquire", { proposed: guid(), duration: -1 }), {
            status: 409,
            code: "LeaseAlreadyPresent",
          }))(),
      ]);
    },
    async lapsed() {
      const v = await readLease(t, x);
      return { lapsed: v.state !== state, date: clockOf(v) };
    },
    async after() {
      checkLeaseState(`the lease ${freedWhen}`, await readLease(t, x), lapsedAs);
      await s.freed(freedWhen);
    },
    clock: async () => clockOf(await readLease(t, x)),
  };
}

async function breakPeriod(t: RowContext, claim: WindowClaim): Promise<OpenWindow> {
  const P = claim.seconds;
  const s = await leaseSubject(t, claim.resource!);
  await holdLease(t, s.x, -1);
  t.step(`break the lease with period ${P}`);
  const res = await leaseAction(t, s.x, "break", { breakPeriod: P });
  expectRawStatus(`break an infinite lease with period ${P}`, res, { status: 202 });
  expectTrue(`break with period ${P}: x-ms-lease-time is not ${P} (±1)`, Math.abs(Number(res.headers["x-ms-lease-time"]) - P) <= 1);
  return leaseWindow(t, s, serverDate(res).getTime() + P * 1000, "breaking", "broken", "once the break period ended");
}

/** A finite lease: it ends the acquire's Date + its duration. */
async function leaseExpiry(t: RowContext, claim: WindowClaim): Promise<OpenWindow> {
  const D = claim.seconds;
  const s = await leaseSubject(t, claim.resource!);
  t.step(`acquire a ${D} s lease`);
  const res = await leaseAction(t, s.x, "acquire", { proposed: guid(), duration: D });
  expectRawStatus(`acquire a ${D} s lease`, res, { status: 201 });
  return leaseWindow(t, s, serverDate(res).getTime() + D * 1000, "leased", "expired", "once the lease expired");
}

defineWindowRows(BLOB_WINDOWS, { "break-period": breakPeriod, "lease-expiry": leaseExpiry });
