// How the share lease rows (share-lease.rows.ts) run: a share put in a lease
// state, a cell of the blob lease state table sent to it, the ranges, and
// what a share lease locks (deletion only, until it is broken).
import { expectEqual, expectRawStatus, expectTrue } from "../../../fixtures/harness/assert.ts";
import type { RowContext } from "../../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../../fixtures/wire/raw.ts";
import { ACTION_LABEL, BREAK_PERIOD, onState, TABLE, type Action } from "../../blob/lease-table.ts";
import { leaseSubject, newSubject, readState, sharePath, type Headers, headers as present, type Subject } from "./surface-kit.ts";

/** The states a share lease is put in for the table (the expired column needs a 15 s wait and is the blob rows'). */
export const SHARE_STATES = ["available", "leased", "breaking", "broken"] as const;
/** The break period that puts a lease in the breaking state for the rest of a row. */
const BREAKING_PERIOD = 60;

const lease = (t: RowContext, s: Subject, h: Headers): Promise<RawResponse> =>
  t.raw("file", { method: "PUT", path: sharePath(s), query: { restype: "share", comp: "lease" }, headers: present(h) });

/** Whether the share's lease answers to `id`: Get Share Properties with it answers 200 only for the holder's. */
async function answersTo(t: RowContext, s: Subject, id: string): Promise<boolean> {
  return (
    (await t.raw("file", { method: "GET", path: sharePath(s), query: { restype: "share" }, headers: { "x-ms-lease-id": id } })).status ===
    200
  );
}

const leaseState = async (t: RowContext, s: Subject) => (await readState(t, s, { resource: "share" })).leaseState;

/** A share whose lease (A's) is in `state`. */
async function shareIn(t: RowContext, state: (typeof SHARE_STATES)[number]): Promise<Subject> {
  const s = await newSubject(t, { resource: "share" });
  if (state === "available") return s;
  await leaseSubject(t, s, "share");
  if (state === "leased") return s;
  t.step(`break the lease (period ${state === "breaking" ? BREAKING_PERIOD : 0}, setup)`);
  const res = await lease(t, s, {
    "x-ms-lease-action": "break",
    "x-ms-lease-break-period": String(state === "breaking" ? BREAKING_PERIOD : 0),
  });
  expectRawStatus("Lease Share break (setup)", res, { status: 202 });
  expectEqual("the lease state after the break (setup)", await leaseState(t, s), state);
  return s;
}

/** The request of a table action; A = the holder, B = another ID, C = a third. */
function actionHeaders(action: Action, s: Subject): Headers {
  const acquire = (id: string) => ({ "x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1", "x-ms-proposed-lease-id": id });
  const byId = (verb: string, id: string, proposed?: string) => ({
    "x-ms-lease-action": verb,
    "x-ms-lease-id": id,
    ...(proposed ? { "x-ms-proposed-lease-id": proposed } : {}),
  });
  const HEADERS: Record<Action, Headers> = {
    acquire: acquire(s.another),
    "acquire-same": acquire(s.holder),
    renew: byId("renew", s.holder),
    "renew-other": byId("renew", s.another),
    change: byId("change", s.holder, s.another),
    "change-other": byId("change", s.another, s.next),
    release: byId("release", s.holder),
    "release-other": byId("release", s.another),
    "break-0": { "x-ms-lease-action": "break", "x-ms-lease-break-period": "0" },
    "break-period": { "x-ms-lease-action": "break", "x-ms-lease-break-period": String(BREAK_PERIOD) },
  };
  return HEADERS[action];
}

