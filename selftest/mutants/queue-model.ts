// Stateful mutants of the queue delivery model row (catalogue M,
// `queue/delivery-model`): each deviates only after a particular sequence or
// under concurrency, as queue services and emulators have (a dequeue that is
// not hidden at once, two concurrent dequeues taking the same message, a
// receipt that outlives the update that superseded it, a delete acknowledged
// but lost). Judged by kill rate over 10 seeds (models.test.ts).
// Related reports: Azure/Azurite#2343 and arafato/azurite#117 (emulator
// visibility timeouts mishandled); taskcluster/taskcluster#3339 and
// Azure/azure-sdk-for-python#24786 (concurrent dequeues returning the same
// message); Azure/azure-storage-python#300 and Azure/durabletask#1246 (Update
// Message retires the receipt it was given, and clients that keep using it);
// Amazon SQS's DeleteMessage reference (a deleted message may be received again).
import { query, segments, type Mutant, type MutantState, type ProxyRequest, type ProxyResponse } from "./types.ts";
import { endsAtHalf } from "./windows.ts";

const RATE = { seeds: 10, atLeast: 9 };
const KILLS = ["queue/delivery-model"];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Op = "get" | "update" | "delete";
function opOf(req: ProxyRequest): Op | undefined {
  if (req.service !== "queue") return undefined;
  const seg = segments(req);
  if (seg.length === 2 && seg[1] === "messages" && req.method === "GET" && query(req).get("peekonly") !== "true") return "get";
  if (seg.length === 3 && seg[1] === "messages") return req.method === "PUT" ? "update" : req.method === "DELETE" ? "delete" : undefined;
  return undefined;
}
const ok = (res: ProxyResponse) => res.status >= 200 && res.status < 300;
const queueOf = (req: ProxyRequest) => segments(req)[0];
const idOfReq = (req: ProxyRequest) => segments(req)[2];

const MESSAGE = /<QueueMessage>[\s\S]*?<\/QueueMessage>/g;
const field = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];
const withField = (xml: string, name: string, value: string) =>
  xml.replace(new RegExp(`<${name}>[^<]*</${name}>`), `<${name}>${value}</${name}>`);
const messagesOf = (res: ProxyResponse) => (res.status === 200 ? (res.body.toString("utf8").match(MESSAGE) ?? []) : []);

function setMessages(res: ProxyResponse, messages: string[]): void {
  const body = res.body.toString("utf8");
  const list = `<QueueMessagesList>${messages.join("")}</QueueMessagesList>`;
  res.body = Buffer.from(body.replace(/<QueueMessagesList\s*\/>|<QueueMessagesList>[\s\S]*<\/QueueMessagesList>/, list));
}

/** A Get Messages answer the proxy gives itself (the request is not forwarded). */
function messagesAnswer(req: ProxyRequest, messages: string[], date: Date): ProxyResponse {
  return {
    status: 200,
    headers: {
      "content-type": "application/xml",
      "x-ms-version": req.headers["x-ms-version"] ?? "2025-11-05",
      "x-ms-request-id": crypto.randomUUID(),
      date: date.toUTCString(),
    },
    body: Buffer.from(`<?xml version="1.0" encoding="utf-8"?><QueueMessagesList>${messages.join("")}</QueueMessagesList>`),
  };
}

/** A 204 the proxy answers itself (the request is not forwarded). */
const noContent = (req: ProxyRequest): ProxyResponse => ({
  status: 204,
  headers: {
    "x-ms-version": req.headers["x-ms-version"] ?? "2025-11-05",
    "x-ms-request-id": crypto.randomUUID(),
    date: new Date().toUTCString(),
  },
  body: Buffer.alloc(0),
});

const wanted = (req: ProxyRequest) => Number(query(req).get("numofmessages") ?? "1");
const windowOf = (req: ProxyRequest) => Number(query(req).get("visibilitytimeout") ?? "30");
const textOfUpdate = (req: ProxyRequest) => field(req.body.toString("utf8"), "MessageText");

/** What the proxy knows of one message, by ID (IDs are GUIDs: unique across the runs sharing a proxy). */
interface Tracked {
  queue: string;
  /** The last <QueueMessage> element handed out. */
  xml: string;
  receipt: string;
  text: string;
  /** The DequeueCount the client last saw, and how far it is ahead of the target's. */
  shown: number;
  offset: number;
  /** TimeNextVisible (ms) of the current receipt. */
  tnv: number;
  deliveredAt: number;
  reserved: boolean;
  deleted: boolean;
  /** Receipts superseded by Update Message since the last dequeue. */
  updated: Set<string>;
}

function tracked(state: MutantState, id: string): Tracked | undefined {
  return state.get(`msg ${id}`) as Tracked | undefined;
}

/**
 * Follows each message through Get / Update / Delete Message answers; `shift`
 * rewrites the DequeueCount of real deliveries by the message's offset.
 */
