// S The whole concurrency surface, queue side: the queue parameters no row of
// another section sends out of its range on its own (section Q's ranges).
// `queue/surface/<operation>/<parameter>`: the request with a value out of
// range is refused 400 and leaves the queue as it was (nothing enqueued; the
// message's receipt still the current one), then one in range succeeds. One
// rule at a time (catalogue S, Live corrections): a visibility timeout past 7
// days is sent with a message that never expires, since a timeout at or past
// the time to live is a refusal of its own; the code is disputed
// (OutOfRangeQueryParameterValue or InvalidQueryParameterValue).
import type { QueueClient } from "@azure/storage-queue";
import { expectEqual, expectPresent, expectRawStatus, expectTrue } from "../../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../../fixtures/harness/engine.ts";
import { claimAt } from "../../../fixtures/harness/locations.ts";
import { defineTable } from "../../../fixtures/harness/registry.ts";
import type { RawResponse } from "../../../fixtures/wire/raw.ts";
import { currentEvidence } from "../../../fixtures/wire/evidence.ts";
import { expectOk } from "../../blob/rest-kit.ts";
import { ANY_QUEUE_SUBJECT, queueOp } from "../operations.ts";
import { MESSAGE_REQUEST, peek, queueSource, rawGetMessages } from "../queue-kit.ts";
import { answer, claimOn, SUCCESS, type ClaimedAnswer } from "../../../fixtures/harness/claims.ts";

export interface QueueSurfaceCell {
  operation: "Put Message" | "Update Message";
  slug: string;
  parameter: "visibilitytimeout" | "messagettl";
  failing: string;
  holding: string;
  /** The range's other ends (catalogue: every range at both ends): values just outside refused alike, values at the ends accepted. */
  ends: { failing: string[]; holding: string[] };
  /** The range section Q gives, for people. */
  range: string;
  /** Sent with both values, so that the value under test breaks no other rule (Put Message: a time to live of -1). */
  with?: Record<string, string>;
}

const SEVEN_DAYS = 7 * 24 * 3600;

export const QUEUE_SURFACE_CELLS: QueueSurfaceCell[] = [
  {
    operation: "Put Message",
    slug: "put-message",
    parameter: "visibilitytimeout",
    failing: String(SEVEN_DAYS + 1),
    holding: "0",
    ends: { failing: ["-1"], holding: [String(SEVEN_DAYS)] },
    range: "0 to 7 days",
    with: { messagettl: "-1" },
  },
  {
    operation: "Put Message",
    slug: "put-message",
    parameter: "messagettl",
    failing: "0",
    holding: "60",
    ends: { failing: ["-2"], holding: ["1", "-1"] },
    range: "-1 (never expires) or 1 s and more",
  },
  {
    operation: "Update Message",
    slug: "update-message",
    parameter: "visibilitytimeout",
    failing: String(SEVEN_DAYS + 1),
    holding: "0",
    ends: { failing: ["-1"], holding: [String(SEVEN_DAYS)] },
    range: "0 to 7 days",
  },
];

/** Section Q: a value out of range is refused 400, with one of two codes (catalogue S: the code is disputed; the row notes which). */
export const REFUSAL = { status: 400, code: ["OutOfRangeQueryParameterValue", "InvalidQueryParameterValue"] };
/** The record's request (suites/queue/operations.ts) with the parameter at `value`. */
async function send(
  t: RowContext,
  what: string,
  cell: QueueSurfaceCell,
  q: QueueClient,
  value: string,
  to?: { id: string; receipt: string },
) {
  t.step(what);
  const req = queueOp(cell.slug).request({ queue: q.name, messageId: to?.id, popReceipt: to?.receipt });
  const res = await t.raw("queue", { ...req, query: { ...req.query, ...cell.with, [cell.parameter]: value } });
  const url = currentEvidence()?.exchanges.at(-1)?.url ?? "";
  expectTrue(
    `${what}: ${cell.parameter} was not sent (the recorded request's query)`,
    new URL(url, "http://x").searchParams.get(cell.parameter) === value,
  );
  return res;
}

/** The text the record's request writes. */
const textOf = (cell: QueueSurfaceCell) => /<MessageText>([^<]*)</.exec(String(queueOp(cell.slug).request(ANY_QUEUE_SUBJECT).body))?.[1];

const texts = async (t: RowContext, q: QueueClient) => (await peek(t, q)).map((m) => m.text);

const messageCount = async (t: RowContext, q: QueueClient) =>
  (await t.raw("queue", { method: "GET", path: `/${q.name}`, query: { comp: "metadata" } })).headers["x-ms-approximate-messages-count"];

/** A Put Message answer's lifetime: ExpirationTime − InsertionTime, in seconds (the body's dates). */
function lifetimeOf(res: RawResponse): number {
  const at = (tag: string) => Date.parse(new RegExp(`<${tag}>([^<]*)<`).exec(res.body)?.[1] ?? "");
  return (at("ExpirationTime") - at("InsertionTime")) / 1000;
}

