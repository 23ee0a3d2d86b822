// The blob service's windows (catalogue L break-period-holds, expiry-frees,
// for blobs and containers): what opens each and how it looks on the wire
// (suites/window-kit.ts). windows.rows.ts runs them.
import type { WireRequest } from "../../fixtures/wire/operations.ts";
import type { WindowClaim, WindowWire } from "../window-kit.ts";

/** A lease action on a blob (no restype) or on a container (restype=container). */
const leaseOn = (resource: "blob" | "container", r: WireRequest, action: string) =>
  r.method === "PUT" &&
  r.query.get("comp") === "lease" &&
  (r.query.get("restype") === "container") === (resource === "container") &&
  r.header("x-ms-lease-action") === action;

/** Lease Blob / Lease Container break with a period: x-ms-lease-time states the seconds left. */
const breakWire = (resource: "blob" | "container"): WindowWire => ({
  service: "blob",
  opens: (r) => leaseOn(resource, r, "break") && Number(r.header("x-ms-lease-break-period") ?? 0) > 0,
  length: { in: "header", name: "x-ms-lease-break-period", max: 60 },
  end: { in: "header", name: "x-ms-lease-time", form: "seconds-left" },
  early: "shorter-length",
});

/** A finite lease: it ends the acquire's Date + x-ms-lease-duration (15 s at least, so a shorter one cannot be asked for). */
const expiryWire = (resource: "blob" | "container"): WindowWire => ({
  service: "blob",
  opens: (r) => leaseOn(resource, r, "acquire") && Number(r.header("x-ms-lease-duration") ?? -1) > 0,
  length: { in: "header", name: "x-ms-lease-duration", max: 60, min: 15 },
  early: "reads-lapsed",
});

export const BLOB_WINDOWS: WindowClaim[] = [
  {
    id: "blob/lease/break-period-holds",
    kind: "break-period",
    resource: "blob",
    table: "L Blob leases",
    service: "blob",
    level: "rest",
    title:
      "After a break with a period of 10 s the lease stays Breaking for 10 s by the server's clock (a write without the ID refused and unchanged, state breaking, another acquire 409), then it is Broken and a write without the ID succeeds",
    source: "seed: pessimistic concurrency for blobs; REST: Lease Blob (break, x-ms-lease-break-period, x-ms-lease-time)",
    seconds: 10,
    wire: breakWire("blob"),
  },
  {
    id: "blob/container-lease/break-period-holds",
    kind: "break-period",
    resource: "container",
    table: "L Container leases",
    service: "blob",
    level: "rest",
    title:
      "After a break with a period of 10 s the container's lease stays Breaking for 10 s by the server's clock (state breaking, another acquire 409 LeaseAlreadyPresent, Delete Container without the ID refused), then it is Broken and a Delete Container without the ID succeeds",
    source: "seed: pessimistic concurrency for containers; REST: Lease Container (break, x-ms-lease-break-period, x-ms-lease-time)",
    seconds: 10,
    wire: breakWire("container"),
  },
  {
    id: "blob/lease/expiry-frees",
    kind: "lease-expiry",
    resource: "blob",
    table: "L Blob leases",
    service: "blob",
    level: "doc",
    title:
      "A finite (15 s) lease holds until its end by the server's clock (a write without the ID refused and unchanged, state leased, another acquire 409), probed right after the acquire and in its last part; it lapses by itself at its end: the state reads expired and a write without the ID succeeds",
    source:
      "seed: pessimistic concurrency for blobs (the service releases finite leases when they expire); REST: Lease Blob (x-ms-lease-duration)",
    seconds: 15,
    wire: expiryWire("blob"),
  },
  {
    id: "blob/container-lease/expiry-frees",
    kind: "lease-expiry",
    resource: "container",
    table: "L Container leases",
    service: "blob",
    level: "rest",
    title:
      "A finite (15 s) container lease holds until its end by the server's clock (state leased, another acquire 409 LeaseAlreadyPresent, Delete Container without the ID refused), probed right after the acquire and in its last part; it lapses by itself at its end: the state reads expired and a Delete Container without the ID succeeds",
    source: "seed: pessimistic concurrency for containers; REST: Lease Container (x-ms-lease-duration)",
    seconds: 15,
    wire: expiryWire("container"),
  },
];
