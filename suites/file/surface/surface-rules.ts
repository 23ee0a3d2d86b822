// The cases each rule of catalogue S gives a pair (surface-claims.ts), and
// how a pair's row runs them: on one subject, in order, each request sent raw
// with the parameter on the wire (or left out), a refusal proven by reading
// the subject back unchanged, a permitted request by what it left behind.
import { expectEqual, expectRawStatus, expectSent, expectTrue } from "../../../fixtures/harness/assert.ts";
import type { RowContext } from "../../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../../fixtures/wire/raw.ts";
import { currentEvidence } from "../../../fixtures/wire/evidence.ts";
import { notAvailable, preconditionFailed } from "../../../fixtures/wire/signals.ts";
import type { Rule, SurfaceClaim } from "./surface-claims.ts";
import { answer, claimOn, type ClaimedAnswer } from "../../../fixtures/harness/claims.ts";
import type { LeaseStateOf } from "../../../model/answers.ts";
import { durable, leaseSubject, newSubject, pathOf, readState, type State, type Subject } from "./surface-kit.ts";
import { crcOf, opNamed, type SurfaceOp } from "./surface-ops.ts";

export interface Case {
  /** The value sent, for people: "another lease ID". */
  label: string;
  /** The parameter's value (null: left out). */
  value(s: Subject): string | null;
  /** Sent before the subject's lease is taken (default: the lease is held by A). */
  unleased?: boolean;
  /** Refused with this status and code (any code where none), the subject unchanged; otherwise permitted. */
  refused?: { status: number; code?: string };
  /** Disputed (catalogue S): the refusal, or the operation permitted; the row notes which, and fails anything else. */
  either?: true;
}

const A = (s: Subject) => s.holder;
const B = (s: Subject) => s.another;
const C = (s: Subject) => s.next;
const none = () => null;
const is = (v: string) => () => v;
const r412 = (code?: string) => ({ status: 412, ...(code ? { code } : {}) });
const r409 = (code: string) => ({ status: 409, code });
const r400 = { status: 400 };

function fileLeaseId(op: SurfaceOp): Case[] {
  return [
    { label: "another lease ID", value: B, refused: r412("LeaseIdMismatchWithFileOperation") },
    op.kind === "read" ? { label: "no lease ID", value: none } : { label: "no lease ID", value: none, refused: r412("LeaseIdMissing") },
    { label: "the holder's lease ID", value: A },
  ];
}

// A share answers the container's lease codes, and its lease locks every write
// of the share (catalogue S, Shares: every SDK's live recordings).
function shareLeaseId(op: SurfaceOp): Case[] {
  return [
    { label: "a lease ID on the unleased share", value: A, unleased: true, refused: r412("LeaseNotPresentWithContainerOperation") },
    { label: "another lease ID", value: B, refused: r412("LeaseIdMismatchWithContainerOperation") },
    op.kind === "read" ? { label: "no lease ID", value: none } : { label: "no lease ID", value: none, refused: r412("LeaseIdMissing") },
    { label: "the holder's lease ID", value: A },
  ];
}

const CASES: Record<Rule, (op: SurfaceOp) => Case[]> = {
  "file-lease-id": fileLeaseId,
  "share-lease-id": shareLeaseId,
  "source-lease-id": () => [
    { label: "no source lease ID", value: none, refused: r412("LeaseIdMissing") },
    { label: "another source lease ID", value: B, refused: r412("LeaseIdMismatchWithFileOperation") },
    { label: "the holder's source lease ID", value: A },
  ],
  "lease-action-id": () => [
    { label: "another lease ID", value: B, refused: r409("LeaseIdMismatchWithLeaseOperation") },
    { label: "the holder's lease ID", value: A },
  ],
  // Any authorized request may break a file's lease: what another ID draws is disputed (catalogue S, Files).
  "break-lease-id": () => [
    { label: "another lease ID", value: B, refused: r409("LeaseIdMismatchWithLeaseOperation"), either: true },
    { label: "the holder's lease ID", value: A },
  ],
  "proposed-lease-id": (op) =>
    op.operation.endsWith("(acquire)")
      ? [
          { label: "another proposed lease ID", value: B, refused: r409("LeaseAlreadyPresent") },
          { label: "the holder's own proposed lease ID", value: A },
        ]
      : [
          { label: "a proposed lease ID that is no GUID", value: is("not-a-guid"), refused: r400 },
          { label: "a new proposed lease ID", value: C },
        ],
  "lease-duration": () => [
    { label: "duration 14", value: is("14"), unleased: true, refused: r400 },
    { label: "duration 61", value: is("61"), unleased: true, refused: r400 },
    { label: "duration 15", value: is("15"), unleased: true },
    { label: "duration -1 (infinite)", value: is("-1"), unleased: true },
  ],
  "break-period": () => [
    { label: "break period 61", value: is("61"), refused: r400 },
    { label: "break period 0", value: is("0") },
  ],
  "crc64-match": () => [
    { label: "the CRC64 of other bytes", value: () => crcOf("other"), unleased: true, refused: r412("Crc64ConditionNotMet") },
    { label: "the CRC64 of the source range", value: () => crcOf("source"), unleased: true },
  ],
  "crc64-none-match": () => [
    { label: "the CRC64 of the source range", value: () => crcOf("source"), unleased: true, refused: r412("Crc64ConditionNotMet") },
    { label: "the CRC64 of other bytes", value: () => crcOf("other"), unleased: true },
  ],
};

