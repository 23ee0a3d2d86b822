// L, lease actions × lease states (REST "Lease Blob" outcome table): one test
// per cell, each on its own blob put into the state first. The state after the
// action is read back (x-ms-lease-state, x-ms-lease-status) and, where a lease
// is held, so is its holder. Expired cells wait for a 15 s lease to lapse; they
// start at once and run side by side. Column expired-modified: the lease
// expired, then a Put Blob without a lease ID changed the blob.
import { expectEqual, expectRawStatus, expectRefused, expectSame, expectSucceeds, expectTrue } from "../../fixtures/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/engine.ts";
import type { RawResponse } from "../../fixtures/raw.ts";
import { defineMatrix, defineTable } from "../../fixtures/registry.ts";
import {
  blobInState,
  blobLeaseSource,
  blobSnapshot,
  checkLeaseState,
  expectHolder,
  expectLeaseIdSent,
  expectLeaseState,
  guid,
  holdLease,
  lapses,
  leaseAction,
  readLease,
  SHORTEST,
  stillBreaking,
  whileBreaking,
  blobTarget,
  type LeaseAction,
  type LeaseArgs,
  type StatedBlob,
  type StatedLease,
} from "./lease-kit.ts";
import { newBlockBlob } from "./blob-kit.ts";
import { ACTION_LABEL, BREAK_PERIOD, onState, TABLE, type Action, type Outcome } from "./lease-table.ts";

const P = "blob/lease/state/";
const SOURCE = blobLeaseSource("Lease Blob, outcomes of lease operations on blobs by lease state");
const CHANGED = "changed by a writer";

const STATES: StatedLease[] = ["available", "leased", "breaking", "broken", "expired", "expired-modified"];

const ACTIONS: { action: Action; label: string; send: (s: StatedBlob) => { verb: LeaseAction; args: LeaseArgs } }[] = [
  { action: "acquire", label: ACTION_LABEL.acquire, send: (s) => ({ verb: "acquire", args: { proposed: s.other, duration: -1 } }) },
  { action: "acquire-same", label: ACTION_LABEL["acquire-same"], send: (s) => ({ verb: "acquire", args: { proposed: s.a, duration: -1 } }) },
  { action: "renew", label: ACTION_LABEL.renew, send: (s) => ({ verb: "renew", args: { id: s.a } }) },
  { action: "renew-other", label: ACTION_LABEL["renew-other"], send: (s) => ({ verb: "renew", args: { id: s.other } }) },
  { action: "change", label: ACTION_LABEL.change, send: (s) => ({ verb: "change", args: { id: s.a, proposed: s.other } }) },
  { action: "release", label: ACTION_LABEL.release, send: (s) => ({ verb: "release", args: { id: s.a } }) },
  { action: "release-other", label: ACTION_LABEL["release-other"], send: (s) => ({ verb: "release", args: { id: s.other } }) },
  { action: "break-0", label: ACTION_LABEL["break-0"], send: () => ({ verb: "break", args: { breakPeriod: 0 } }) },
  { action: "break-period", label: ACTION_LABEL["break-period"], send: () => ({ verb: "break", args: { breakPeriod: BREAK_PERIOD } }) },
];

const claimText = (o: Outcome) => `${o.status}${o.code ? " " + o.code : ""}${o.status < 300 ? ` → ${Array.isArray(o.after) ? "unlocked" : o.after}` : ""}`;

/** The states whose column has a cell for this action. */
const statesOf = (action: (typeof ACTIONS)[number]) => STATES.filter((state) => TABLE[action.action][state]);
const stateLabel = (state: StatedLease) => (state === "expired-modified" ? "expired, then written without a lease ID" : state);
async function runCell(t: RowContext, action: (typeof ACTIONS)[number], state: StatedLease): Promise<void> {
  const expected = TABLE[action.action][state]!;
  const s = await blobInState(t, state);
  const { verb, args } = action.send(s);
  const what = `${action.label} on ${onState(state)}`;
  t.step(what);
  const res: RawResponse = await leaseAction(t, s.x, verb, args);
  t.note("response", { status: res.status, code: res.errorCode ?? null, leaseTime: res.headers["x-ms-lease-time"] ?? null });
  t.step("read the lease back");
  const v = await readLease(t, s.x);
  t.note("stateAfter", v.state ?? null);
  if (state === "breaking") stillBreaking(s, v);
  expectRawStatus(what, res, { status: expected.status, code: expected.code });
  checkLeaseState(`after ${what}`, v, expected.after);
  if (action.action === "break-period" && state === "leased") {
    // The break period is measured by the server: x-ms-lease-time is the time left.
    const left = Number(res.headers["x-ms-lease-time"]);
    expectTrue(`x-ms-lease-time after ${what}: expected ${BREAK_PERIOD - 1}–${BREAK_PERIOD} s, got ${res.headers["x-ms-lease-time"] ?? "none"}`, left >= BREAK_PERIOD - 1 && left <= BREAK_PERIOD);
  }
  if (expected.holder) {
    const [holder, other] = expected.holder === "A" ? [s.a, s.other] : [s.other, s.a];
    const holds = () => expectHolder(t, s.x, `after ${what}`, holder, other);
    await (state === "breaking" ? whileBreaking(s, res, holds) : holds());
  }
}