/** file/share-lease/state/<action>/<state>: the blob table's cell, on a share. */
export async function cell(t: RowContext, action: Action, state: (typeof SHARE_STATES)[number]): Promise<void> {
  const o = TABLE[action][state];
  const s = await shareIn(t, state);
  const what = `Lease Share ${ACTION_LABEL[action]} on ${onState(state)}`;
  t.step(what);
  const res = await lease(t, s, actionHeaders(action, s));
  expectRawStatus(what, res, { status: o.status, ...(o.code ? { code: o.code } : {}) });
  if (!o.code && res.status >= 400) t.note(`${what}: refused with`, `${res.status} ${res.errorCode ?? ""}`.trim());
  const after = await leaseState(t, s);
  const allowed = Array.isArray(o.after) ? o.after : [o.after];
  expectTrue(
    `${what}: the lease state read back is ${after ?? "none"}, not ${allowed.join(" or ")}`,
    (allowed as string[]).includes(after ?? ""),
    {
      expected: allowed.join(" or "),
      got: after ?? "none",
    },
  );
  if (o.holder) {
    const id = o.holder === "A" ? s.holder : s.another;
    expectTrue(`${what}: the lease no longer answers to ${o.holder}'s ID`, await answersTo(t, s, id), {
      expected: `held by ${o.holder}`,
      got: "not",
    });
  }
}

/** Sends an acquire or a break with a value out of range and in range; the lease read back after each. */
export async function range(t: RowContext, kind: "duration" | "break-period"): Promise<void> {
  const s = await newSubject(t, { resource: "share" });
  const duration = kind === "duration";
  if (!duration) await leaseSubject(t, s, "share");
  const send = (value: string) =>
    lease(
      t,
      s,
      duration
        ? { "x-ms-lease-action": "acquire", "x-ms-lease-duration": value, "x-ms-proposed-lease-id": s.holder }
        : { "x-ms-lease-action": "break", "x-ms-lease-break-period": value },
    );
  const refusedState = duration ? "available" : "leased";
  for (const value of duration ? ["14", "61", "0"] : ["61", "-1"]) {
    t.step(`${kind} ${value}`);
    expectRawStatus(`Lease Share ${duration ? "acquire with duration" : "break with period"} ${value}`, await send(value), { status: 400 });
    expectEqual(`the lease state after the refused ${kind} ${value}`, await leaseState(t, s), refusedState);
  }
  const held: [string, string, string][] = duration
    ? [
        ["15", "leased", "fixed"],
        ["60", "leased", "fixed"],
        ["-1", "leased", "infinite"],
      ]
    : [
        [String(BREAKING_PERIOD), "breaking", ""],
        ["0", "broken", ""],
      ];
  for (const [value, state, length] of held) {
    t.step(`${kind} ${value}`);
    const res = await send(value);
    expectRawStatus(`Lease Share ${duration ? "acquire with duration" : "break with period"} ${value}`, res, {
      status: duration ? 201 : 202,
    });
    const read = await readState(t, s, { resource: "share" });
    expectEqual(`the lease after ${kind} ${value} (state, duration)`, [read.leaseState, read.leaseDuration ?? ""], [state, length]);
    if (!duration) expectEqual(`Lease Share break with period ${value}: x-ms-lease-time`, res.headers["x-ms-lease-time"], value);
    else expectRawStatus(`Lease Share release after duration ${value}`, await lease(t, s, releaseBy(s.holder)), { status: 200 });
  }
}

const releaseBy = (id: string): Headers => ({ "x-ms-lease-action": "release", "x-ms-lease-id": id });

/** Delete Share without a lease ID: refused (412 LeaseIdMissing) while the lease is leased or breaking, the share kept; once broken, deleted. */
export async function deleteRequiresId(t: RowContext): Promise<void> {
  const s = await shareIn(t, "leased");
  const del = () => t.raw("file", { method: "DELETE", path: sharePath(s), query: { restype: "share" } });
  for (const state of ["leased", "breaking"]) {
    if (state === "breaking") {
      t.step(`break the lease (period ${BREAKING_PERIOD})`);
      expectRawStatus(
        "Lease Share break",
        await lease(t, s, { "x-ms-lease-action": "break", "x-ms-lease-break-period": String(BREAKING_PERIOD) }),
        {
          status: 202,
        },
      );
    }
    const before = await readState(t, s, { resource: "share" });
    t.step(`Delete Share without a lease ID, the lease ${state}`);
    expectRawStatus(`Delete Share without a lease ID on a ${state} lease`, await del(), { status: 412, code: "LeaseIdMissing" });
    const after = await readState(t, s, { resource: "share" });
    expectEqual(
      `the share after the refused delete (${state} lease): exists, metadata, lease`,
      [after.exists, after.metadata, after.leaseState],
      [true, before.metadata, state],
    );
  }
  t.step("break the lease (period 0), then Delete Share without a lease ID");
  expectRawStatus("Lease Share break (period 0)", await lease(t, s, { "x-ms-lease-action": "break", "x-ms-lease-break-period": "0" }), {
    status: 202,
  });
  expectRawStatus("Delete Share without a lease ID on a broken lease", await del(), { status: 202 });
  expectEqual("the share after the delete: exists", (await readState(t, s, { resource: "share" })).exists, false);
}

