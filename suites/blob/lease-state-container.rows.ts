// L, Lease Container actions × lease states (REST "Lease Container" outcome
// table, lease-table.ts): one test per cell, each on its own container put
// into the state first (lease-state-kit.ts runs the cells, as for blobs in
// lease-state.rows.ts), the break period's range (0–60 s), and the holder's
// ID once the lease was broken (lease-lost.ts).
import { defineTable } from "../../fixtures/harness/registry.ts";
import { defineStateMatrix, RESOURCES, stateCellRows } from "./lease-state-kit.ts";
import { breakPeriod61Row } from "./lease-break-range.ts";
import { lostAfterBreakRow } from "./lease-lost.ts";

defineTable({ table: RESOURCES.container.table, service: "blob" }, [
  ...stateCellRows("container"),
  breakPeriod61Row("container"),
  lostAfterBreakRow("container"),
]);
defineStateMatrix("container", 33);
