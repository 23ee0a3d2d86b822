// L, container leases: Delete Container needs the lease ID, every other
// container operation is shared; each of the seed's container operations
// accepts the lease ID (right ID succeeds, wrong ID refused, an ID on an
// unleased container refused); lease actions leave the container's ETag
// alone; renew extends a lease and release frees it. Sent raw, so exactly the
// lease headers the claim names go on the wire. The timed rows (expiry-frees,
// break-period-holds) are windows (suites/window-kit.ts), the
// action × state cells lease-state-container.rows.ts.
import type { ContainerClient } from "@azure/storage-blob";
import { expectEqual, expectRawStatus, expectSent, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { currentEvidence } from "../../fixtures/wire/evidence.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { defineMatrix, defineTable } from "../../fixtures/harness/registry.ts";
import { answer, claimOn, SUCCESS } from "../../fixtures/harness/claims.ts";
import type { AcceptedAnswer } from "../../model/answers.ts";
import { op as record } from "./operations.ts";
import { containerLeaseOpAt, deleteRefused, OPS, req, view, type ContainerOp } from "./container-lease-claims.ts";
import { containerLeaseSource, containerTarget, guid, holdLease, leaseAction, readLease, SHORTEST, type LeaseTarget } from "./lease-kit.ts";
import { expectHolder, expectLeaseState, renewedPastOriginalEnd } from "./lease-checks.ts";

const P = "blob/container-lease/";

/** A container with metadata state=original, and (unless told otherwise) an infinite lease held by A. */
async function leasedContainer(t: RowContext, leased = true): Promise<{ c: ContainerClient; x: LeaseTarget; a: string }> {
  const c = await t.newContainer();
  await c.setMetadata({ state: "original" });
  const x = containerTarget(c);
  const a = leased ? (await holdLease(t, x, -1)).id : guid();
  return { c, x, a };
}

function lastSent(what: string): void {
  const store = currentEvidence();
  const ex = store?.exchanges.find((e) => e.step === store.step);
  expectTrue(`${what}: no exchange recorded`, ex !== undefined);
  expectSent(what, ex!.requestHeaders, "x-ms-lease-id");
}

async function runWithId(t: RowContext, op: ContainerOp): Promise<void> {
  const { x, a } = await leasedContainer(t);
  const before = await view(t, x);
  const what = `${op.operation} on a leased container with the lease ID`;
  t.step(what);
  const res = await op.call(t, x, a);
  lastSent(what);
  expectRawStatus(what, res, { status: op.okStatus });
  await op.took(t, x, res, before);
  if (op.slug !== "delete-container") await expectLeaseState(t, x, `after ${what}`, "leased");
}

async function runWrongId(t: RowContext, op: ContainerOp): Promise<void> {
  const { x, a } = await leasedContainer(t);
  const before = await view(t, x);
  const what = `${op.operation} on a leased container with a wrong lease ID`;
  t.step(what);
  const res = await op.call(t, x, guid());
  lastSent(what);
  expectRawStatus(what, res, { status: 412, code: "LeaseIdMismatchWithContainerOperation" });
  t.step("read the container back");
  const after = await view(t, x);
  expectEqual(`the container after the refused ${op.operation}`, after, before);
  await expectLeaseState(t, x, `after ${what}`, "leased");
  await expectHolder(t, x, `after ${what}`, a, guid());
}

// An ID on an unleased container: "if there is no active lease or the ID does not match, 412" (each operation's page).
async function runUnleasedWithId(t: RowContext, op: ContainerOp): Promise<void> {
  const { x } = await leasedContainer(t, false);
  const before = await view(t, x);
  const what = `${op.operation} with a lease ID on an unleased container`;
  t.step(what);
  const res = await op.call(t, x, guid());
  lastSent(what);
  expectRawStatus(what, res, { status: 412, code: "LeaseNotPresentWithContainerOperation" });
  t.step("read the container back");
  expectEqual(`the container after the refused ${op.operation}`, await view(t, x), before);
  await expectLeaseState(t, x, `after ${what}`, "available");
}

/** An operation's request, for its claims (its record in operations.ts). */
const requestOf = (slug: string) => record(slug).request({ container: "c" });
/** What a row claims Azure answers (fixtures/harness/claims.ts): `slug`'s request with a lease ID of a kind, on a container leased or not. */
const idClaim = (slug: string, id: "holder" | "other" | undefined, lease: "leased" | "available", answers: AcceptedAnswer[]) =>
  claimOn("blob", requestOf(slug), { params: id ? { "x-ms-lease-id": id } : {}, lease }, answers);
const RENEW = { method: "PUT", path: "/c", query: { restype: "container", comp: "lease" }, headers: { "x-ms-lease-action": "renew" } };

/** A cell of the report's table of operations that honour a container lease. */
const opsCell = (operation: string, column: string, claim: string) => [{ section: "L-container-lease-ops", row: operation, column, claim }];

const rows: RowDef[] = [];
for (const op of OPS) {
  rows.push(
    {
      id: `${P}ops/${op.slug}/with-id`,
      claim: containerLeaseOpAt(op.slug),
      title: `${op.operation} on a leased container with the lease ID succeeds`,
      level: "doc",
      source: containerLeaseSource(`${op.operation}, x-ms-lease-id`),
      service: "blob",
      matrix: opsCell(op.operation, "with-id", "Succeeds"),
      answers: [idClaim(op.slug, "holder", "leased", SUCCESS)],
      run: (t) => runWithId(t, op),
    },
    {
      id: `${P}ops/${op.slug}/wrong-id`,
      claim: containerLeaseOpAt(op.slug),
      title: `${op.operation} on a leased container with a wrong lease ID: 412 LeaseIdMismatchWithContainerOperation, unchanged`,
      level: "rest",
      source: containerLeaseSource(`${op.operation}, x-ms-lease-id; error code LeaseIdMismatchWithContainerOperation`),
      service: "blob",
      matrix: opsCell(op.operation, "wrong-id", "412"),
      answers: [idClaim(op.slug, "other", "leased", [answer(412, "LeaseIdMismatchWithContainerOperation")])],
      run: (t) => runWrongId(t, op),
    },
    {
      id: `${P}ops/${op.slug}/unleased-with-id`,
      claim: containerLeaseOpAt(op.slug),
      title: `${op.operation} with a lease ID on an unleased container: 412 LeaseNotPresentWithContainerOperation, unchanged`,
      level: "rest",
      source: containerLeaseSource(
        `${op.operation}, x-ms-lease-id ("if there is no active lease or the ID does not match, 412"); error code LeaseNotPresentWithContainerOperation`,
      ),
      service: "blob",
      matrix: opsCell(op.operation, "unleased-with-id", "412"),
      answers: [idClaim(op.slug, "other", "available", [answer(412, "LeaseNotPresentWithContainerOperation")])],
      run: (t) => runUnleasedWithId(t, op),
    },
  );
}

rows.push(
  {
    id: "blob/container-lease/ops/lease-container/with-id",
    title: "Lease Container (renew) with the lease ID succeeds",
    level: "doc",
    source: containerLeaseSource("Lease Container (renew)"),
    service: "blob",
    matrix: opsCell("Lease Container", "with-id", "200 (renew)"),
    answers: [claimOn("blob", RENEW, { params: { "x-ms-lease-id": "holder" }, lease: "leased" }, [answer(200)])],
    async run(t) {
      const { x, a } = await leasedContainer(t);
      t.step("renew with the lease ID");
      expectRawStatus("Lease Container renew with the lease ID", await leaseAction(t, x, "renew", { id: a }), { status: 200 });
      lastSent("Lease Container renew with the lease ID");
      await expectLeaseState(t, x, "after the renew", "leased");
      await expectHolder(t, x, "after the renew", a, guid());
    },
  },
  {
    id: "blob/container-lease/ops/lease-container/wrong-id",
    // The catalogue's "wrong ID → 412" is for operations that carry a lease ID;
    // for a lease action the state table applies ("as for blobs"): renew B → 409.
    title: "Lease Container (renew) with a wrong lease ID is refused with 409, the lease unchanged",
    level: "rest",
    source: containerLeaseSource("Lease Container (renew); Lease Blob outcome table, renew B → 409"),
    service: "blob",
    matrix: opsCell("Lease Container", "wrong-id", "409 (renew)"),
    answers: [claimOn("blob", RENEW, { params: { "x-ms-lease-id": "other" }, lease: "leased" }, [answer(409)])],
    async run(t) {
      const { x, a } = await leasedContainer(t);
      t.step("renew with a wrong lease ID");
      const res = await leaseAction(t, x, "renew", { id: guid() });
      lastSent("Lease Container renew with a wrong lease ID");
      t.note("errorCode", res.errorCode ?? null);
      expectRawStatus("Lease Container renew with a wrong lease ID", res, { status: 409 });
      await expectLeaseState(t, x, "after the refused renew", "leased");
      await expectHolder(t, x, "after the refused renew", a, guid());
    },
  },
  {
    id: "blob/container-lease/delete-requires-id",
    title:
      "Delete Container on a leased container without the ID is refused (412 LeaseIdMissing or 409), the container kept; with the ID it is deleted",
    level: "disputed",
    source: containerLeaseSource("Delete Container (409 when leased) vs error-code table (412 LeaseIdMissing)"),
    service: "blob",
    matrix: opsCell(OPS.find((o) => o.slug === "delete-container")!.operation, "without-id", "Refused (412 or 409)"),
    answers: [
      idClaim("delete-container", undefined, "leased", [answer(412, "LeaseIdMissing"), answer(409)]),
      idClaim("delete-container", "holder", "leased", SUCCESS),
    ],
    async run(t) {
      const { x, a } = await leasedContainer(t);
      t.step("Delete Container without the lease ID");
      await deleteRefused(t, x, "on a leased container");
      t.step("Delete Container with the lease ID");
      expectRawStatus("Delete Container with the lease ID", await req(t, x, "DELETE", {}, a), { status: 202 });
      expectEqual("the container exists after the delete with the ID", (await view(t, x)).exists, false);
    },
  },
  {
    id: "blob/container-lease/renew-extends",
    title:
      "A 15 s container lease renewed after 8 s (server clock) still reads leased 2 s past its original end: another acquire 409 LeaseAlreadyPresent, Delete Container without the ID refused",
    level: "rest",
    source: containerLeaseSource("Lease Container (renew)"),
    service: "blob",
    waitSeconds: SHORTEST + 2,
    async run(t) {
      const { x } = await leasedContainer(t, false);
      await renewedPastOriginalEnd(t, x, async () => {
        t.step("another client acquires past the original end");
        expectRawStatus(
          "acquire with another ID past the original end of a renewed lease",
          await leaseAction(t, x, "acquire", { proposed: guid(), duration: -1 }),
          {
            status: 409,
            code: "LeaseAlreadyPresent",
          },
        );
        t.step("Delete Container without the lease ID past the original end");
        await deleteRefused(t, x, "past the original end of a renewed lease");
      });
    },
  },
  {
    id: "blob/container-lease/release-frees",
    title:
      "After release the container's lease reads available and another client acquires at once (holder read back); once it releases too, Delete Container without an ID succeeds",
    level: "rest",
    source: containerLeaseSource("Lease Container (release)"),
    service: "blob",
    async run(t) {
      const { x, a } = await leasedContainer(t);
      t.step("release");
      expectRawStatus("release with the holder's ID", await leaseAction(t, x, "release", { id: a }), { status: 200 });
      await expectLeaseState(t, x, "after release", "available");
      t.step("another client acquires");
      const b = guid();
      expectRawStatus("another client acquires after release", await leaseAction(t, x, "acquire", { proposed: b, duration: -1 }), {
        status: 201,
      });
      await expectLeaseState(t, x, "after the other client's acquire", "leased");
      await expectHolder(t, x, "after the other client's acquire", b, a);
      t.step("the other client releases");
      expectRawStatus("release by the other client", await leaseAction(t, x, "release", { id: b }), { status: 200 });
      t.step("Delete Container without a lease ID");
      expectRawStatus("Delete Container without a lease ID after both releases", await req(t, x, "DELETE", {}), { status: 202 });
      expectEqual("the container exists after Delete Container", (await view(t, x)).exists, false);
    },
  },
  {
    id: "blob/container-lease/others-shared",
    title: "Get Properties, Get Metadata, Set Metadata, Get ACL and Set ACL succeed on a leased container without the ID",
    level: "doc",
    source: containerLeaseSource("seed: all other container operations succeed on a leased container without the lease ID"),
    service: "blob",
    matrix: OPS.filter((o) => o.slug !== "delete-container").flatMap((o) => opsCell(o.operation, "without-id", "Succeeds")),
    answers: OPS.filter((o) => o.slug !== "delete-container" && o.slug !== "lease-container").map((o) =>
      idClaim(o.slug, undefined, "leased", SUCCESS),
    ),
    async run(t) {
      const { x } = await leasedContainer(t);
      for (const op of OPS.filter((o) => o.slug !== "delete-container")) {
        const before = await view(t, x);
        const what = `${op.operation} on a leased container without the lease ID`;
        t.step(what);
        const res = await op.call(t, x);
        expectRawStatus(what, res, { status: op.okStatus });
        await op.took(t, x, res, before);
      }
      await expectLeaseState(t, x, "after the shared operations", "leased");
    },
  },
  {
    id: "blob/container-lease/duration-range",
    title: "Container leases: finite 15–60 s, −1 infinite; 14 and 61 refused with 400",
    level: "doc",
    source: containerLeaseSource("Lease Container, x-ms-lease-duration"),
    service: "blob",
    async run(t) {
      for (const [duration, kind] of [
        [15, "fixed"],
        [60, "fixed"],
        [-1, "infinite"],
      ] as const) {
        const x = containerTarget(await t.newContainer());
        t.step(`acquire with duration ${duration}`);
        expectRawStatus(
          `Lease Container acquire with x-ms-lease-duration ${duration}`,
          await leaseAction(t, x, "acquire", { proposed: guid(), duration }),
          { status: 201 },
        );
        const v = await expectLeaseState(t, x, `after acquiring a ${duration} lease`, "leased");
        expectEqual(`x-ms-lease-duration read back after acquiring with ${duration}`, v.duration, kind);
      }
      for (const duration of [14, 61]) {
        const x = containerTarget(await t.newContainer());
        t.step(`acquire with duration ${duration}`);
        expectRawStatus(
          `Lease Container acquire with x-ms-lease-duration ${duration}`,
          await leaseAction(t, x, "acquire", { proposed: guid(), duration }),
          { status: 400 },
        );
        await expectLeaseState(t, x, `after the refused ${duration} s acquire`, "available");
      }
    },
  },
  {
    id: "blob/container-lease/acquire-when-leased",
    title: "Acquiring a lease on a leased container under another ID is refused with 409 LeaseAlreadyPresent",
    level: "doc",
    source: containerLeaseSource("Lease Container (acquire); error code LeaseAlreadyPresent"),
    service: "blob",
    matrix: opsCell("Lease Container", "without-id", "409 (acquire)"),
    async run(t) {
      const { x, a } = await leasedContainer(t);
      const other = guid();
      t.step("acquire with another proposed ID");
      expectRawStatus("Lease Container acquire with another ID", await leaseAction(t, x, "acquire", { proposed: other, duration: 60 }), {
        status: 409,
        code: "LeaseAlreadyPresent",
      });
      t.step("acquire with no proposed ID");
      expectRawStatus("Lease Container acquire with no ID", await leaseAction(t, x, "acquire", { duration: 60 }), {
        status: 409,
        code: "LeaseAlreadyPresent",
      });
      await expectLeaseState(t, x, "after the refused acquires", "leased");
      await expectHolder(t, x, "after the refused acquires", a, other);
    },
  },
  {
    id: "blob/container-lease/etag-unchanged",
    title: "Lease actions (acquire, renew, change, release, break) leave the container's ETag and Last-Modified unchanged",
    level: "doc",
    source: containerLeaseSource("Lease Container; seed: table of container operations"),
    service: "blob",
    async run(t) {
      const c = await t.newContainer();
      const x = containerTarget(c);
      const before = await readLease(t, x);
      const a = guid();
      const b = guid();
      const steps: [string, () => Promise<RawResponse>, number][] = [
        ["acquire", () => leaseAction(t, x, "acquire", { proposed: a, duration: 60 }), 201],
        ["renew", () => leaseAction(t, x, "renew", { id: a }), 200],
        ["change", () => leaseAction(t, x, "change", { id: a, proposed: b }), 200],
        ["release", () => leaseAction(t, x, "release", { id: b }), 200],
        ["acquire again", () => leaseAction(t, x, "acquire", { proposed: a, duration: -1 }), 201],
        ["break", () => leaseAction(t, x, "break", { breakPeriod: 0 }), 202],
      ];
      for (const [label, act, status] of steps) {
        t.step(`Lease Container ${label}`);
        const res = await act();
        expectRawStatus(`Lease Container ${label}`, res, { status });
        if (res.headers["etag"] !== undefined) expectEqual(`ETag returned by Lease Container ${label}`, res.headers["etag"], before.etag);
        const after = await readLease(t, x);
        expectEqual(`container ETag after Lease Container ${label}`, after.etag, before.etag);
        expectEqual(`container Last-Modified after Lease Container ${label}`, after.lastModified, before.lastModified);
      }
    },
  },
);

defineTable({ table: "L Container leases", service: "blob" }, rows);

defineMatrix({
  key: "L-container-lease-ops",
  title: "Operations that honour a container lease",
  source: "seed article, pessimistic concurrency for containers (list of operations); REST: error codes",
  order: 31,
  columns: [
    { key: "without-id", header: "Leased, without ID" },
    { key: "with-id", header: "Leased, right ID" },
    { key: "wrong-id", header: "Leased, wrong ID" },
    { key: "unleased-with-id", header: "Unleased, with an ID" },
  ],
  rowOrder: [...OPS.map((o) => o.operation), "Lease Container"],
});
