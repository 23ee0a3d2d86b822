// How the share lease rows (share-lease.rows.ts) run: a share put in a lease
// state, a cell of the blob lease state table sent to it, the ranges, and
// how far a share lease reaches (catalogue S, Shares): it locks the share's
// writes until it is broken, leaves its reads and its files alone, and its
// holder's ID is lost once it is broken.
import { expectEqual, expectRawStatus, expectTrue } from "../../../fixtures/harness/assert.ts";
import type { RowContext } from "../../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../../fixtures/wire/raw.ts";
import { ACTION_LABEL, BREAK_PERIOD, onState, TABLE, type Action } from "../../blob/lease-table.ts";
import { metadataOf } from "../../blob/rest-kit.ts";
import { SIZE } from "../file-kit.ts";
import {
  CONTENT,
  durable,
  leaseSubject,
  newSubject,
  pathOf,
  readState,
  sharePath,
  type Headers,
  headers as present,
  type Subject,
} from "./surface-kit.ts";

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
    if (state === "breaking") await breakFor(t, s, BREAKING_PERIOD);
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

const SHARED_ACL =
  '<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers><SignedIdentifier><Id>shared</Id><AccessPolicy><Start>2030-01-01T00:00:00.0000000Z</Start><Expiry>2030-01-02T00:00:00.0000000Z</Expiry><Permission>r</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>';

type ShareCall = (t: RowContext, s: Subject, h?: Record<string, string>) => Promise<RawResponse>;
const at =
  (comp: string | undefined, method: string, base: Record<string, string> = {}, body?: string): ShareCall =>
  (t, s, h = {}) =>
    t.raw("file", {
      method,
      path: sharePath(s),
      query: { restype: "share", ...(comp ? { comp } : {}) },
      headers: { ...base, ...h },
      ...(body ? { body } : {}),
    });

/** The share's reads, which a share lease leaves open (catalogue S, Shares). */
const READS: [string, ShareCall][] = [
  ["Get Share Properties", at(undefined, "GET")],
  ["Get Share Metadata", at("metadata", "GET")],
  ["Get Share ACL", at("acl", "GET")],
  ["Get Share Stats", at("stats", "GET")],
];

/** The share's set operations, which a share lease locks (live: Set Share Metadata → 412 LeaseIdMissing), each with the value it sets. */
const SETS: { what: string; send: ShareCall; applied: (st: Awaited<ReturnType<typeof readState>>) => boolean }[] = [
  {
    what: "Set Share Metadata",
    send: at("metadata", "PUT", { "x-ms-meta-state": "set" }),
    applied: (st) => st.metadata?.state === "set",
  },
  { what: "Set Share Properties", send: at("properties", "PUT", { "x-ms-share-quota": "11" }), applied: (st) => st.quota === "11" },
  {
    what: "Set Share ACL",
    send: at("acl", "PUT", { "content-type": "application/xml" }, SHARED_ACL),
    applied: (st) => JSON.stringify(st.acl) === JSON.stringify(["shared"]),
  },
];

/** file/share-lease/others-shared: the share's reads succeed on a leased share without the lease ID, and the lease stays. */
export async function othersShared(t: RowContext): Promise<void> {
  const s = await shareIn(t, "leased");
  for (const [what, send] of READS) {
    t.step(`${what} without the lease ID`);
    const res = await send(t, s);
    expectRawStatus(`${what} on a leased share without the lease ID`, res, { status: 200 });
  }
  expectEqual("the lease after the reads", await leaseState(t, s), "leased");
}

/**
 * file/share-lease/set-requires-id: on a leased or breaking share, each set
 * operation without the ID → 412 LeaseIdMissing and the share reads back
 * unchanged; with the holder's ID → applied.
 */
export async function setRequiresId(t: RowContext): Promise<void> {
  const s = await shareIn(t, "leased");
  for (const state of ["leased", "breaking"] as const) {
    if (state === "breaking") await breakFor(t, s, BREAKING_PERIOD);
    for (const op of SETS) {
      const before = await readState(t, s, { resource: "share", acl: true });
      t.step(`${op.what} without the lease ID, the lease ${state}`);
      expectRawStatus(`${op.what} on a ${state} share without the lease ID`, await op.send(t, s), { status: 412, code: "LeaseIdMissing" });
      const after = await readState(t, s, { resource: "share", acl: true });
      expectEqual(`${op.what} refused (${state}): the share read back`, durable(after), durable(before));
      expectTrue(`${op.what} refused (${state}): the share's ETag changed`, after.etag === before.etag, {
        expected: "the same ETag",
        got: "another",
      });
    }
  }
  for (const op of SETS) {
    t.step(`${op.what} with the holder's lease ID, the lease breaking`);
    expectRawStatus(`${op.what} with the holder's lease ID`, await op.send(t, s, { "x-ms-lease-id": s.holder }), { status: 200 });
    const after = await readState(t, s, { resource: "share", acl: true });
    expectTrue(`${op.what} with the holder's lease ID: the value sent is not read back`, op.applied(after), {
      expected: "applied",
      got: "not applied",
    });
  }
}

