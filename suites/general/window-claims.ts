// Timed claims, both ends (catalogue L break-period-holds and expiry-frees,
// for blobs and containers; Q invisible-until-end, initial-invisibility,
// message-ttl/expiry): a window a request opens (a break period, a finite
// lease, a visibility timeout, a message's time to live) holds until its end,
// by the server's clock, and lapses after it. One entry per kind of window: how a row opens it and probes it,
// and how it looks on the wire (which request opens it, the parameter that
// sets its length, where the answer states its end), from which
// selftest/mutants/windows.ts generates a target that ends it early and the
// legal variation that ends it one second late. windows.rows.ts runs them.
import type { WireRequest } from "../../fixtures/wire/operations.ts";
import type { Level, Service } from "../../model/result.ts";

export type WindowKind = "break-period" | "lease-expiry" | "get-visibility" | "update-visibility" | "put-visibility" | "message-ttl";

/** A window as the row opened it. */
export interface OpenWindow {
  /** Its end by the server's clock (ms): the opening answer's Date + the length asked, or the end the answer states. */
  end: number;
  /** Probes that the window is in force, sent together; they throw (an AssertionError) when it is not. */
  held(phase: "start" | "late"): Promise<void>;
  /** One probe after the end: whether the window has lapsed, and the server's Date of the answer. */
  lapsed(): Promise<{ lapsed: boolean; date: number }>;
  /** What must hold once it lapsed (a write without the ID succeeds; the message comes back with its text). */
  after(): Promise<void>;
  /** The server's Date, from a request that changes nothing. */
  clock(): Promise<number>;
}

export interface WindowWire {
  service: Service;
  /** Whether a request opens a window of this kind. */
  opens(req: WireRequest): boolean;
  /** What sets its length, in seconds, and the longest (and shortest, if any) the operation accepts. */
  length: { in: "header" | "query"; name: string; max: number; min?: number };
  /** Where the answer states its end: seconds left, or an HTTP date (a header or an XML element of the body). None: the answer's Date + the length asked. */
  end?: { in: "header" | "body"; name: string; form: "seconds-left" | "http-date" };
  /**
   * How a target that ends the window early is simulated: by asking for half
   * the length while the answer states the full one, or, where the operation
   * refuses a shorter length (a lease lasts 15 s at least), by reads that
   * report the window lapsed from halfway.
   */
  early: "shorter-length" | "reads-lapsed";
}

export interface WindowClaim {
  id: string;
  kind: WindowKind;
  /** For a lease window: whose lease. */
  resource?: "blob" | "container";
  /** Catalogue table the row belongs to. */
  table: string;
  service: Service;
  level: Level;
  title: string;
  source: string;
  /** The length the row asks for, in seconds (long enough to probe its last part). */
  seconds: number;
  wire: WindowWire;
}

/** One second for the granularity of the server's clock at each end (catalogue L, Q). */
export const GRANULARITY_MS = 1000;
/** A window may end this late and still be legal (a self-test variation; it must fail nothing). */
export const LEGAL_LATE_MS = 1000;

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

export const WINDOWS: WindowClaim[] = [
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
  {
    id: "queue/get-messages/invisible-until-end",
    kind: "get-visibility",
    table: "Q Queue messages",
    service: "queue",
    level: "doc",
    title:
      "A dequeued message stays invisible to every client until its TimeNextVisible, probed right after the dequeue and in the window's last part (server time, one second allowed), then it comes back",
    source:
      "seed: queue section (a retrieved message is invisible for the visibility timeout); REST: Get Messages (visibilitytimeout, TimeNextVisible)",
    seconds: 8,
    wire: {
      service: "queue",
      opens: (r) =>
        r.method === "GET" &&
        /\/messages$/.test(r.path) &&
        r.query.get("peekonly")?.toLowerCase() !== "true" &&
        r.query.has("visibilitytimeout"),
      length: { in: "query", name: "visibilitytimeout", max: 604_800 },
      end: { in: "body", name: "TimeNextVisible", form: "http-date" },
      early: "shorter-length",
    },
  },
  {
    id: "queue/update-message/invisible-until-end",
    kind: "update-visibility",
    table: "Q Queue messages",
    service: "queue",
    level: "rest",
    title:
      "After Update Message with a visibility timeout, the message stays invisible until the new TimeNextVisible (x-ms-time-next-visible), probed early and late, then it comes back with the new text",
    source: "seed: queue section; REST: Update Message (visibilitytimeout, x-ms-time-next-visible)",
    seconds: 8,
    wire: {
      service: "queue",
      opens: (r) =>
        r.method === "PUT" && /\/messages\/[^/]+$/.test(r.path) && r.query.has("popreceipt") && r.query.has("visibilitytimeout"),
      length: { in: "query", name: "visibilitytimeout", max: 604_800 },
      end: { in: "header", name: "x-ms-time-next-visible", form: "http-date" },
      early: "shorter-length",
    },
  },
  {
    id: "queue/put-message/initial-invisibility",
    kind: "put-visibility",
    table: "Q Queue messages",
    service: "queue",
    level: "rest",
    title:
      "Put Message with a visibility timeout hides the message from Peek and Get until its TimeNextVisible, probed right after the put and in the window's last part (server time, one second allowed); then it is delivered with DequeueCount 1",
    source: "REST: Put Message (visibilitytimeout, TimeNextVisible)",
    seconds: 8,
    wire: {
      service: "queue",
      opens: (r) => r.method === "POST" && /\/messages$/.test(r.path) && Number(r.query.get("visibilitytimeout") ?? 0) > 0,
      length: { in: "query", name: "visibilitytimeout", max: 604_800 },
      end: { in: "body", name: "TimeNextVisible", form: "http-date" },
      early: "shorter-length",
    },
  },
  {
    id: "queue/message-ttl/expiry",
    kind: "message-ttl",
    table: "Q Queue messages",
    service: "queue",
    level: "rest",
    title:
      "A message put with a time to live can be peeked until its ExpirationTime (the Put Message answer's), probed early and late; from then on it is neither peeked nor dequeued, and Delete or Update Message with its receipt → 404 MessageNotFound",
    source: "REST: Put Message (messagettl, ExpirationTime), Peek Messages, Get Messages",
    seconds: 8,
    wire: {
      service: "queue",
      opens: (r) => r.method === "POST" && /\/messages$/.test(r.path) && Number(r.query.get("messagettl") ?? 0) > 0,
      length: { in: "query", name: "messagettl", max: Number.MAX_SAFE_INTEGER },
      end: { in: "body", name: "ExpirationTime", form: "http-date" },
      early: "shorter-length",
    },
  },
];
