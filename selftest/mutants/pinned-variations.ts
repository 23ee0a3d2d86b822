// A pin names exactly what fails: for every row that checks several
// variations of its claim and is pinned on Azurite for some of them, a target
// that fails one more variation must read as a changed result (FAIL "differs
// from the pinned outcome"), never as the pin (fixtures/harness/assert.ts,
// eachVariation). Each mutant below makes one variation fail that passes on
// Azurite; the pinned variations it leaves as they are.
// queue/delete-message/requires-pop-receipt/stale-receipt-code has no such
// mutant: all four of its variations already fail on Azurite.
import { blobOp } from "./blob-kit.ts";
import { action, isContainer, isLease, track, tracked } from "./lease-kit.ts";
import type { Mutant } from "./types.ts";

/** break-period-61 (blob and container): a finite held lease, which Azurite range-checks, takes the period of 61 too. */
const breakOnFinite = (resource: "blob" | "container"): Mutant => ({
  name: `pinned-variation-break-61-finite-${resource}`,
  description: `Lease ${resource === "blob" ? "Blob" : "Container"} break with a period of 61 on a finite held lease is accepted (the period taken as 60), beside the infinite, broken and expired leases pinned`,
  kills: [resource === "blob" ? "blob/lease/state/break-period-61" : "blob/container-lease/state/break-period-61"],
  onRequest(req, state) {
    const lease = tracked(req, state);
    if (
      isLease(req) &&
      isContainer(req) === (resource === "container") &&
      action(req) === "break" &&
      req.headers["x-ms-lease-break-period"] === "61" &&
      lease.state === "leased" &&
      lease.finite
    ) {
      req.headers["x-ms-lease-break-period"] = "60";
    }
  },
  onResponse: track,
});

export const MUTANTS: Mutant[] = [
  breakOnFinite("blob"),
  breakOnFinite("container"),
  {
    name: "pinned-variation-snapshot-if-match-with-lease",
    description:
      "Snapshot Blob with the lease ID ignores a failing If-Match (the snapshot is taken), beside the If-None-Match and If-Modified-Since pinned",
    kills: ["blob/lease-ops/snapshot-blob/conditions-with-id"],
    onRequest(req) {
      if (blobOp(req) === "snapshot-blob" && req.headers["x-ms-lease-id"] && req.headers["if-match"]) delete req.headers["if-match"];
    },
  },
];
