// Mutants for Q Queue messages and settings (suites/queue/*): at least one
// documented deviation per row, each named with the rows that must catch it.
import { query, segments, type Mutant, type MutantState, type ProxyRequest, type ProxyResponse } from "./types.ts";

type QueueOp =
  | "get-messages"
  | "peek"
  | "update-message"
  | "delete-message"
  | "set-metadata"
  | "set-acl"
  | "get-service-properties"
  | "set-service-properties";

function queueOp(req: ProxyRequest): QueueOp | undefined {
  if (req.service !== "queue") return undefined;
  const seg = segments(req);
  const q = query(req);
  if (seg.length === 0 && q.get("restype") === "service" && q.get("comp") === "properties") {
    return req.method === "GET" ? "get-service-properties" : req.method === "PUT" ? "set-service-properties" : undefined;
  }
  if (seg.length === 1 && req.method === "PUT")
    return q.get("comp") === "metadata" ? "set-metadata" : q.get("comp") === "acl" ? "set-acl" : undefined;
  if (seg.length === 2 && seg[1] === "messages" && req.method === "GET") return q.get("peekonly") === "true" ? "peek" : "get-messages";
  if (seg.length === 3 && seg[1] === "messages")
    return req.method === "PUT" ? "update-message" : req.method === "DELETE" ? "delete-message" : undefined;
  return undefined;
}

const is = (req: ProxyRequest, ...ops: QueueOp[]) => ops.includes(queueOp(req)!);
const ok = (res: ProxyResponse) => res.status >= 200 && res.status < 300;
const queueName = (req: ProxyRequest) => segments(req)[0];

const MESSAGE = /<QueueMessage>[\s\S]*?<\/QueueMessage>/g;
const idOf = (xml: string) => /<MessageId>([^<]*)<\/MessageId>/.exec(xml)?.[1] ?? "";

/** Rewrites the <QueueMessage> elements of a Get/Peek Messages answer. */
function rewriteMessages(res: ProxyResponse, fn: (messages: string[]) => string[]): void {
  if (res.status !== 200) return;
  const body = res.body.toString("utf8");
  const messages = body.match(MESSAGE) ?? [];
  const next = fn(messages).join("");
  const list = body.replace(
    /<QueueMessagesList\s*\/>|<QueueMessagesList>[\s\S]*<\/QueueMessagesList>/,
    `<QueueMessagesList>${next}</QueueMessagesList>`,
  );
  res.body = Buffer.from(list);
}

function queueError(status: number, code: string): ProxyResponse {
  return {
    status,
    headers: { "content-type": "application/xml", "x-ms-error-code": code, "x-ms-version": "2025-11-05" },
    body: Buffer.from(`<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`),
  };
}

/** Messages each queue handed out, by ID (the XML as delivered), until deleted. */
function delivered(state: MutantState, queue: string): Map<string, string> {
  const key = `delivered ${queue}`;
  if (!state.has(key)) state.set(key, new Map<string, string>());
  return state.get(key) as Map<string, string>;
}

/** Remembers each message's current pop receipt, as Get Messages and Update Message hand it out. */
function trackReceipts(req: ProxyRequest, res: ProxyResponse, state: MutantState): void {
  if (is(req, "get-messages")) {
    for (const m of res.body.toString("utf8").match(MESSAGE) ?? []) {
      const r = /<PopReceipt>([^<]*)<\/PopReceipt>/.exec(m)?.[1];
      if (r) state.set(`receipt ${idOf(m)}`, r);
    }
  }
  if (is(req, "update-message") && ok(res) && res.headers["x-ms-popreceipt"])
    state.set(`receipt ${segments(req)[2]}`, res.headers["x-ms-popreceipt"]);
}

/** Replaces a Delete / Update Message's receipt with the message's current one; true when it did. */
function useCurrentReceipt(req: ProxyRequest, state: MutantState): boolean {
  if (!is(req, "delete-message", "update-message")) return false;
  const current = state.get(`receipt ${segments(req)[2]}`) as string | undefined;
  const url = new URL(req.url, "http://x");
  if (!current || url.searchParams.get("popreceipt") === current) return false;
  url.searchParams.set("popreceipt", current);
  req.url = url.pathname + url.search;
  return true;
}

/** Requests whose stale receipt the proxy replaced (queue-stale-receipt-applied answers them as refused). */
const staleApplied = new WeakSet<ProxyRequest>();

