// L, Lease Blob actions × lease states (REST "Lease Blob" outcome table,
// lease-table.ts): one test per cell, each on its own blob put into the state
// first (lease-state-kit.ts runs the cells; the containers' table is
// lease-state-container.rows.ts). Beside the cells: a proposed lease ID that
// is not a GUID, writes on a Breaking, Broken or Expired lease, the break
// period's range (0–60 s), and the holder's ID once the lease was broken
// (lease-lost.ts).
import { expectEqual, expectRawStatus, expectRefused, expectSame, expectSucceeds } from "../../fixtures/harness/assert.ts";
import type { RowDef } from "../../fixtures/harness/engine.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { claimAt } from "../../fixtures/harness/locations.ts";
import { blobLeaseSource, blobTarget, leaseAction, readLease, SHORTEST } from "./lease-kit.ts";
import { expectLeaseIdSent, expectLeaseState, stillBreaking, whileBreaking } from "./lease-checks.ts";
import { blobInState } from "./lease-setup.ts";
import { downloadAll, blobSnapshot, newBlockBlob } from "./blob-kit.ts";
import { defineStateMatrix, RESOURCES, stateCellRows } from "./lease-state-kit.ts";
import { breakPeriod61Row } from "./lease-break-range.ts";
import { lostAfterBreakRow } from "./lease-lost.ts";

const P = "blob/lease/state/";
const SOURCE = RESOURCES.blob.source;
const CHANGED = "changed by a writer";

const rows: RowDef[] = [
  ...stateCellRows("blob"),
  {
    id: "blob/lease/state/proposed-id-not-guid",
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
    id: "blob/lease/state/writes-on-breaking",
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
      // On a loaded target the break may run out before the writes are answered: then the row cannot tell.
      await whileBreaking(s, undefined, async () => {
        await expectRefused("Put Blob without the lease ID on a Breaking lease", s.b.upload(CHANGED, CHANGED.length), {
          status: 412,
          code: "LeaseIdMissing",
        });
        expectSame("the blob after the refused write", await blobSnapshot(s.b, c, "block"), before);
        t.step("Put Blob with the ID while Breaking");
        await expectSucceeds(
          "Put Blob with the lease ID on a Breaking lease",
          s.b.upload(CHANGED, CHANGED.length, { conditions: { leaseId: s.a } }),
        );
      });
      expectLeaseIdSent("Put Blob with the lease ID on a Breaking lease");
      expectEqual("content after the write with the ID", (await downloadAll(s.b)).toString("utf8"), CHANGED);
    },
  },
  ...(["broken", "expired"] as const).map((state): RowDef => ({
    id: `${P}writes-on-${state}`,
    claim: claimAt(import.meta.url, "writes-on-"),
    title: `A write on a ${state === "broken" ? "Broken" : "Expired"} lease succeeds without the ID`,
    level: "rest",
    source: SOURCE,
    service: "blob",
    waitSeconds: state === "expired" ? SHORTEST : undefined,
    async run(t) {
      const s = await blobInState(t, state);
      t.step(`Put Blob without the ID on a ${state} lease`);
      await expectSucceeds(`Put Blob without a lease ID on a ${state} lease`, s.b.upload(CHANGED, CHANGED.length));
      expectEqual("content after the write", (await downloadAll(s.b)).toString("utf8"), CHANGED);
    },
  })),
  breakPeriod61Row("blob"),
  lostAfterBreakRow("blob"),
];

defineTable({ table: RESOURCES.blob.table, service: "blob" }, rows);
defineStateMatrix("blob", 32);
