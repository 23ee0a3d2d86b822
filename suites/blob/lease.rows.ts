// L, blob leases: duration, exclusivity, writes and reads against a leased
// blob, renewal and release. One entry per row of the catalogue's blob lease
// table; the timed ones (expiry-frees, break-period-holds) are windows
// (suites/window-kit.ts).
import {
  expectEqual,
  expectRawStatus,
  expectRefused,
  expectSame,
  expectSucceeds,
  expectTrue,
  refusalOf,
} from "../../fixtures/harness/assert.ts";
import type { RowDef } from "../../fixtures/harness/engine.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { rethrowIfFault } from "../../fixtures/wire/signals.ts";
import { downloadAll, blobSnapshot, newBlockBlob } from "./blob-kit.ts";
import { blobLeaseSource, blobTarget, guid, holdLease, leaseAction, serverDate, SHORTEST, waitForServerTime } from "./lease-kit.ts";
import { checkLeaseState, expectHolder, expectLeaseIdSent, expectLeaseState, renewedPastOriginalEnd } from "./lease-checks.ts";

const CHANGED = "changed by a writer";

const rows: RowDef[] = [
  {
    id: "blob/lease/duration-range",
    title: "Finite leases last 15–60 s, −1 is infinite; 14 and 61 are refused with 400",
    level: "doc",
    source: blobLeaseSource("Lease Blob, x-ms-lease-duration"),
    service: "blob",
    async run(t) {
      const c = await t.newContainer();
      for (const [duration, kind] of [
        [15, "fixed"],
        [60, "fixed"],
        [-1, "infinite"],
      ] as const) {
        const x = blobTarget(await newBlockBlob(t, "original", c));
        t.step(`acquire with duration ${duration}`);
        const res = await leaseAction(t, x, "acquire", { proposed: guid(), duration });
        expectRawStatus(`acquire with x-ms-lease-duration ${duration}`, res, { status: 201 });
        const v = await expectLeaseState(t, x, `after acquiring a ${duration} lease`, "leased");
        expectEqual(`x-ms-lease-duration read back after acquiring with ${duration}`, v.duration, kind);
      }
      for (const duration of [14, 61]) {
        const x = blobTarget(await newBlockBlob(t, "original", c));
        t.step(`acquire with duration ${duration}`);
        const res = await leaseAction(t, x, "acquire", { proposed: guid(), duration });
        expectRawStatus(`acquire with x-ms-lease-duration ${duration}`, res, { status: 400 });
        await expectLeaseState(t, x, `after the refused ${duration} s acquire`, "available");
      }
    },
  },
  {
    id: "blob/lease/acquire-when-leased",
    title: "Acquiring a lease on a blob leased under another ID is refused with 409 LeaseAlreadyPresent",
    level: "doc",
    source: blobLeaseSource("Lease Blob (acquire); error code LeaseAlreadyPresent"),
    service: "blob",
    async run(t) {
      const b = await newBlockBlob(t);
      const x = blobTarget(b);
      const { id: a } = await holdLease(t, x, 60);
      const other = guid();
      t.step("acquire with another proposed ID");
      expectRawStatus("acquire with another ID on a leased blob", await leaseAction(t, x, "acquire", { proposed: other, duration: 60 }), {
        status: 409,
        code: "LeaseAlreadyPresent",
      });
      t.step("acquire with no proposed ID");
      expectRawStatus("acquire with no ID on a leased blob", await leaseAction(t, x, "acquire", { duration: 60 }), {
        status: 409,
        code: "LeaseAlreadyPresent",
      });
      await expectLeaseState(t, x, "after the refused acquires", "leased");
      await expectHolder(t, x, "after the refused acquires", a, other);
    },
  },
  {
    id: "blob/lease/write-without-id",
    title: "A write to a leased blob without the lease ID is refused with 412 LeaseIdMissing, the blob unchanged",
    level: "doc",
    source: blobLeaseSource("Lease Blob; Put Blob x-ms-lease-id; error code LeaseIdMissing"),
    service: "blob",
    async run(t) {
      const c = await t.newContainer();
      const b = await newBlockBlob(t, "original", c);
      await holdLease(t, blobTarget(b), -1);
      const before = await blobSnapshot(b, c, "block");
      t.step("Put Blob without the lease ID");
      await expectRefused("Put Blob without the lease ID on a leased blob", b.upload(CHANGED, CHANGED.length), {
        status: 412,
        code: "LeaseIdMissing",
      });
      expectSame("the blob after the refused write", await blobSnapshot(b, c, "block"), before);
    },
  },
  {
    id: "blob/lease/write-with-id",
    title: "The same write with the lease ID succeeds",
    level: "doc",
    source: blobLeaseSource("Lease Blob; Put Blob x-ms-lease-id"),
    service: "blob",
    async run(t) {
      const c = await t.newContainer();
      const b = await newBlockBlob(t, "original", c);
      const x = blobTarget(b);
      const { id } = await holdLease(t, x, -1);
      t.step("Put Blob with the lease ID");
      await expectSucceeds(
        "Put Blob with the lease ID on a leased blob",
        b.upload(CHANGED, CHANGED.length, { conditions: { leaseId: id } }),
      );
      expectLeaseIdSent("Put Blob with the lease ID");
      expectEqual("content after the write with the lease ID", (await downloadAll(b)).toString("utf8"), CHANGED);
      await expectLeaseState(t, x, "after the write with the lease ID", "leased");
    },
  },
  {
    id: "blob/lease/write-with-expired-id",
    title: "After a finite lease expires, a write that still sends its ID is refused with 412, the blob unchanged",
    level: "doc",
    source: blobLeaseSource("Lease Blob (expiry); seed: a write with an expired lease ID fails with 412"),
    service: "blob",
    waitSeconds: SHORTEST,
    async run(t) {
      const c = await t.newContainer();
      const b = await newBlockBlob(t, "original", c);
      const x = blobTarget(b);
      const { id, res } = await holdLease(t, x, SHORTEST);
      t.step("wait past the lease's end (server clock)");
      // The probe that saw the server's clock past the end read the lease state too.
      checkLeaseState(
        "after the lease's end",
        await waitForServerTime(t, x, new Date(serverDate(res).getTime() + (SHORTEST + 2) * 1000), 45_000),
        "expired",
      );
      const before = await blobSnapshot(b, c, "block");
      t.step("Put Blob with the expired lease ID");
      const refusal = await expectRefused(
        "Put Blob with an expired lease ID",
        b.upload(CHANGED, CHANGED.length, { conditions: { leaseId: id } }),
        { status: 412 },
      );
      expectLeaseIdSent("Put Blob with the expired lease ID");
      t.note("errorCode", refusal.code ?? null);
      expectSame("the blob after the refused write", await blobSnapshot(b, c, "block"), before);
    },
  },
  {
    id: "blob/lease/read-without-id",
    title: "A read without the lease ID on a leased blob succeeds (shared read)",
    level: "doc",
    source: blobLeaseSource("Lease Blob; Get Blob, Get Blob Properties x-ms-lease-id optional"),
    service: "blob",
    async run(t) {
      const b = await newBlockBlob(t);
      await holdLease(t, blobTarget(b), -1);
      t.step("Get Blob without the lease ID");
      const body = await expectSucceeds("Get Blob without the lease ID on a leased blob", downloadAll(b));
      expectEqual("content read without the lease ID", body.toString("utf8"), "original");
      t.step("Get Blob Properties without the lease ID");
      const props = await expectSucceeds("Get Blob Properties without the lease ID on a leased blob", b.getProperties());
      expectEqual("metadata read without the lease ID", props.metadata, { state: "original" });
    },
  },
  {
    id: "blob/lease/renew-extends",
    title: "Renewing before expiry keeps the lease past its original end",
    level: "doc",
    source: blobLeaseSource("Lease Blob (renew)"),
    service: "blob",
    waitSeconds: SHORTEST + 2,
    async run(t) {
      const c = await t.newContainer();
      const b = await newBlockBlob(t, "original", c);
      await renewedPastOriginalEnd(t, blobTarget(b), async () => {
        const before = await blobSnapshot(b, c, "block");
        t.step("Put Blob without the lease ID past the original end");
        await expectRefused("Put Blob without the lease ID past the original end of a renewed lease", b.upload(CHANGED, CHANGED.length), {
          status: 412,
          code: "LeaseIdMissing",
        });
        expectSame("the blob after the refused write", await blobSnapshot(b, c, "block"), before);
      });
    },
  },
  {
    id: "blob/lease/release-frees",
    title: "After release, a write without the ID succeeds and another client can acquire",
    level: "doc",
    source: blobLeaseSource("Lease Blob (release)"),
    service: "blob",
    async run(t) {
      const b = await newBlockBlob(t);
      const x = blobTarget(b);
      const { id } = await holdLease(t, x, -1);
      t.step("release");
      expectRawStatus("release with the holder's ID", await leaseAction(t, x, "release", { id }), { status: 200 });
      await expectLeaseState(t, x, "after release", "available");
      t.step("Put Blob without an ID after release");
      await expectSucceeds("Put Blob without a lease ID after release", b.upload(CHANGED, CHANGED.length));
      expectEqual("content after the write", (await downloadAll(b)).toString("utf8"), CHANGED);
      t.step("another client acquires");
      const other = guid();
      const second = t.clients.blob().getContainerClient(b.containerName).getBlobClient(b.name);
      await expectSucceeds("another client acquires after release", second.getBlobLeaseClient(other).acquireLease(-1));
      await expectLeaseState(t, x, "after the other client's acquire", "leased");
      await expectHolder(t, x, "after the other client's acquire", other, id);
    },
  },
  {
    id: "blob/lease/exclusive-race",
    title: "N clients acquire at once: exactly one gets the lease, the rest 409",
    level: "doc",
    source: blobLeaseSource("Lease Blob (acquire); seed: only one client at a time holds a valid lease ID"),
    service: "blob",
    async run(t) {
      const N = 10;
      const b = await newBlockBlob(t);
      const x = blobTarget(b);
      const ids = Array.from({ length: N }, () => guid());
      const clients = ids.map(() => t.clients.blob().getContainerClient(b.containerName).getBlobClient(b.name));
      t.step(`${N} clients acquire at once`);
      const outcomes = await Promise.all(
        clients.map(async (client, i) => {
          try {
            await client.getBlobLeaseClient(ids[i]).acquireLease(60);
            return { i, status: 201, code: undefined as string | undefined };
          } catch (err) {
            rethrowIfFault(err);
            const r = refusalOf(err);
            return { i, status: r.status, code: r.code };
          }
        }),
      );
      const winners = outcomes.filter((o) => o.status === 201);
      const tally = outcomes.map((o) => `${o.status}${o.code ? " " + o.code : ""}`).sort();
      t.note("outcomes", tally);
      expectEqual(`number of ${N} concurrent acquirers that got the lease`, winners.length, 1);
      expectTrue(
        `every other acquirer is refused with 409 LeaseAlreadyPresent (got ${[...new Set(tally)].join(", ")})`,
        outcomes.every((o) => o.status === 201 || (o.status === 409 && o.code === "LeaseAlreadyPresent")),
      );
      await expectLeaseState(t, x, "after the race", "leased");
      const winner = ids[winners[0].i];
      const loser = ids[outcomes.find((o) => o.status !== 201)!.i];
      await expectHolder(t, x, "after the race", winner, loser);
    },
  },
];

defineTable({ table: "L Blob leases", service: "blob" }, rows);