async function putMessage(t: RowContext, cell: QueueSurfaceCell): Promise<RawResponse> {
  const q = await t.newQueue();
  const refused = await send(t, `Put Message with ${cell.parameter} ${cell.failing}`, cell, q, cell.failing);
  expectRawStatus(`Put Message with ${cell.parameter} ${cell.failing}`, refused, { status: REFUSAL.status });
  t.step("read back after the refused request");
  expectEqual("x-ms-approximate-messages-count after the refused Put Message", await messageCount(t, q), "0");
  const held = `Put Message with ${cell.parameter} ${cell.holding}`;
  expectOk(held, await send(t, held, cell, q, cell.holding), 201);
  t.step("read back after the permitted request");
  expectEqual(`${held}: the visible messages`, await texts(t, q), [textOf(cell)]);
  // The range's other ends: one past them refused, nothing enqueued; at them accepted.
  for (const value of cell.ends.failing) {
    const what = `Put Message with ${cell.parameter} ${value}`;
    expectRawStatus(what, await send(t, what, cell, q, value), { status: REFUSAL.status });
    expectEqual(`x-ms-approximate-messages-count after the refused ${what}`, await messageCount(t, q), "1");
  }
  for (const value of cell.ends.holding) {
    const what = `Put Message with ${cell.parameter} ${value}`;
    const res = await send(t, what, cell, q, value);
    expectOk(what, res, 201);
    // A 1 s time to live may run out before a read: the answer's own dates show the message was taken with it.
    if (cell.parameter === "messagettl" && value !== "-1")
      expectEqual(`${what}: ExpirationTime − InsertionTime (s)`, lifetimeOf(res), Number(value));
  }
  return refused;
}

async function updateMessage(t: RowContext, cell: QueueSurfaceCell): Promise<RawResponse> {
  const q = await t.newQueue();
  // A message that never expires: the visibility timeout under test breaks the 7-day range alone.
  await q.sendMessage("original", { messageTimeToLive: -1 });
  t.step("Get Messages (visibilitytimeout 30): the receipt");
  const [m] = (await rawGetMessages(t, q, { visibilitytimeout: "30" })).messages;
  expectEqual("Get Messages: messages received", m ? 1 : 0, 1);
  const to = { id: m.messageId, receipt: m.popReceipt ?? "" };
  const what = `Update Message with ${cell.parameter} ${cell.failing}`;
  const refused = await send(t, what, cell, q, cell.failing, to);
  expectRawStatus(what, refused, { status: REFUSAL.status });
  // An applied update issues a new receipt: the old one still working shows the refused update changed nothing.
  const held = `Update Message with ${cell.parameter} ${cell.holding} and the receipt read before the refused update`;
  const updated = await send(t, held, cell, q, cell.holding, to);
  expectOk(held, updated, 204);
  t.step("read back after the permitted request");
  expectEqual(`${held}: the visible messages`, await texts(t, q), [textOf(cell)]);
  // The range's other ends, each with the receipt the last update gave: one past them refused, at them accepted.
  let receipt = expectPresent(`${held}: x-ms-popreceipt`, updated.headers["x-ms-popreceipt"]);
  for (const value of cell.ends.failing) {
    const end = `Update Message with ${cell.parameter} ${value}`;
    expectRawStatus(end, await send(t, end, cell, q, value, { id: to.id, receipt }), { status: REFUSAL.status });
  }
  for (const value of cell.ends.holding) {
    const end = `Update Message with ${cell.parameter} ${value} and the receipt read before`;
    const res = await send(t, end, cell, q, value, { id: to.id, receipt });
    expectOk(end, res, 204);
    receipt = expectPresent(`${end}: x-ms-popreceipt`, res.headers["x-ms-popreceipt"]);
    expectEqual(`${end}: the visible messages`, await texts(t, q), Number(value) > 0 ? [] : [textOf(cell)]);
  }
  return refused;
}

/** What a cell claims Azure answers, as data (fixtures/harness/claims.ts): out of range refused 400 with either code, in range let through. */
function answersOf(cell: QueueSurfaceCell): ClaimedAnswer[] {
  const request = cell.operation === "Put Message" ? MESSAGE_REQUEST.put : MESSAGE_REQUEST.update;
  const other = cell.parameter === "visibilitytimeout" ? "messagettl" : "visibilitytimeout";
  const also: Record<string, string[]> = {
    [other]: ["zero", "in-range", "infinite"],
    ...(cell.operation === "Update Message" ? { popreceipt: ["current"] } : {}),
  };
  return [
    claimOn(
      "queue",
      request,
      { params: { [cell.parameter]: "out-of-range" }, also },
      REFUSAL.code.map((c) => answer(400, c)),
    ),
    claimOn("queue", request, { params: { [cell.parameter]: ["zero", "in-range", "infinite"] }, also }, SUCCESS),
  ];
}

function cellRow(cell: QueueSurfaceCell): RowDef {
  return {
    id: `queue/surface/${cell.slug}/${cell.parameter}`,
    claim: claimAt(import.meta.url, `parameter: "${cell.parameter}"`, `operation: "${cell.operation}"`),
    title: `${cell.operation}: ${cell.parameter} out of its range (${cell.range}) is refused 400 (${REFUSAL.code.join(" or ")}, disputed) at both ends (${[cell.failing, ...cell.ends.failing].join(", ")}), the queue unchanged; at its ends and inside it succeeds (${[cell.holding, ...cell.ends.holding].join(", ")})`,
    level: "disputed",
    source: queueSource(`${cell.operation}; section S: every operation honours every concurrency parameter it takes`),
    service: "queue",
    surface: [{ operation: cell.operation, parameter: cell.parameter }],
    answers: answersOf(cell),
    async run(t) {
      const refused = await (cell.operation === "Put Message" ? putMessage(t, cell) : updateMessage(t, cell));
      t.note("code", refused.errorCode ?? null);
      t.step(`${cell.operation} with ${cell.parameter} ${cell.failing}: its error code`);
      expectRawStatus(`${cell.operation} with ${cell.parameter} ${cell.failing}: error code`, refused, REFUSAL);
    },
  };
}

defineTable({ table: "S The whole concurrency surface (queue)", service: "queue" }, QUEUE_SURFACE_CELLS.map(cellRow));