/** file/share-lease/lost-after-break: the holder's ID after its lease was broken → 412 LeaseLost, on a read and on a write (unchanged). */
export async function lostAfterBreak(t: RowContext): Promise<void> {
  const s = await shareIn(t, "broken");
  const withA = { "x-ms-lease-id": s.holder };
  t.step("Get Share Properties with the broken lease's ID");
  expectRawStatus("Get Share Properties with the holder's ID after a break", await READS[0][1](t, s, withA), {
    status: 412,
    code: "LeaseLost",
  });
  const before = await readState(t, s, { resource: "share", acl: true });
  t.step("Set Share Metadata with the broken lease's ID");
  expectRawStatus("Set Share Metadata with the holder's ID after a break", await SETS[0].send(t, s, withA), {
    status: 412,
    code: "LeaseLost",
  });
  const after = await readState(t, s, { resource: "share", acl: true });
  expectEqual("Set Share Metadata refused (LeaseLost): the share read back", durable(after), durable(before));
}

/**
 * file/share-lease/files-unlocked: a share lease leaves the share's files and
 * directories alone: Create Directory, Create File, Put Range, Set File
 * Metadata, Delete File and Delete Directory without any lease ID succeed in a
 * leased share and read back applied; the share stays leased.
 */
export async function filesUnlocked(t: RowContext): Promise<void> {
  const s = await shareIn(t, "leased");
  const dir = [t.name("d")];
  const file = [...dir, t.name("f")];
  const send = (what: string, req: Parameters<RowContext["raw"]>[1], status: number) => async () => {
    t.step(`${what} without a lease ID in the leased share`);
    expectRawStatus(`${what} in a leased share without a lease ID`, await t.raw("file", req), { status });
  };
  const exists = async (segs: string[], directory: boolean) =>
    (
      await t.raw("file", {
        method: directory ? "GET" : "HEAD",
        path: pathOf(s, segs),
        ...(directory ? { query: { restype: "directory" } } : {}),
      })
    ).status === 200;
  await send("Create Directory", { method: "PUT", path: pathOf(s, dir), query: { restype: "directory" } }, 201)();
  expectTrue("Create Directory in the leased share: the directory is not read back", await exists(dir, true));
  await send(
    "Create File",
    { method: "PUT", path: pathOf(s, file), headers: { "x-ms-type": "file", "x-ms-content-length": String(SIZE) } },
    201,
  )();
  await send(
    "Put Range",
    {
      method: "PUT",
      path: pathOf(s, file),
      query: { comp: "range" },
      headers: { "x-ms-range": `bytes=0-${SIZE - 1}`, "x-ms-write": "update" },
      body: CONTENT,
    },
    201,
  )();
  await send(
    "Set File Metadata",
    { method: "PUT", path: pathOf(s, file), query: { comp: "metadata" }, headers: { "x-ms-meta-state": "free" } },
    200,
  )();
  const read = await t.raw("file", { method: "GET", path: pathOf(s, file) });
  expectRawStatus("Get File (read back)", read, { status: 200 });
  expectEqual(
    "the file written in the leased share (content, metadata)",
    [read.body, metadataOf(read.headers)],
    [CONTENT, { state: "free" }],
  );
  await send("Delete File", { method: "DELETE", path: pathOf(s, file) }, 202)();
  expectTrue("Delete File in the leased share: the file is still read back", !(await exists(file, false)));
  await send("Delete Directory", { method: "DELETE", path: pathOf(s, dir), query: { restype: "directory" } }, 202)();
  expectTrue("Delete Directory in the leased share: the directory is still read back", !(await exists(dir, true)));
  expectEqual("the share's lease after the file writes", await leaseState(t, s), "leased");
}

/** Breaks the share's lease with a period (a step of the row). */
async function breakFor(t: RowContext, s: Subject, period: number): Promise<void> {
  t.step(`break the lease (period ${period})`);
  expectRawStatus("Lease Share break", await lease(t, s, { "x-ms-lease-action": "break", "x-ms-lease-break-period": String(period) }), {
    status: 202,
  });
}

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