export const casesOf = (c: SurfaceClaim): Case[] => CASES[c.rule](opNamed(c.op));

/** Whether a pair's row accepts a failing value permitted (a disputed case): its own row's cases say. */
export const mayPermitFailing = (c: SurfaceClaim): boolean => !c.coveredBy && casesOf(c).some((k) => k.either);

/** A pair's claim in words, from its cases. */
export function titleOf(c: SurfaceClaim): string {
  const op = opNamed(c.op);
  const on = op.resource === "share" ? "a leased share" : "a leased file";
  const refusal = (k: Case) => (k.refused ? `${k.refused.status}${k.refused.code ? " " + k.refused.code : ""}` : "succeeds");
  const cases = casesOf(c).map((k) => `${k.label} → ${k.either ? `${refusal(k)} or succeeds (disputed)` : refusal(k)}`);
  const where = casesOf(c).every((k) => k.unleased) ? "" : ` on ${on}`;
  return `${c.op} ${c.parameter}${where}: ${cases.join("; ")}; a refusal leaves it unchanged`;
}

/** Abort Copy File's subject: a copy of the big source onto the leased file, still pending (else PRECONDITION_FAILED). */
async function startPendingCopy(t: RowContext, s: Subject): Promise<void> {
  t.step("start a copy onto the leased file (setup)");
  const path = pathOf(s, s.path);
  const res = await t.raw("file", { method: "PUT", path, headers: { "x-ms-copy-source": s.source!.url, "x-ms-lease-id": s.holder } });
  expectRawStatus("Copy File (setup)", res, { status: 202 });
  s.copyId = res.headers["x-ms-copy-id"];
  const status = (await t.raw("file", { method: "HEAD", path })).headers["x-ms-copy-status"];
  if (!s.copyId || res.headers["x-ms-copy-status"] !== "pending" || status !== "pending") {
    preconditionFailed(`no pending copy to abort: the target completed the copy at once (copy status ${status ?? "none"})`);
  }
}

/** Waits until the subject's copy is no longer pending (the server's x-ms-copy-status). */
async function copySettled(t: RowContext, s: Subject): Promise<void> {
  await t.waitFor(
    "the copy to leave the pending state",
    async () =>
      (await t.raw("file", { method: "HEAD", path: pathOf(s, s.path) })).headers["x-ms-copy-status"] === "pending" ? undefined : true,
    { timeoutMs: 30_000, intervalMs: 250 },
  );
}

/** Takes the subject's lease (a target that will not lease a file on an NFS share: NOT_AVAILABLE). */
async function takeLease(t: RowContext, op: SurfaceOp, s: Subject): Promise<void> {
  try {
    await leaseSubject(t, s, op.resource, op.leaseDuration);
  } catch (err) {
    if (op.nfs && (err as { name?: string }).name === "AssertionError") {
      notAvailable(`the target does not lease a file on an NFS share (${(err as Error).message}); the operation is NFS-only`);
    }
    throw err;
  }
  if (op.afterLease === "pending-copy") await startPendingCopy(t, s);
}

