// Mutants for Q message lifetime, Clear Messages and DequeueCount
// (suites/queue/message-lifetime.rows.ts, and the message windows of
// suites/window-kit.ts, whose early ends selftest/mutants/windows.ts
// generates): a message that never expires, an initial visibility ignored,
// Clear Messages that spares the messages, Update Message resetting
// DequeueCount, each named with the rows that must catch it.
import { errorAnswer, operation, query, segments, type Mutant, type MutantState, type ProxyRequest, type ProxyResponse } from "./types.ts";

const MESSAGE = /<QueueMessage>[\s\S]*?<\/QueueMessage>/g;
const idOf = (xml: string) => /<MessageId>([^<]*)<\/MessageId>/.exec(xml)?.[1] ?? "";
const countOf = (xml: string) => Number(/<DequeueCount>(\d+)<\/DequeueCount>/.exec(xml)?.[1] ?? NaN);

/** Drops a query parameter from a request. */
function withoutParameter(req: ProxyRequest, name: string): void {
  const u = new URL(req.url, "http://x");
  if (!u.searchParams.has(name)) return;
  u.searchParams.delete(name);
  req.url = u.pathname + u.search;
}

/** Rewrites the DequeueCount of each message of a Get or Peek Messages answer. */
function rewriteCounts(res: ProxyResponse, fn: (id: string, count: number) => number): void {
  if (res.status !== 200) return;
  res.body = Buffer.from(
    res.body
      .toString("utf8")
      .replace(MESSAGE, (m) => m.replace(/<DequeueCount>\d+<\/DequeueCount>/, `<DequeueCount>${fn(idOf(m), countOf(m))}</DequeueCount>`)),
  );
}

const isDequeue = (req: ProxyRequest) => operation(req) === "Get Messages";
const isPeek = (req: ProxyRequest) => operation(req) === "Peek Messages";

/** The refusal a target answers for a visibility timeout past the message's life (InvalidQueryParameterValue, as Azurite refuses a Put Message's). */
export const refusal = (req: ProxyRequest): ProxyResponse => errorAnswer(req, 400, "InvalidQueryParameterValue");

/** Remembers the ExpirationTime a Put Message answer states, by message ID. */
export function rememberExpiry(res: ProxyResponse, state: MutantState): void {
  if (res.status !== 201) return;
  const body = res.body.toString("utf8");
  const expires = Date.parse(/<ExpirationTime>([^<]*)<\/ExpirationTime>/.exec(body)?.[1] ?? "");
  if (idOf(body) && Number.isFinite(expires)) state.set(`expires ${idOf(body)}`, expires);
}

/** An Update Message whose visibility timeout ends after its message's remembered ExpirationTime. */
export function endsAfterExpiry(req: ProxyRequest, state: MutantState): boolean {
  const expires = state.get(`expires ${segments(req)[2]}`) as number | undefined;
  return expires !== undefined && Date.now() + Number(query(req).get("visibilitytimeout") ?? 0) * 1000 > expires;
}

export const MUTANTS: Mutant[] = [
  {
    name: "queue-update-beyond-expiry-refused-but-applied",
    description:
      "Update Message whose visibility timeout would end after the message's ExpirationTime answers 400, yet the update is applied (new text, hidden for the timeout asked)",
    kills: ["queue/update-message/visibility-beyond-expiry"],
    onResponse(req, res, state) {
      if (operation(req) === "Put Message") rememberExpiry(res, state);
      if (operation(req) === "Update Message" && res.status === 204 && endsAfterExpiry(req, state)) Object.assign(res, refusal(req));
    },
  },
  {
    name: "queue-put-beyond-ttl-refused-but-enqueued",
    description:
      "Put Message with a visibility timeout greater than its time to live answers 400, yet the message is enqueued (without the time to live) and delivered once the timeout ends",
    kills: ["queue/put-message/visibility-below-ttl"],
    onRequest(req, state) {
      if (operation(req) !== "Put Message") return;
      const [visibility, ttl] = [Number(query(req).get("visibilitytimeout") ?? 0), Number(query(req).get("messagettl") ?? Infinity)];
      if (ttl > 0 && visibility >= ttl) {
        withoutParameter(req, "messagettl");
        state.set(`refuse ${req.url}`, true);
      }
    },
    onResponse(req, res, state) {
      if (state.get(`refuse ${req.url}`) && res.status === 201) Object.assign(res, refusal(req));
    },
  },
  {
    name: "queue-message-ttl-ignored",
    description:
      "Put Message ignores messagettl: every message lives the default 7 days (and -1 reads as 7 days), so nothing expires and no limit follows from the time to live",
    kills: [
      "queue/message-ttl/expiry",
      "queue/message-ttl/expires-while-invisible",
      "queue/message-ttl/infinite",
      "queue/put-message/visibility-below-ttl",
      "queue/update-message/visibility-beyond-expiry",
    ],
    onRequest(req) {
      if (operation(req) === "Put Message") withoutParameter(req, "messagettl");
    },
  },
  {
    name: "queue-put-visibility-ignored",
    description:
      "Put Message ignores visibilitytimeout: the message is visible at once (its answer still states the TimeNextVisible asked)",
    kills: ["queue/put-message/initial-invisibility"],
    onRequest(req, state) {
      if (operation(req) !== "Put Message" || !query(req).has("visibilitytimeout")) return;
      const asked = Number(query(req).get("visibilitytimeout"));
      withoutParameter(req, "visibilitytimeout");
      state.set(`asked ${req.url}`, asked);
    },
    onResponse(req, res, state) {
      const asked = state.get(`asked ${req.url}`) as number | undefined;
      if (asked === undefined || res.status !== 201) return;
      const later = (v: string) => new Date(Date.parse(v) + asked * 1000).toUTCString();
      res.body = Buffer.from(
        res.body
          .toString("utf8")
          .replace(/<TimeNextVisible>([^<]*)<\/TimeNextVisible>/, (_, v: string) => `<TimeNextVisible>${later(v)}</TimeNextVisible>`),
      );
    },
  },
  {
    name: "queue-clear-spares-messages",
    description:
      "Clear Messages answers 204 but removes nothing: a dequeued (invisible) message survives it, its receipt still works, and it comes back",
    kills: ["queue/clear-messages/includes-invisible"],
    onRequest(req) {
      if (operation(req) !== "Clear Messages") return;
      return {
        status: 204,
        headers: { "x-ms-version": req.headers["x-ms-version"] ?? "", date: new Date().toUTCString() },
        body: Buffer.alloc(0),
      };
    },
  },
  {
    name: "queue-update-resets-dequeue-count",
    description: "Update Message resets DequeueCount: after it, Peek shows 0 deliveries and the next Get Messages 1",
    kills: ["queue/update-message/dequeue-count-unchanged"],
    onResponse(req, res, state) {
      if (isDequeue(req)) for (const m of res.body.toString("utf8").match(MESSAGE) ?? []) state.set(`count ${idOf(m)}`, countOf(m));
      if (operation(req) === "Update Message" && res.status === 204) {
        const id = segments(req)[2];
        state.set(`reset ${id}`, state.get(`count ${id}`) ?? 0);
      }
      if (isDequeue(req) || isPeek(req)) rewriteCounts(res, (id, n) => n - ((state.get(`reset ${id}`) as number | undefined) ?? 0));
    },
  },
];
