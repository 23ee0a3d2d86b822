// The queue delivery model's reference (catalogue M, `queue/delivery-model`):
// one message as catalogue Q documents it, and a pure step from its state, an
// action and the answer given to whether the reference allows that answer and
// the state it leaves. No target, no clock and no run control here:
// delivery-check.ts judges each message's recorded history against it, and
// selftest/unit/delivery-reference.test.ts checks it without a target.
import type { Model } from "../../fixtures/harness/linearizability.ts";

/** The server's clocks have one-second granularity: Date and TimeNextVisible may disagree by this much. */
export const SLACK_MS = 1000;
/**
 * A message must be visible again by a Date this long after its TimeNextVisible:
 * the granularity, plus a window legally ending up to 1 s late.
 */
export const LAPSED_MS = 2 * SLACK_MS;

/**
 * One message as the documentation describes it. `exists: "maybe"` and more
 * than one candidate receipt only arise under a relaxation (used to name the
 * invariant a failing history breaks).
 */
export interface MsgState {
  exists: boolean | "maybe";
  count: number;
  receipts: string[];
  /** The TimeNextVisible it was last given (ms). */
  visibleAt: number;
  /** The ExpirationTime Put Message gave (ms). */
  expiresAt?: number;
  text: string;
}

/** clear: Clear Messages, `certain` when it was sent after the put had returned (else the put may have come after it). */
export type MsgInput =
  | { op: "get" }
  | { op: "update"; receipt: string; text: string; visibility: number }
  | { op: "delete"; receipt: string }
  | { op: "clear"; certain: boolean }
  | { op: "absent" };
/** `ok`: 2xx. get: what was delivered; update: the new receipt and TimeNextVisible; absent: the drain's last Date. */
export interface MsgOutput {
  ok: boolean;
  date?: number;
  count?: number;
  receipt?: string;
  tnv?: number;
  expires?: number;
  text?: string;
}

/** Each relaxation drops one documented rule; the first that explains a failing history names the broken invariant. */
export const RELAXATIONS = [
  {
    relax: "dup",
    signature: "a message was delivered to two receivers within one visibility window",
    rule: "one dequeue (one DequeueCount) was handed out twice",
  },
  {
    relax: "window",
    signature: "a message was delivered before the TimeNextVisible it was last given",
    rule: "a delivery's Date is more than 1 s before the TimeNextVisible the message was last given (by Put, Get or Update Message)",
  },
  {
    relax: "stale",
    signature: "a stale pop receipt deleted or updated a message",
    rule: "Delete / Update Message succeeded with a receipt that was no longer the message's current one",
  },
  {
    relax: "deleted",
    signature: "a deleted message came back",
    rule: "a message was delivered (or updated) after a Delete Message succeeded",
  },
  {
    relax: "cleared",
    signature: "a message came back after Clear Messages",
    rule: "a message put before Clear Messages (visible or not) was delivered, updated or deleted after it",
  },
  {
    relax: "expired",
    signature: "a message was delivered, updated or deleted after its ExpirationTime",
    rule: "an answer dated more than 1 s past the message's ExpirationTime (Put Message's) delivered it or let its receipt act",
  },
  {
    relax: "expires",
    signature: "a delivery's ExpirationTime is not the one Put Message gave",
    rule: "Get Messages reported another ExpirationTime than the Put Message answer",
  },
  {
    relax: "count",
    signature: "a delivery's DequeueCount is not the previous one + 1",
    rule: "DequeueCount did not grow by exactly one per delivery",
  },
  {
    relax: "text",
    signature: "a delivered message's text is not the last successfully updated one",
    rule: "a delivery carried another text than the put's or the last successful update's",
  },
  {
    relax: "absent",
    signature: "an undeleted message did not come back after its visibility timeout",
    rule: "the drain did not receive a message that was never deleted, its TimeNextVisible long past",
  },
  {
    relax: "current",
    signature: "Delete / Update Message refused the message's current pop receipt",
    rule: "an operation with the current receipt was refused",
  },
] as const;
export type Relax = (typeof RELAXATIONS)[number]["relax"];
export const UNEXPLAINED = "the deliveries of a message cannot be explained by the documented behaviour";

export function messageModel(init: MsgState, relax: ReadonlySet<Relax>): Model<MsgState, MsgInput, MsgOutput> {
  return {
    init: () => init,
    step(s, input, o) {
      const no = { ok: false, state: s };
      if (!o) return no; // unanswered operations end the row before any check
      const yes = (state: MsgState) => ({ ok: true, state });
      // Past its ExpirationTime for sure by the answer's Date (1 s of granularity allowed)...
      const expired = () => s.expiresAt !== undefined && o.date !== undefined && o.date >= s.expiresAt + SLACK_MS;
      // ...or possibly, `leadMs` after the answer's Date.
      const mayHaveExpired = (leadMs: number) =>
        s.expiresAt !== undefined && o.date !== undefined && o.date + leadMs >= s.expiresAt - SLACK_MS;
      switch (input.op) {
        case "get": {
          if (s.exists === false) return no;
          if (expired() && !relax.has("expired")) return no;
          if (o.expires !== undefined && s.expiresAt !== undefined && o.expires !== s.expiresAt && !relax.has("expires")) return no;
          const textOk = o.text === s.text || relax.has("text");
          if (!textOk) return no;
          const visible = s.visibleAt <= o.date! + SLACK_MS || relax.has("window");
          if (visible && (o.count === s.count + 1 || relax.has("count"))) {
            return yes({ ...s, exists: true, count: o.count!, receipts: [o.receipt!], visibleAt: o.tnv!, text: o.text! });
          }
          // The same dequeue handed to a second receiver: same DequeueCount, inside its window (or with
          // its very TimeNextVisible); nothing else changes.
          const again = o.count === s.count && s.count > 0 && (o.tnv === s.visibleAt || o.date! < s.visibleAt);
          if (relax.has("dup") && again) return yes({ ...s, receipts: [...new Set([...s.receipts, o.receipt!])] });
          return no;
        }
        case "update":
        case "delete": {
          const holds = s.exists !== false && s.receipts.includes(input.receipt);
          if (o.ok) {
            if (s.exists === false) return no;
            if (!holds && !relax.has("stale")) return no;
            if (expired() && !relax.has("expired")) return no;
            if (input.op === "delete") return yes({ ...s, exists: relax.has("deleted") ? "maybe" : false });
            return yes({ ...s, exists: true, receipts: [o.receipt!], visibleAt: o.tnv!, text: input.text });
          }
          const current = s.exists === true && s.receipts.length === 1 && s.receipts[0] === input.receipt;
          // Near or past its expiry the current receipt may be refused: the message is gone, or (Update
          // Message) the new visibility timeout would end after the ExpirationTime (catalogue Q).
          const ending = mayHaveExpired(input.op === "update" ? input.visibility * 1000 : 0);
          if (current && !ending && !relax.has("current")) return no;
          return yes(s.receipts.length > 1 ? { ...s, receipts: s.receipts.filter((r) => r !== input.receipt) } : s);
        }
        case "clear":
          if (s.exists === false) return yes(s);
          return yes({ ...s, exists: input.certain && !relax.has("cleared") ? false : "maybe" });
        case "absent":
          // Visible for sure, even allowing for the clocks' granularity and a window ending 1 s late, and not yet expired, yet not received.
          return s.exists === true && s.visibleAt <= o.date! - LAPSED_MS && !mayHaveExpired(0) && !relax.has("absent") ? no : yes(s);
      }
    },
  };
}