async function runCase(t: RowContext, c: SurfaceClaim, op: SurfaceOp, s: Subject, k: Case, round: number, read: () => Promise<State>) {
  const value = k.value(s);
  const what = `${op.operation} with ${k.label}`;
  const before = await read();
  t.step(what);
  const res = await t.raw("file", op.request(s, { [c.parameter]: value }, round));
  if (value !== null) expectSent(what, currentEvidence()!.exchanges.at(-1)!.requestHeaders, c.parameter);
  if (k.either) {
    t.note(`${what} (disputed: ${k.refused!.status} or ${op.ok})`, `${res.status} ${res.errorCode ?? ""}`.trim());
    if (res.status === op.ok) {
      s.leasedNow = false;
      return expectEffect(t, c, op, s, res, value, round, read, what);
    }
  }
  if (k.refused) {
    expectRawStatus(what, res, k.refused);
    if (!k.refused.code) t.note(`${what}: refused with`, `${res.status} ${res.errorCode ?? ""}`.trim());
    const after = await read();
    expectEqual(`${what}, refused: the ${op.resource} read back`, durable(after), durable(before));
    expectTrue(`${what}, refused: the ${op.resource}'s ETag changed`, after.etag === before.etag, {
      expected: "the same ETag",
      got: "another",
    });
    return;
  }
  expectRawStatus(what, res, { status: op.ok });
  await expectEffect(t, c, op, s, res, value, round, read, what);
}

/** A permitted request: what it left behind, read back. */
async function expectEffect(
  t: RowContext,
  c: SurfaceClaim,
  op: SurfaceOp,
  s: Subject,
  res: RawResponse,
  value: string | null,
  round: number,
  read: () => Promise<State>,
  what: string,
): Promise<void> {
  if (op.settles) await copySettled(t, s);
  const after = await read();
  const holds = op.effect.holds({ after, res, s, parameter: c.parameter, value, round });
  expectTrue(`${what}: expected ${op.effect.what}`, holds, { expected: op.effect.what, got: "otherwise" });
}

/** Runs a pair's cases on one subject, in order. */
export async function runPair(t: RowContext, c: SurfaceClaim): Promise<void> {
  const op = opNamed(c.op);
  const s = await newSubject(t, op);
  const read = () => readState(t, s, { resource: op.resource, ...op.reads });
  let round = 0;
  for (const k of casesOf(c)) {
    if (!k.unleased && !s.leasedNow) await takeLease(t, op, s);
    await runCase(t, c, op, s, k, ++round, read);
  }
}

/** A case's value in the corpus's vocabulary (model/answers.ts). */
function valueOfCase(c: SurfaceClaim, k: Case, s: Subject): string | undefined {
  const v = k.value(s);
  if (v === null) return undefined;
  if (c.parameter.endsWith("-crc64")) return k.refused ? "fails" : "holds";
  if (c.parameter === "x-ms-lease-duration")
    return v === "-1" ? "infinite" : Number(v) >= 15 && Number(v) <= 60 ? "in-range" : "out-of-range";
  if (c.parameter === "x-ms-lease-break-period")
    return v === "0" ? "zero" : Number(v) >= 1 && Number(v) <= 60 ? "in-range" : "out-of-range";
  if (c.parameter === "x-ms-proposed-lease-id") return v === "not-a-guid" ? "not-guid" : v === s.holder ? "holder" : "other";
  return v === s.holder && !k.unleased ? "holder" : "other";
}

const ANY_FILE: Subject = {
  share: "s",
  path: ["f"],
  other: ["g"],
  leased: ["f"],
  holder: "h",
  another: "o",
  next: "n",
  leasedNow: false,
  source: { path: ["src"], url: "https://a.file.core.windows.net/s/src", content: "" },
  copyId: "0",
  url: (segs) => `https://a.file.core.windows.net/s/${segs.join("/")}`,
};

/** What a pair's row claims Azure answers, as data (fixtures/harness/claims.ts): each case's request and its answer. */
export function answersOfPair(c: SurfaceClaim): ClaimedAnswer[] {
  const op = opNamed(c.op);
  return casesOf(c).map((k) => {
    const value = valueOfCase(c, k, ANY_FILE);
    const params: Record<string, string> = value === undefined ? {} : { [c.parameter]: value };
    const lease = k.unleased ? (["available", "released"] as LeaseStateOf[]) : (["leased"] as LeaseStateOf[]);
    const refused = k.refused ? [answer(k.refused.status, ...(k.refused.code ? [k.refused.code] : []))] : [];
    return claimOn(
      "file",
      op.request(ANY_FILE, {}, 1),
      { params, lease },
      k.refused ? (k.either ? [...refused, answer(op.ok)] : refused) : [answer(op.ok)],
    );
  });
}
