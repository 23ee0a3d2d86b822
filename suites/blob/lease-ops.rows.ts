// L, operations that honour a blob lease (the seed's list): each operation on
// a leased blob without the ID, with the right ID, with a wrong ID, and with an
// ID on an unleased blob, from the table in lease-ops-claims.ts. Refused
// writes are read back unchanged.
import { expectEqual, expectRawStatus, expectRefused, expectSame, expectSucceeds } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { defineMatrix, defineTable } from "../../fixtures/harness/registry.ts";
import { blobSnapshot, newBlockBlob, newPageBlob } from "./blob-kit.ts";
import { blobLeaseSource, blobTarget, guid, holdLease, leaseAction } from "./lease-kit.ts";
import { expectLeaseIdSent, expectLeaseState } from "./lease-checks.ts";
import { op as blobOp } from "./operations.ts";
import { surfacePairs } from "./operation-pairs.ts";
import { answer, claimOn } from "../../fixtures/harness/claims.ts";
import { answersOf, CASE_TEXT, CASES, claim, leaseOpAt, OPS, P, type Case, type Fixture, type LeaseOp } from "./lease-ops-claims.ts";

async function fixture(t: RowContext, op: LeaseOp): Promise<Fixture> {
  const c = await t.newContainer();
  const b = op.type === "page" ? await newPageBlob(t, c) : await newBlockBlob(t, "original", c);
  const f: Fixture = { c, b, type: op.type, x: blobTarget(b) };
  if (op.prepare) {
    t.step(`prepare the blob for ${op.operation} (setup)`);
    await op.prepare(t, f);
  }
  return f;
}

/** Lease Blob itself: acquire without an ID, renew with the right, a wrong, or an ID on an unleased blob. */
async function runLeaseBlob(t: RowContext, cs: Case): Promise<void> {
  const b = await newBlockBlob(t);
  const x = blobTarget(b);
  const a = cs === "unleased-with-id" ? guid() : (await holdLease(t, x, -1)).id;
  t.step(`Lease Blob ${CASE_TEXT[cs]}`);
  if (cs === "without-id") {
    expectRawStatus("Lease Blob acquire without an ID on a leased blob", await leaseAction(t, x, "acquire", { duration: -1 }), {
      status: 409,
      code: "LeaseAlreadyPresent",
    });
    await expectLeaseState(t, x, "after the refused acquire", "leased");
  } else if (cs === "with-id") {
    expectRawStatus("Lease Blob renew with the lease ID", await leaseAction(t, x, "renew", { id: a }), { status: 200 });
    await expectLeaseState(t, x, "after the renew", "leased");
  } else {
    const res = await leaseAction(t, x, "renew", { id: cs === "wrong-id" ? guid() : a });
    t.note("errorCode", res.errorCode ?? null);
    expectRawStatus(`Lease Blob renew ${CASE_TEXT[cs]}`, res, { status: 409 });
    await expectLeaseState(t, x, "after the refused renew", cs === "wrong-id" ? "leased" : "available");
  }
}

async function runCase(t: RowContext, op: LeaseOp, cs: Case, opts: { duration?: number } = {}): Promise<void> {
  if (op.kind === "lease") return runLeaseBlob(t, cs);
  const f = await fixture(t, op);
  const holder = cs === "unleased-with-id" ? undefined : (await holdLease(t, f.x, opts.duration ?? -1)).id;
  if (op.afterLease) await op.afterLease(t, f, holder);
  const sent = { "without-id": undefined, "with-id": holder, "wrong-id": guid(), "unleased-with-id": guid() }[cs];
  const before = op.kind === "read" ? undefined : await blobSnapshot(f.b, f.c, f.type);
  const expected =
    opts.duration !== undefined && opts.duration !== -1 ? { ok: false, status: 412, code: "InfiniteLeaseDurationRequired" } : claim(op, cs);
  const what = `${op.operation} ${CASE_TEXT[cs]}${opts.duration ? ` (${opts.duration} s lease)` : ""}`;
  t.step(what);
  if (expected.ok) {
    const result = await expectSucceeds(what, op.call(t, f, sent));
    if (sent) expectLeaseIdSent(what);
    if (op.answered) op.answered(result);
    if (op.kind === "abort") {
      expectEqual("copy status after Abort Copy Blob", (await f.b.getProperties()).copyStatus, "aborted");
    } else if (before) {
      op.applied!(await blobSnapshot(f.b, f.c, f.type), before);
    }
  } else {
    await expectRefused(what, op.call(t, f, sent), { status: expected.status!, code: expected.code });
    if (sent) expectLeaseIdSent(what);
    if (before) {
      t.step("read the blob back");
      expectSame(`the blob after the refused ${op.operation}`, await blobSnapshot(f.b, f.c, f.type), before);
    }
  }
  if (holder && !(op.slug === "delete-blob" && expected.ok)) await expectLeaseState(t, f.x, `after ${what}`, "leased");
}

const rows: RowDef[] = OPS.flatMap((op) =>
  CASES.map((cs) => ({
    id: `${P}${op.slug}/${cs}`,
    claim: leaseOpAt(op.slug),
    title: `${op.operation} ${CASE_TEXT[cs]}: ${claim(op, cs).text}`,
    level: cs === "without-id" || cs === "with-id" ? ("doc" as const) : ("rest" as const),
    source: blobLeaseSource(op.rest),
    service: "blob" as const,
    // The lease ID a row sends is its operation's pair of catalogue S, declared so the surface names the row
    // even where a run cannot send it (Abort Copy Blob's goes out only against a copy still pending; Azurite
    // completes copies at once). Lease Blob's own ID is the lease tables'.
    ...(cs !== "without-id" && op.kind !== "lease" ? { surface: surfacePairs(blobOp(op.slug), "x-ms-lease-id") } : {}),
    matrix: [{ section: "L-blob-lease-ops", row: op.operation, column: cs, claim: claim(op, cs).text }],
    answers: answersOf(op, cs),
    run: (t: RowContext) => runCase(t, op, cs),
  })),
);

rows.push({
  id: "blob/lease-ops/copy-blob/finite-lease",
  title: "Copy Blob onto a destination with a finite lease, with its ID: 412 InfiniteLeaseDurationRequired",
  level: "rest",
  source: blobLeaseSource("Copy Blob; error code InfiniteLeaseDurationRequired"),
  service: "blob",
  answers: [
    claimOn(
      "blob",
      blobOp("copy-blob").request({ container: "c", blob: "b", sourceUrl: "https://a.blob.core.windows.net/c/s" }),
      { params: { "x-ms-lease-id": "holder" }, lease: "leased", leaseDuration: "fixed" },
      [answer(412, "InfiniteLeaseDurationRequired")],
    ),
  ],
  run: (t) =>
    runCase(
      t,
      OPS.find((o) => o.slug === "copy-blob")!,
      "with-id",
      { duration: 60 },
    ),
});

defineTable({ table: "L Operations that honour a blob lease", service: "blob" }, rows);

defineMatrix({
  key: "L-blob-lease-ops",
  title: "Operations that honour a blob lease",
  source: "seed article, pessimistic concurrency for blobs (list of operations); REST: error codes",
  order: 30,
  columns: CASES.map((cs) => ({
    key: cs,
    header: {
      "without-id": "Leased, without ID",
      "with-id": "Leased, right ID",
      "wrong-id": "Leased, wrong ID",
      "unleased-with-id": "ID on unleased blob",
    }[cs],
  })),
  rowOrder: OPS.map((op) => op.operation),
});