export const MUTANTS: Mutant[] = [
  {
    name: "queue-peek-returns-pop-receipt",
    description: "Peek Messages returns a PopReceipt and a TimeNextVisible with each message",
    kills: ["queue/get-messages/pop-receipt"],
    onResponse(req, res) {
      if (!is(req, "peek")) return;
      rewriteMessages(res, (ms) =>
        ms.map((m) =>
          m.replace(
            /<\/MessageId>/,
            `</MessageId><PopReceipt>AgAAAAMAAAAAAAAA</PopReceipt><TimeNextVisible>${new Date().toUTCString()}</TimeNextVisible>`,
          ),
        ),
      );
    },
  },
  {
    name: "queue-dequeue-deletes",
    description: "Get Messages deletes what it returns: a dequeued message never comes back",
    kills: ["queue/get-messages/not-deleted", "queue/dequeue-count"],
    onResponse(req, res, state) {
      if (!is(req, "get-messages", "peek")) return;
      const gone = delivered(state, queueName(req));
      rewriteMessages(res, (ms) => ms.filter((m) => !gone.has(idOf(m))));
      if (is(req, "get-messages")) for (const m of res.body.toString("utf8").match(MESSAGE) ?? []) gone.set(idOf(m), m);
    },
  },
  {
    name: "queue-visibility-ignored",
    description: "A dequeued message stays visible: the next Get Messages, from any client, receives it again at once",
    kills: ["queue/get-messages/invisible", "queue/exclusive-delivery-race"],
    onResponse(req, res, state) {
      if (is(req, "delete-message") && ok(res)) delivered(state, queueName(req)).delete(segments(req)[2]);
      if (!is(req, "get-messages") || res.status !== 200) return;
      const out = delivered(state, queueName(req));
      const want = Number(query(req).get("numofmessages") ?? "1");
      rewriteMessages(res, (ms) => {
        const ids = new Set(ms.map(idOf));
        const again = [...out.entries()].filter(([id]) => !ids.has(id)).map(([, m]) => m);
        for (const m of ms) out.set(idOf(m), m);
        return [...ms, ...again].slice(0, want);
      });
    },
  },
  {
    name: "queue-visibility-timeout-shortened",
    description: "Get Messages applies a 1 s visibility timeout whatever visibilitytimeout asks",
    kills: ["queue/get-messages/time-next-visible"],
    onRequest(req) {
      if (!is(req, "get-messages")) return;
      const url = new URL(req.url, "http://x");
      if (Number(url.searchParams.get("visibilitytimeout") ?? "30") > 1) {
        url.searchParams.set("visibilitytimeout", "1");
        req.url = url.pathname + url.search;
      }
    },
  },
  {
    name: "queue-pop-receipt-unchecked",
    description: "Delete / Update Message accept any pop receipt (the proxy substitutes the message's current one)",
    kills: ["queue/delete-message/requires-pop-receipt", "queue/update-message/last-writer-wins"],
    onRequest(req, state) {
      useCurrentReceipt(req, state);
    },
    onResponse(req, res, state) {
      trackReceipts(req, res, state);
    },
  },
  {
    // Answers exactly as the embedded Azurite does (400 PopReceiptMismatch, its
    // pinned deviation), so only the rows' read-back of the message can catch it.
    name: "queue-stale-receipt-applied",
    description:
      "Delete / Update Message with a stale pop receipt answer 400 PopReceiptMismatch but are applied all the same (deleted, updated)",
    kills: [
      "queue/delete-message/requires-pop-receipt",
      "queue/delete-message/requires-pop-receipt/stale-receipt-code",
      "queue/update-message/last-writer-wins",
    ],
    onRequest(req, state) {
      if (useCurrentReceipt(req, state)) staleApplied.add(req);
    },
    onResponse(req, res, state) {
      if (staleApplied.has(req) && ok(res)) {
        const receipt = res.headers["x-ms-popreceipt"];
        Object.assign(res, queueError(400, "PopReceiptMismatch"));
        // The update happened: its new receipt is the message's current one.
        if (receipt) state.set(`receipt ${segments(req)[2]}`, receipt);
        return;
      }
      trackReceipts(req, res, state);
    },
  },
  {
    name: "queue-update-keeps-receipt",
    description: "Update Message answers with the pop receipt it was given instead of a new one",
    kills: ["queue/update-message/last-writer-wins", "queue/delete-message/requires-pop-receipt"],
    onResponse(req, res) {
      const sent = query(req).get("popreceipt");
      if (is(req, "update-message") && ok(res) && sent) res.headers["x-ms-popreceipt"] = sent;
    },
  },
  {
    name: "queue-dequeue-count-frozen",
    description: "DequeueCount stays at 1 however often a message is redelivered",
    kills: ["queue/dequeue-count"],
    onResponse(req, res) {
      if (is(req, "get-messages", "peek"))
        rewriteMessages(res, (ms) =>
          ms.map((m) => m.replace(/<DequeueCount>([1-9]\d*)<\/DequeueCount>/, "<DequeueCount>1</DequeueCount>")),
        );
    },
  },
  {
    name: "queue-service-properties-stale-read",
    description: "Get Queue Service Properties keeps answering the first value it served (later writes are not visible)",
    kills: ["queue/service-properties/last-writer-wins"],
    onResponse(req, res, state) {
      if (!is(req, "get-service-properties") || res.status !== 200) return;
      if (!state.has("first properties")) state.set("first properties", res.body);
      else res.body = state.get("first properties") as Buffer;
    },
  },
  {
    name: "queue-visibility-range-unchecked",
    description: "Get Messages clamps out-of-range visibilitytimeout (0 → 1) and numofmessages (0 → 1, 33 → 32) instead of answering 400",
    kills: ["queue/visibility-range"],
    onRequest(req) {
      if (!is(req, "get-messages")) return;
      const url = new URL(req.url, "http://x");
      const p = url.searchParams;
      if (p.get("visibilitytimeout") === "0") p.set("visibilitytimeout", "1");
      const n = p.get("numofmessages");
      if (n === "0") p.set("numofmessages", "1");
      if (n === "33") p.set("numofmessages", "32");
      req.url = url.pathname + url.search;
    },
  },
];