function track(req: ProxyRequest, res: ProxyResponse, state: MutantState, shift = false): void {
  const op = opOf(req);
  if (op === "get" && res.status === 200) {
    const out = messagesOf(res).map((xml) => {
      const id = field(xml, "MessageId") ?? "";
      const prev = tracked(state, id);
      const offset = prev?.offset ?? 0;
      const count = Number(field(xml, "DequeueCount") ?? "0") + (shift ? offset : 0);
      const shown = shift ? withField(xml, "DequeueCount", String(count)) : xml;
      state.set(`msg ${id}`, {
        queue: queueOf(req),
        xml: shown,
        receipt: field(xml, "PopReceipt") ?? "",
        text: field(xml, "MessageText") ?? "",
        shown: count,
        offset,
        tnv: Date.parse(field(xml, "TimeNextVisible") ?? ""),
        deliveredAt: Date.now(),
        reserved: false,
        deleted: false,
        updated: new Set(),
      } satisfies Tracked);
      return shown;
    });
    if (shift) setMessages(res, out);
  }
  const m = op === "update" || op === "delete" ? tracked(state, idOfReq(req)) : undefined;
  if (!m || !ok(res)) return;
  if (op === "delete") m.deleted = true;
  else {
    m.updated.add(query(req).get("popreceipt") ?? "");
    m.receipt = res.headers["x-ms-popreceipt"] ?? m.receipt;
    m.tnv = Date.parse(res.headers["x-ms-time-next-visible"] ?? "") || m.tnv;
    m.text = textOfUpdate(req) ?? m.text;
  }
}

/** The message handed out again: one more DequeueCount, the current receipt and text, a new TimeNextVisible. */
function redelivery(m: Tracked, date: Date, visibility: number): string {
  m.shown += 1;
  m.offset += 1;
  let xml = withField(m.xml, "DequeueCount", String(m.shown));
  xml = withField(xml, "PopReceipt", m.receipt);
  xml = withField(xml, "MessageText", m.text);
  xml = withField(xml, "TimeNextVisible", new Date(date.getTime() + visibility * 1000).toUTCString());
  m.xml = xml;
  return xml;
}

/** Lingering deliveries of `queue` (delivered within `ms`, not deleted, not handed out again yet). */
function lingering(state: MutantState, queue: string, ms: number): Tracked[] {
  const out: Tracked[] = [];
  for (const [k, v] of state) {
    if (!k.startsWith("msg ")) continue;
    const m = v as Tracked;
    if (m.queue === queue && !m.deleted && !m.reserved && Date.now() - m.deliveredAt < ms) out.push(m);
  }
  return out;
}

const LINGER_MS = 400;
const RACE_MS = 50;
const lingerFor = new WeakMap<ProxyRequest, Tracked>();
const raceDups = new WeakMap<ProxyRequest, string[]>();

