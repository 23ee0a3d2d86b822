// Both ends of every window (window-claims.ts): each row opens a window (a
// break period or a finite lease, on a blob or a container; a visibility
// timeout, a message's time to live), probes it right after it opened and
// again in its last part, by the server's clock, then shows it lapsed by its
// end (one second allowed for the clock's granularity, one more for a legal
// late end). A late probe answered only in the window's last second proves
// nothing: that is a target too slow to tell (PRECONDITION_FAILED), never a
// pass.
import { AssertionError } from "chai";
import type { QueueClient } from "@azure/storage-queue";
import {
  expectEqual,
  expectPresent,
  expectRawStatus,
  expectRefused,
  expectSame,
  expectSucceeds,
  expectTrue,
} from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { answerDatesSince, currentEvidence } from "../../fixtures/wire/evidence.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { allAnswered, preconditionFailed } from "../../fixtures/wire/signals.ts";
import { blobSnapshot, newBlockBlob } from "../blob/blob-kit.ts";
import { deleteRefused, req, view } from "../blob/container-lease-claims.ts";
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
} from "../blob/lease-kit.ts";
import { checkLeaseState } from "../blob/lease-checks.ts";
import {
  otherClient,
  peek,
  queueClock,
  queueWithMessage,
  rawDeleteMessage,
  rawGetMessages,
  rawPutMessage,
  rawUpdateMessage,
} from "../queue/queue-kit.ts";
import { GRANULARITY_MS, LEGAL_LATE_MS, WINDOWS, type OpenWindow, type WindowClaim, type WindowKind } from "./window-claims.ts";

const WRITTEN = "written once the break ended";
/**
 * The late probe starts this long before the window's end (server clock): in
 * its last part, yet with two seconds for a loaded target to answer before the
 * last one, where the end may legally have come (granularity).
 */
const LATE_PROBE_LEAD_MS = 3000;
/** The end an answer states is its own Date plus the length asked (one second allowed for the clock's granularity). */
const expectStatedEnd = (what: string, end: number, answered: number, seconds: number) =>
  expectTrue(`${what} is not the answer's Date + ${seconds} s (±1 s)`, Math.abs(end - answered - seconds * 1000) <= GRANULARITY_MS);
const when = (phase: "start" | "late") => (phase === "start" ? "right after the window opened" : "in the window's last part");

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
      expectEqual(`content after the write ${when}`, (await b.downloadToBuffer()).toString("utf8"), WRITTEN);
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

/** A message invisible until `end`: other clients neither receive nor peek it; after `end` it comes back as `text`, delivered for the `delivery`-th time. */
function invisibleMessage(t: RowContext, q: QueueClient, id: string, end: number, text: string, delivery = 2): OpenWindow {
  const other = otherClient(t, q);
  let back: { dequeueCount: number; messageText: string } | undefined;
  return {
    end,
    async held(phase) {
      const during = when(phase);
      const [got, seen] = await allAnswered([other.receiveMessages({ numberOfMessages: 32, visibilityTimeout: 1 }), peek(t, q)]);
      expectEqual(`messages another client received ${during}`, got.receivedMessageItems.length, 0);
      expectEqual(`messages peeked ${during}`, seen.length, 0);
    },
    async lapsed() {
      const got = await other.receiveMessages({ numberOfMessages: 32, visibilityTimeout: 30 });
      back = got.receivedMessageItems.find((m) => m.messageId === id) ?? back;
      return { lapsed: !!back, date: expectPresent("Get Messages: the answer's Date", got.date).getTime() };
    },
    async after() {
      expectEqual("text of the message once it came back", back?.messageText, text);
      expectEqual("DequeueCount of the message once it came back", back?.dequeueCount, delivery);
    },
    clock: async () => expectPresent("Get Queue Metadata: the answer's Date", (await q.getProperties()).date).getTime(),
  };
}

async function getVisibility(t: RowContext, claim: WindowClaim): Promise<OpenWindow> {
  const V = claim.seconds;
  const { q, id } = await queueWithMessage(t);
  t.step(`dequeue with visibilitytimeout ${V}`);
  const { res, messages } = await rawGetMessages(t, q, { visibilitytimeout: String(V) });
  expectEqual("Get Messages status", res.status, 200);
  expectEqual(
    "dequeued messages",
    messages.map((m) => m.messageId),
    [id],
  );
  const end = Date.parse(messages[0].timeNextVisible ?? "");
  expectStatedEnd("Get Messages: TimeNextVisible", end, serverDate(res).getTime(), V);
  return invisibleMessage(t, q, id, end, "original");
}

async function updateVisibility(t: RowContext, claim: WindowClaim): Promise<OpenWindow> {
  const U = claim.seconds;
  const { q, id } = await queueWithMessage(t);
  const receipt = (await q.receiveMessages({ visibilityTimeout: 30 })).receivedMessageItems[0]?.popReceipt;
  expectTrue("the message was not dequeued (setup)", !!receipt);
  t.step(`Update Message with visibilitytimeout ${U}`);
  const res = await expectSucceeds("Update Message with the current receipt", q.updateMessage(id, receipt!, "updated", U));
  const end = res.nextVisibleOn?.getTime() ?? NaN;
  expectStatedEnd("Update Message: x-ms-time-next-visible", end, expectPresent("Update Message: the answer's Date", res.date).getTime(), U);
  return invisibleMessage(t, q, id, end, "updated");
}