const rows: RowDef[] = ACTIONS.flatMap((action) =>
  statesOf(action).map((state) => ({
    id: `${P}${action.action}/${state}`,
    title: `Lease Blob ${action.label}, lease ${stateLabel(state)}: ${claimText(TABLE[action.action][state]!)}`,
    level: "rest" as const,
    source: SOURCE,
    service: "blob" as const,
    waitSeconds: lapses(state) ? SHORTEST : undefined,
    run: (t: RowContext) => runCell(t, action, state),
  })),
);

rows.push(
  {
    id: `${P}proposed-id-not-guid`,
    title: "A proposed lease ID that is not a GUID is refused with 400",
    level: "rest",
    source: blobLeaseSource("Lease Blob, x-ms-proposed-lease-id (GUID string format)"),
    service: "blob",
    async run(t) {
      const b = await newBlockBlob(t);
      const x = blobTarget(b);
      t.step("acquire with a proposed ID that is not a GUID");
      const res = await leaseAction(t, x, "acquire", { proposed: "not-a-guid", duration: -1 });
      t.note("errorCode", res.errorCode ?? null);
      expectRawStatus("acquire with x-ms-proposed-lease-id: not-a-guid", res, { status: 400 });
      await expectLeaseState(t, x, "after the refused acquire", "available");
    },
  },
  {
    id: `${P}break-period-61`,
    title: "A break period of 61 s is refused with 400 (range 0–60)",
    level: "rest",
    source: blobLeaseSource("Lease Blob, x-ms-lease-break-period"),
    service: "blob",
    async run(t) {
      const b = await newBlockBlob(t);
      const x = blobTarget(b);
      const { id } = await holdLease(t, x, -1);
      t.step("break with period 60 on another blob is accepted");
      const ok = blobTarget(await newBlockBlob(t));
      await holdLease(t, ok, -1);
      expectRawStatus("break with x-ms-lease-break-period: 60", await leaseAction(t, ok, "break", { breakPeriod: 60 }), { status: 202 });
      t.step("break with period 61");
      const res = await leaseAction(t, x, "break", { breakPeriod: 61 });
      t.note("errorCode", res.errorCode ?? null);
      expectRawStatus("break with x-ms-lease-break-period: 61", res, { status: 400 });
      await expectLeaseState(t, x, "after the refused break", "leased");
      await expectHolder(t, x, "after the refused break", id, guid());
    },
  },
  {
    id: `${P}writes-on-breaking`,
    title: "A write on a Breaking lease needs the ID: without it 412 LeaseIdMissing (unchanged), with it succeeds",
    level: "rest",
    source: SOURCE,
    service: "blob",
    async run(t) {
      const s = await blobInState(t, "breaking");
      const c = t.blob.getContainerClient(s.b.containerName);
      const before = await blobSnapshot(s.b, c, "block");
      t.step("Put Blob without the ID while Breaking");
      stillBreaking(s, await readLease(t, s.x), 5000);
      await expectRefused("Put Blob without the lease ID on a Breaking lease", s.b.upload(CHANGED, CHANGED.length), { status: 412, code: "LeaseIdMissing" });
      expectSame("the blob after the refused write", await blobSnapshot(s.b, c, "block"), before);
      t.step("Put Blob with the ID while Breaking");
      await expectSucceeds("Put Blob with the lease ID on a Breaking lease", s.b.upload(CHANGED, CHANGED.length, { conditions: { leaseId: s.a } }));
      expectLeaseIdSent("Put Blob with the lease ID on a Breaking lease");
      expectEqual("content after the write with the ID", (await s.b.downloadToBuffer()).toString("utf8"), CHANGED);
    },
  },
  ...(["broken", "expired"] as const).map(
    (state): RowDef => ({
      id: `${P}writes-on-${state}`,
      title: `A write on a ${state === "broken" ? "Broken" : "Expired"} lease succeeds without the ID`,
      level: "rest",
      source: SOURCE,
      service: "blob",
      waitSeconds: state === "expired" ? SHORTEST : undefined,
      async run(t) {
        const s = await blobInState(t, state);
        t.step(`Put Blob without the ID on a ${state} lease`);
        await expectSucceeds(`Put Blob without a lease ID on a ${state} lease`, s.b.upload(CHANGED, CHANGED.length));
        expectEqual("content after the write", (await s.b.downloadToBuffer()).toString("utf8"), CHANGED);
      },
    }),
  ),
);

defineTable({ table: "L Lease actions × lease states", service: "blob" }, rows);

defineMatrix({
  key: "L-lease-states",
  title: "Lease actions × lease states (Lease Blob)",
  source: "REST: Lease Blob, outcomes of lease operations on blobs by lease state; A = the holder's ID, B = another ID",
  order: 32,
  columns: STATES.map((state) => ({
    key: state,
    header: state === "available" ? "Available" : state === "expired-modified" ? "Expired(A), then written" : `${state[0].toUpperCase()}${state.slice(1)}(A)`,
  })),
  rows: ACTIONS.map((action) => ({
    label: action.label,
    cells: Object.fromEntries(
      statesOf(action).map((state) => [state, { claim: claimText(TABLE[action.action][state]!), id: `${P}${action.action}/${state}` }]),
    ),
  })),
});