export const MUTANTS: Mutant[] = [
  {
    name: "queue-model-dequeue-lingers",
    description:
      "A dequeued message is hidden from other receivers only ~400 ms after Get Messages answered: a Get Messages meanwhile receives it again (DequeueCount + 1, the current receipt), inside the window it was given",
    kills: KILLS,
    killRate: RATE,
    onRequest(req, state) {
      if (opOf(req) !== "get") return;
      const m = lingering(state, queueOf(req), LINGER_MS)[0];
      if (!m) return;
      m.reserved = true;
      const n = wanted(req);
      if (n <= 1) return messagesAnswer(req, [redelivery(m, new Date(), windowOf(req))], new Date());
      // Room for it: the target is asked for one message fewer.
      const url = new URL(req.url, "http://x");
      url.searchParams.set("numofmessages", String(n - 1));
      req.url = url.pathname + url.search;
      lingerFor.set(req, m);
    },
    onResponse(req, res, state) {
      track(req, res, state, true);
      const m = lingerFor.get(req);
      if (!m || res.status !== 200) return;
      const id = field(m.xml, "MessageId");
      const real = messagesOf(res);
      // The target itself handed it out (it became visible meanwhile): nothing to add.
      if (real.some((x) => field(x, "MessageId") === id)) return;
      setMessages(res, [...real, redelivery(m, new Date(res.headers["date"] ?? Date.now()), windowOf(req))]);
    },
  },
  {
    name: "queue-model-concurrent-dequeue-race",
    description:
      "Get Messages reads the visible messages, then marks them taken ~50 ms later without a lock: a concurrent Get Messages on the queue receives the same messages (same DequeueCount), with a pop receipt the other dequeue overwrote",
    kills: KILLS,
    killRate: RATE,
    async onRequest(req, state) {
      if (opOf(req) !== "get") return;
      const key = `flight ${queueOf(req)}`;
      const flight = (state.get(key) as Set<ProxyRequest> | undefined) ?? new Set<ProxyRequest>();
      state.set(key, flight);
      flight.add(req);
      raceDups.set(req, []);
      await sleep(RACE_MS);
      const dups = raceDups.get(req)!;
      if (dups.length === 0) return;
      // It read the same snapshot as a dequeue that answered meanwhile: it takes those messages.
      flight.delete(req);
      return messagesAnswer(req, dups.slice(0, wanted(req)), new Date());
    },
    onResponse(req, res, state) {
      if (opOf(req) !== "get") return;
      const flight = state.get(`flight ${queueOf(req)}`) as Set<ProxyRequest> | undefined;
      flight?.delete(req);
      const got = messagesOf(res);
      // Already forwarded when a concurrent dequeue answered: its messages go in if there is room.
      const late = (raceDups.get(req) ?? []).filter((d) => !got.some((g) => field(g, "MessageId") === field(d, "MessageId")));
      if (late.length > 0 && got.length < wanted(req)) setMessages(res, [...got, ...late.slice(0, wanted(req) - got.length)]);
      if (got.length === 0 || !flight) return;
      // The loser's receipt: the target knows only the winner's.
      const lost = got.map((m) => withField(m, "PopReceipt", `${field(m, "PopReceipt")}LOST`));
      for (const other of flight) raceDups.get(other)?.push(...lost);
    },
  },
  {
    name: "queue-model-update-keeps-old-receipt",
    description:
      "Update Message does not retire the receipt it was given: until the next dequeue, the superseded receipt still deletes and updates the message (as the current one)",
    kills: KILLS,
    killRate: RATE,
    onRequest(req, state) {
      const op = opOf(req);
      if (op !== "update" && op !== "delete") return;
      const m = tracked(state, idOfReq(req));
      const url = new URL(req.url, "http://x");
      const sent = url.searchParams.get("popreceipt") ?? "";
      if (!m || sent === m.receipt || !m.updated.has(sent)) return;
      url.searchParams.set("popreceipt", m.receipt);
      req.url = url.pathname + url.search;
    },
    onResponse(req, res, state) {
      track(req, res, state);
    },
  },
  {
    // As Amazon SQS documents for its own replicas: "it is possible you will
    // receive a message even after you have deleted it".
    name: "queue-model-delete-lost-after-rewrite",
    description:
      "Delete Message of a message rewritten since its first dequeue (redelivered, DequeueCount ≥ 2, or updated) answers 204 with its current receipt but does not delete it, as if a replica that missed the rewrite took the delete: the message comes back",
    kills: KILLS,
    killRate: RATE,
    onRequest(req, state) {
      if (opOf(req) !== "delete") return;
      const m = tracked(state, idOfReq(req));
      if (!m || (m.shown < 2 && m.updated.size === 0) || query(req).get("popreceipt") !== m.receipt) return;
      return noContent(req);
    },
    onResponse(req, res, state) {
      track(req, res, state);
    },
  },
  ((asked = new WeakMap<ProxyRequest, number>()): Mutant => ({
    name: "queue-model-ttl-ignored",
    description:
      "Put Message's messagettl is ignored (the message lives on) while every answer (Put Message's, each delivery's) states the ExpirationTime asked: a message is delivered, or its receipt acts, after its ExpirationTime",
    kills: KILLS,
    killRate: RATE,
    onRequest(req) {
      if (req.service !== "queue" || req.method !== "POST" || segments(req).length !== 2) return;
      const ttl = Number(query(req).get("messagettl") ?? "0");
      if (!(ttl > 0)) return;
      asked.set(req, ttl);
      const u = new URL(req.url, "http://x");
      u.searchParams.delete("messagettl");
      req.url = u.pathname + u.search;
    },
    onResponse(req, res, state) {
      if (opOf(req) === "get" && ok(res)) {
        // Each delivery of such a message states the ExpirationTime its put was answered with.
        const stated = (m: string) => state.get(`expires:${field(m, "MessageId")}`) as string | undefined;
        setMessages(
          res,
          messagesOf(res).map((m) => (stated(m) ? withField(m, "ExpirationTime", stated(m)!) : m)),
        );
        return;
      }
      const ttl = asked.get(req);
      if (ttl === undefined || !ok(res)) return;
      const expires = new Date(Date.parse(res.headers["date"] ?? "") + ttl * 1000).toUTCString();
      const body = res.body.toString("utf8");
      state.set(`expires:${field(body, "MessageId")}`, expires);
      res.body = Buffer.from(withField(body, "ExpirationTime", expires));
    },
  }))(),
  {
    name: "queue-model-clear-ignored",
    description:
      "Clear Messages answers 204 but removes nothing (the invisible messages it should have taken come back, the visible ones stay)",
    kills: KILLS,
    killRate: RATE,
    onRequest(req) {
      if (req.service !== "queue" || req.method !== "DELETE" || segments(req).length !== 2 || segments(req)[1] !== "messages") return;
      return noContent(req);
    },
  },
  // Generated from the Get Messages window claim, judged by the model's rate (its 5 s windows run out while the drain receives).
  { ...endsAtHalf("get-visibility", "queue-model-get-window-ends-at-half", KILLS), cell: undefined, killRate: RATE },
];