/** Put Message with a visibility timeout: the message is delivered for the first time once it ends. */
async function putVisibility(t: RowContext, claim: WindowClaim): Promise<OpenWindow> {
  const V = claim.seconds;
  const q = await t.newQueue();
  t.step(`Put Message with visibilitytimeout ${V}`);
  const { res, message } = await rawPutMessage(t, q, "original", { visibilitytimeout: String(V) });
  expectRawStatus(`Put Message with visibilitytimeout ${V}`, res, { status: 201 });
  const end = Date.parse(message?.timeNextVisible ?? "");
  expectStatedEnd("Put Message: TimeNextVisible", end, serverDate(res).getTime(), V);
  return invisibleMessage(t, q, message!.messageId, end, "original", 1);
}

/** Put Message with a time to live: peekable until its ExpirationTime, then gone for every operation. */
async function messageTtl(t: RowContext, claim: WindowClaim): Promise<OpenWindow> {
  const T = claim.seconds;
  const q = await t.newQueue();
  t.step(`Put Message with messagettl ${T}`);
  const { res, message } = await rawPutMessage(t, q, "original", { messagettl: String(T) });
  expectRawStatus(`Put Message with messagettl ${T}`, res, { status: 201 });
  const end = Date.parse(message?.expirationTime ?? "");
  expectStatedEnd("Put Message: ExpirationTime", end, serverDate(res).getTime(), T);
  const id = message!.messageId;
  const receipt = message!.popReceipt;
  expectTrue("Put Message answered no PopReceipt", !!receipt);
  return {
    end,
    async held(phase) {
      expectTrue(
        `the message is peeked ${when(phase)} (before its ExpirationTime)`,
        (await peek(t, q)).some((m) => m.messageId === id),
      );
    },
    async lapsed() {
      const { res: r, messages } = await rawGetMessages(t, q, { peekonly: "true", numofmessages: "32" });
      expectEqual("Peek Messages status", r.status, 200);
      return { lapsed: !messages.some((m) => m.messageId === id), date: serverDate(r).getTime() };
    },
    async after() {
      const gone = { status: 404, code: "MessageNotFound" };
      expectRawStatus("Delete Message with its receipt after the ExpirationTime", await rawDeleteMessage(t, q, id, receipt!), gone);
      expectRawStatus(
        "Update Message with its receipt after the ExpirationTime",
        await rawUpdateMessage(t, q, id, receipt!, 0, "updated"),
        gone,
      );
      const { messages } = await rawGetMessages(t, q, { numofmessages: "32", visibilitytimeout: "30" });
      expectEqual(
        "messages dequeued after the ExpirationTime",
        messages.map((m) => m.messageId),
        [],
      );
    },
    clock: () => queueClock(t, q),
  };
}

const OPENERS: Record<WindowKind, (t: RowContext, claim: WindowClaim) => Promise<OpenWindow>> = {
  "break-period": breakPeriod,
  "lease-expiry": leaseExpiry,
  "get-visibility": getVisibility,
  "update-visibility": updateVisibility,
  "put-visibility": putVisibility,
  "message-ttl": messageTtl,
};

/**
 * A probe that the window holds. One answered only in the window's last second
 * or after it (server clock) proves nothing, at either end: the end may legally
 * have come, so a loaded target leaves the row without a verdict.
 */
async function probe(w: OpenWindow, phase: "start" | "late"): Promise<void> {
  const from = currentEvidence()?.exchanges.length ?? 0;
  try {
    await w.held(phase);
  } catch (err) {
    if (err instanceof AssertionError && Math.max(...answerDatesSince(from)) > w.end - GRANULARITY_MS) {
      preconditionFailed(
        phase === "late"
          ? "the probe of the window's last part was answered only in its last second (server clock): too slow a target to tell"
          : "the probe right after the window opened was answered only in its last second or after its end (server clock): too slow a target to tell",
      );
    }
    throw err;
  }
}

async function bothEnds(t: RowContext, claim: WindowClaim): Promise<void> {
  const w = await OPENERS[claim.kind](t, claim);
  t.step("probe right after the window opened");
  await probe(w, "start");
  t.step("wait for the window's last part (server clock)");
  await t.waitForServerTime("the server's clock 3 s before the window's end", w.clock, (d) => d, w.end - LATE_PROBE_LEAD_MS, {
    timeoutMs: claim.seconds * 1000 + 20_000,
    intervalMs: 250,
  });
  t.step("probe in the window's last part");
  await probe(w, "late");
  t.step("after the window's end: lapsed by its end + 2 s (server clock)");
  await t.waitForServerTime("the server's clock past the window's end", w.clock, (d) => d, w.end, { timeoutMs: 20_000, intervalMs: 250 });
  const by = w.end + GRANULARITY_MS + LEGAL_LATE_MS;
  await t.waitFor(
    "the window lapsing",
    async () => {
      const p = await w.lapsed();
      expectTrue("the window was still in force 2 s after its end (server clock)", p.lapsed || p.date < by);
      return p.lapsed ? true : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 250 },
  );
  await w.after();
}

for (const table of [...new Set(WINDOWS.map((w) => w.table))]) {
  const rows: RowDef[] = WINDOWS.filter((w) => w.table === table).map((claim) => ({
    id: claim.id,
    title: claim.title,
    level: claim.level,
    source: claim.source,
    service: claim.service,
    // Starts at once, outside the pool: the window's length plus its last second and the legal late one.
    waitSeconds: claim.seconds + 3,
    run: (t) => bothEnds(t, claim),
  }));
  defineTable({ table, service: rows[0].service }, rows);
}
