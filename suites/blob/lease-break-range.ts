// The break period's range (catalogue L: 0–60 s) on a blob and on a
// container, a row for each (lease-state.rows.ts, lease-state-container.rows.ts):
// 60 is accepted in every lease state that allows a break, 61 refused in
// every lease state, the lease unchanged. (Its lower end, 0, is the table's
// break-0 column.)
import { eachVariation, expectRawStatus } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { claimAt } from "../../fixtures/harness/locations.ts";
import {
  blobLeaseSource,
  containerLeaseSource,
  guid,
  leaseAction,
  readLease,
  SHORTEST,
  type LeaseState,
  type StatedResource,
} from "./lease-kit.ts";
import { checkLeaseState, expectHolder, stillBreaking, whileBreaking } from "./lease-checks.ts";
import { leasesInState } from "./lease-setup.ts";
import { onState, TABLE, type Column, type LeaseResource } from "./lease-table.ts";
import { RESOURCES, type Resource } from "./lease-state-kit.ts";

// Break period range 0–60 (catalogue L): 61 is refused with 400 in every
// state, on a finite and an infinite lease, the lease read back unchanged. On
// an available lease which check comes first is undocumented: there 400 or
// 409 LeaseNotPresentWithLeaseOperation (disputed, the report shows which).
const BREAK_61_STATES: { column: Column; finite: boolean }[] = [
  { column: "leased", finite: false },
  { column: "leased", finite: true },
  { column: "available", finite: false },
  { column: "breaking", finite: false },
  { column: "breaking", finite: true },
  { column: "broken", finite: false },
  { column: "expired", finite: true },
];
const NO_LEASE_FIRST = { status: 409, code: "LeaseNotPresentWithLeaseOperation" };

/** The range's upper end, 60, in every state that allows a break (catalogue: every range at both ends, in every state): 202, the lease as the table's break-period cell leaves it. */
export const BREAK_60_STATES: { column: Column; finite: boolean }[] = [
  { column: "leased", finite: false },
  { column: "breaking", finite: false },
  { column: "broken", finite: false },
  { column: "expired", finite: true },
];

/** One state of the upper end: break with period 60 answered 202, the lease read back as the break-period cell says. */
async function break60(t: RowContext, s: StatedResource, column: Column, on: string): Promise<void> {
  t.step(`break with period 60${on}`);
  const res = await leaseAction(t, s.x, "break", { breakPeriod: 60 });
  expectRawStatus(`break with x-ms-lease-break-period: 60${on}`, res, { status: 202 });
  checkLeaseState(`after the break with period 60${on}`, await readLease(t, s.x), TABLE["break-period"][column]!.after);
}

/** One state of break-period-61: the break refused, the lease read back as it was. */
async function break61(t: RowContext, s: StatedResource, column: Column, on: string): Promise<void> {
  const before = await readLease(t, s.x);
  t.step(`break with period 61${on}`);
  const res = await leaseAction(t, s.x, "break", { breakPeriod: 61 });
  t.note(`errorCode${on}`, res.errorCode ?? null);
  const view = await readLease(t, s.x);
  if (column === "breaking") stillBreaking(s, view);
  if (column === "available" && res.status === 409) {
    t.note("disputed (available)", `409 ${res.errorCode ?? ""}: the lease checked before the range`.trim());
    expectRawStatus(`break with x-ms-lease-break-period: 61${on}`, res, NO_LEASE_FIRST);
  } else {
    if (column === "available") t.note("disputed (available)", "400: the range checked before the lease");
    expectRawStatus(`break with x-ms-lease-break-period: 61${on}`, res, { status: 400 });
  }
  checkLeaseState(`after the refused break${on}`, view, before.state as LeaseState);
  if (column === "leased" || column === "breaking")
    await whileBreaking(s, res, () => expectHolder(t, s.x, `after the refused break${on}`, s.a, guid()));
}

/** Break period 60 accepted in each state of BREAK_60_STATES, then 61 refused in each state of BREAK_61_STATES. */
async function breakPeriod61(t: RowContext, r: Resource): Promise<void> {
  // The expired leases' 15 s run from the start, alongside every other state: each variation is a strand of its own.
  const expiring = [0, 1].map(async () => (await leasesInState(t, [await r.create(t)], "expired", true))[0]);
  const stated = async (v: { column: Column; finite: boolean }, expired: Promise<StatedResource>) =>
    v.column === "expired" ? expired : (await leasesInState(t, [await r.create(t)], v.column, v.finite))[0];
  // The first case keeps the row's original wording (and so its pins); the 61 s cases first, then the 60 s ones, one check of them all.
  const onOf = ({ column, finite }: { column: Column; finite: boolean }) =>
    column === "leased" && !finite ? "" : ` on ${onState(column)}${finite && column !== "expired" ? " (finite)" : ""}`;
  await eachVariation(
    [
      ...BREAK_61_STATES.map((v) => ({
        label: `break with period 61${onOf(v) || " on a leased lease"}`,
        run: async () => break61(t, await stated(v, expiring[0]), v.column, onOf(v)),
      })),
      ...BREAK_60_STATES.map((v) => ({
        label: `break with period 60 on ${onState(v.column)}`,
        run: async () => break60(t, await stated(v, expiring[1]), v.column, v.column === "leased" ? "" : ` on ${onState(v.column)}`),
      })),
    ],
    { together: true },
  );
}

/** A resource's break-period-61 row. */
export function breakPeriod61Row(resource: LeaseResource): RowDef {
  const r = RESOURCES[resource];
  return {
    id: `${r.prefix}break-period-61`,
    claim: claimAt(import.meta.url, "break-period-61"),
    title: `${r.operation}: a break period of 60 s is accepted in every lease state that allows a break (leased, breaking, broken, expired), and 61 s is refused with 400 (range 0–60) in every lease state, on finite and infinite leases, the lease unchanged (on an available lease 409 LeaseNotPresentWithLeaseOperation also passes)`,
    level: "rest",
    source: (resource === "blob" ? blobLeaseSource : containerLeaseSource)(`${r.operation}, x-ms-lease-break-period`),
    service: "blob",
    waitSeconds: SHORTEST,
    run: (t: RowContext) => breakPeriod61(t, r),
  };
}
