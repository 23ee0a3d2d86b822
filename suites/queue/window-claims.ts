// The queue service's windows (catalogue Q invisible-until-end,
// initial-invisibility, message-ttl/expiry): what opens each and how it looks
// on the wire (suites/window-kit.ts). windows.rows.ts runs them.
import type { WindowClaim } from "../window-kit.ts";
import { queueCell } from "./queue-kit.ts";

export const QUEUE_WINDOWS: WindowClaim[] = [
  {
    id: "queue/get-messages/invisible-until-end",
    matrix: queueCell("invisible-until-end"),
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