/** Every share operation but Delete Share succeeds on a leased share without the lease ID (writes read back). */
export async function othersShared(t: RowContext): Promise<void> {
  const s = await shareIn(t, "leased");
  const at = (comp: string | undefined, method: string, h: Record<string, string> = {}, body?: string) =>
    t.raw("file", {
      method,
      path: sharePath(s),
      query: { restype: "share", ...(comp ? { comp } : {}) },
      headers: h,
      ...(body ? { body } : {}),
    });
  const ops: [string, () => Promise<RawResponse>][] = [
    ["Get Share Properties", () => at(undefined, "GET")],
    ["Get Share Metadata", () => at("metadata", "GET")],
    ["Set Share Metadata", () => at("metadata", "PUT", { "x-ms-meta-state": "shared" })],
    ["Set Share Properties", () => at("properties", "PUT", { "x-ms-share-quota": "11" })],
    ["Get Share ACL", () => at("acl", "GET")],
    ["Set Share ACL", () => at("acl", "PUT", { "content-type": "application/xml" }, SHARED_ACL)],
    ["Get Share Stats", () => at("stats", "GET")],
  ];
  for (const [what, send] of ops) {
    t.step(`${what} without the lease ID`);
    const res = await send();
    expectTrue(`${what} on a leased share without the lease ID answered ${res.status} ${res.errorCode ?? ""}`.trim(), res.status === 200, {
      expected: "200",
      got: `${res.status} ${res.errorCode ?? ""}`.trim(),
    });
  }
  const after = await readState(t, s, { resource: "share", acl: true });
  expectEqual(
    "the share after the writes (metadata, quota, ACL, lease)",
    [after.metadata, after.quota, after.acl, after.leaseState],
    [{ state: "shared" }, "11", ["shared"], "leased"],
  );
}

const SHARED_ACL =
  '<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers><SignedIdentifier><Id>shared</Id><AccessPolicy><Start>2030-01-01T00:00:00.0000000Z</Start><Expiry>2030-01-02T00:00:00.0000000Z</Expiry><Permission>r</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>';

/** After release, renew with the released ID → 409 and the share stays unleased; another client acquires at once. */
export async function renewAfterRelease(t: RowContext): Promise<void> {
  const s = await newSubject(t, { resource: "share" });
  await leaseSubject(t, s, "share", 15);
  t.step("release A");
  expectRawStatus("Lease Share release", await lease(t, s, releaseBy(s.holder)), { status: 200 });
  t.step("renew A");
  const renew = await lease(t, s, { "x-ms-lease-action": "renew", "x-ms-lease-id": s.holder });
  expectRawStatus("Lease Share renew after release", renew, { status: 409 });
  t.note("renew after release: refused with", `${renew.status} ${renew.errorCode ?? ""}`.trim());
  expectEqual("the lease state after the refused renew", await leaseState(t, s), "available");
  t.step("acquire B");
  const acquire = lease(t, s, { "x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1", "x-ms-proposed-lease-id": s.another });
  expectRawStatus("Lease Share acquire by B after the release", await acquire, { status: 201 });
  expectTrue("the lease answers to B's ID", await answersTo(t, s, s.another), { expected: "held by B", got: "not" });
}
