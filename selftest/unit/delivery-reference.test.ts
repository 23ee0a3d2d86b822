// The queue delivery model's reference (suites/queue/delivery-reference.ts)
// without a target: the answers it allows to each action in each state that
// catalogue Q describes, time moving a message through its visibility end and
// its expiry with the catalogue's one second, and the checker
// (suites/queue/delivery-check.ts) refusing histories the reference does not
// allow. The margins are read from the catalogue's own text, not the reference.
import { expect } from "chai";
import { catalogueText, tableAfter } from "./catalogue-text.ts";
import { messageModel, type MsgInput, type MsgOutput, type MsgState, type Relax } from "../../suites/queue/delivery-reference.ts";
import { checkMessage, expectAnswersAsAsked, violationsOf, type Delivered, type Event } from "../../suites/queue/delivery-check.ts";

const T0 = Date.parse("2026-11-25T12:00:00Z");

/** The claims of catalogue Q (both tables), by ID. */
function claimsOfQ(): Map<string, string> {
  const text = catalogueText();
  const rows = [...tableAfter(text, "## Q Queue messages"), ...tableAfter(text, "Message lifetime, Clear Messages")];
  return new Map(rows.map(([id, , claim]) => [id.replace(/`/g, ""), claim]));
}

function claim(id: string): string {
  const text = claimsOfQ().get(id);
  expect(text, `catalogue Q has no claim ${id}`).to.be.a("string");
  return text!;
}

/** The server clock's granularity, as catalogue Q states it for TimeNextVisible (±1 s). */
const SECOND = Number(/±(\d+) s/.exec(claim("get-messages/time-next-visible"))?.[1]) * 1000;
/** A message is visible for sure this long after its TimeNextVisible: the granularity, and its window probed "one second allowed" past its end. */
const LAPSE = 2 * SECOND;

/** A message put at T0, visible at once, never dequeued. */
function message(extra: Partial<MsgState> = {}): MsgState {
  return { exists: true, count: 0, receipts: ["r0"], visibleAt: T0, text: "put", ...extra };
}

/** The state the reference leaves after `input` answered `output`, or undefined when it does not allow that answer. */
function after(s: MsgState, input: MsgInput, output: MsgOutput, relax: Relax[] = []): MsgState | undefined {
  const r = messageModel(s, new Set(relax)).step(s, input, output);
  return r.ok ? r.state : undefined;
}

const GET: MsgInput = { op: "get" };
/** A delivery dated `date`, with a 30 s window. */
const delivery = (date: number, count: number, extra: Partial<MsgOutput> = {}): MsgOutput => ({
  ok: true,
  date,
  count,
  receipt: `r${count}`,
  tnv: date + 30_000,
  text: "put",
  ...extra,
});
const del = (receipt: string): MsgInput => ({ op: "delete", receipt });
const upd = (receipt: string, visibility: number, text = "updated"): MsgInput => ({ op: "update", receipt, text, visibility });
const answered = (date: number, extra: Partial<MsgOutput> = {}): MsgOutput => ({ ok: true, date, ...extra });
const refused = (date: number): MsgOutput => ({ ok: false, date });

describe("the queue delivery model's reference: receipts, DequeueCount, deletes and Clear Messages as catalogue Q states them", function () {
  it("reads its margin from catalogue Q's own text: TimeNextVisible ±N s, windows probed with one second allowed", function () {
    expect(SECOND, "the ±N s of get-messages/time-next-visible").to.be.above(0);
    expect(claim("get-messages/invisible-until-end")).to.include("one second allowed");
  });

  it("delivers a visible message with DequeueCount + 1 and a new receipt, which alone deletes it (get-messages/pop-receipt, dequeue-count, delete-message/requires-pop-receipt)", function () {
    claim("dequeue-count");
    const got = after(message(), GET, delivery(T0, 1));
    expect(got).to.deep.equal({ exists: true, count: 1, receipts: ["r1"], visibleAt: T0 + 30_000, text: "put" });
    expect(after(message(), GET, delivery(T0, 2)), "DequeueCount skipping one").to.equal(undefined);
    expect(after(message(), GET, delivery(T0, 0)), "DequeueCount not grown").to.equal(undefined);
    expect(after(message(), GET, delivery(T0, 1, { text: "other" })), "another text").to.equal(undefined);
    expect(after(got!, del("r0"), answered(T0)), "the superseded receipt deleting").to.equal(undefined);
    expect(after(got!, del("r0"), refused(T0)), "the superseded receipt refused").to.deep.equal(got);
    expect(after(got!, del("r1"), answered(T0))?.exists).to.equal(false);
    expect(after(got!, del("r1"), refused(T0)), "the current receipt refused").to.equal(undefined);
    expect(after(got!, del("r1"), refused(T0), ["current"]), "… allowed only without the rule").to.not.equal(undefined);
  });

  it("lets Update Message with the current receipt replace receipt, window and text, DequeueCount unchanged (update-message/last-writer-wins, dequeue-count-unchanged, invisible-until-end)", function () {
    claim("update-message/dequeue-count-unchanged");
    const held = message({ count: 1, receipts: ["r1"], visibleAt: T0 + 30_000 });
    const updated = after(held, upd("r1", 5), answered(T0, { receipt: "r2", tnv: T0 + 5_000 }));
    expect(updated).to.deep.equal({ exists: true, count: 1, receipts: ["r2"], visibleAt: T0 + 5_000, text: "updated" });
    expect(after(updated!, GET, delivery(T0 + 5_000, 2, { text: "updated" }))?.count, "the next delivery: + 1, the new text").to.equal(2);
    expect(after(updated!, GET, delivery(T0 + 5_000, 3, { text: "updated" })), "DequeueCount moved by the update").to.equal(undefined);
    expect(after(updated!, GET, delivery(T0 + 5_000, 2)), "the text before the update").to.equal(undefined);
    expect(after(updated!, GET, delivery(T0 + 4_000 - 1, 2, { text: "updated" })), "before the update's TimeNextVisible").to.equal(
      undefined,
    );
    expect(after(updated!, upd("r1", 0), answered(T0, { receipt: "r3", tnv: T0 })), "the superseded receipt updating").to.equal(undefined);
    expect(
      after(updated!, upd("r1", 0), answered(T0, { receipt: "r3", tnv: T0 }), ["stale"]),
      "… allowed only without the rule",
    ).to.not.equal(undefined);
    expect(after(updated!, upd("r1", 0), refused(T0))).to.deep.equal(updated);
  });

  it("never brings back a deleted message, nor lets its receipt act (delete-message/requires-pop-receipt)", function () {
    const gone = after(message({ count: 1, receipts: ["r1"], visibleAt: T0 + 1_000 }), del("r1"), answered(T0))!;
    expect(after(gone, GET, delivery(T0 + 60_000, 2))).to.equal(undefined);
    expect(after(gone, upd("r1", 0), answered(T0, { receipt: "r2", tnv: T0 }))).to.equal(undefined);
    expect(after(gone, del("r1"), answered(T0))).to.equal(undefined);
    expect(after(gone, del("r1"), refused(T0))).to.deep.equal(gone);
    expect(after(gone, { op: "absent" }, answered(T0 + 60_000))).to.deep.equal(gone);
  });

  it("takes invisible messages with Clear Messages, unless the put may have come after it (clear-messages/includes-invisible)", function () {
    claim("clear-messages/includes-invisible");
    const invisible = message({ count: 1, receipts: ["r1"], visibleAt: T0 + 30_000 });
    const cleared = after(invisible, { op: "clear", certain: true }, answered(T0))!;
    expect(cleared.exists).to.equal(false);
    expect(after(cleared, GET, delivery(T0 + 31_000, 2))).to.equal(undefined);
    expect(after(cleared, del("r1"), answered(T0 + 1_000))).to.equal(undefined);
    expect(after(cleared, del("r1"), refused(T0 + 1_000))).to.deep.equal(cleared);
    const unsure = after(message(), { op: "clear", certain: false }, answered(T0))!;
    expect(after(unsure, GET, delivery(T0, 1))?.exists, "a put that may have followed the clear").to.equal(true);
    expect(after(unsure, { op: "absent" }, answered(T0 + 60_000))).to.deep.equal(unsure);
  });
});

describe("the queue delivery model's reference: time through a visibility window's end and an expiry, with catalogue Q's one second", function () {
  it("keeps a dequeued message invisible until its TimeNextVisible, one second allowed (get-messages/invisible, invisible-until-end, not-deleted)", function () {
    claim("get-messages/not-deleted");
    const held = message({ count: 1, receipts: ["r1"], visibleAt: T0 + 5_000 });
    expect(after(held, GET, delivery(T0 + 5_000 - SECOND - 1, 2)), "before the end, past the granularity").to.equal(undefined);
    expect(after(held, GET, delivery(T0 + 5_000 - SECOND - 1, 2), ["window"]), "… allowed only without the rule").to.not.equal(undefined);
    expect(after(held, GET, delivery(T0 + 5_000 - SECOND, 2))?.count, "within the granularity").to.equal(2);
    expect(after(held, GET, delivery(T0 + 5_000, 2))?.receipts).to.deep.equal(["r2"]);
    // The same dequeue handed to a second receiver inside its window.
    const again = delivery(T0 + 1_000, 1, { receipt: "r1b", tnv: T0 + 5_000 });
    expect(after(held, GET, again), "one dequeue handed out twice").to.equal(undefined);
    expect(after(held, GET, again, ["dup"])?.receipts).to.deep.equal(["r1", "r1b"]);
  });

  it("moves a message through its ExpirationTime, one second allowed each side (message-ttl/expiry)", function () {
    claim("message-ttl/expiry");
    const ttl = message({ expiresAt: T0 + 4_000 });
    expect(after(ttl, GET, delivery(T0 + 4_000 + SECOND - 1, 1, { expires: T0 + 4_000 }))?.count, "within the granularity").to.equal(1);
    expect(after(ttl, GET, delivery(T0 + 4_000 + SECOND, 1)), "past it").to.equal(undefined);
    expect(after(ttl, GET, delivery(T0 + 4_000 + SECOND, 1), ["expired"]), "… allowed only without the rule").to.not.equal(undefined);
    expect(after(ttl, GET, delivery(T0, 1, { expires: T0 + 5_000 })), "another ExpirationTime than Put Message's").to.equal(undefined);
    expect(after(ttl, del("r0"), answered(T0 + 4_000 + SECOND - 1))?.exists).to.equal(false);
    expect(after(ttl, del("r0"), answered(T0 + 4_000 + SECOND)), "a receipt acting past it").to.equal(undefined);
    // The current receipt may be refused only near or past the expiry.
    expect(after(ttl, del("r0"), refused(T0 + 4_000 - SECOND - 1))).to.equal(undefined);
    expect(after(ttl, del("r0"), refused(T0 + 4_000 - SECOND))).to.deep.equal(ttl);
  });

  it("may refuse Update Message's current receipt once the new window would end after the ExpirationTime, or accept it (update-message/visibility-beyond-expiry)", function () {
    expect(claim("update-message/visibility-beyond-expiry")).to.include("or 204, and the message never comes back");
    const held = message({ count: 1, receipts: ["r1"], visibleAt: T0 + 30_000, expiresAt: T0 + 6_000 });
    expect(after(held, upd("r1", 8), refused(T0)), "8 s past an expiry 6 s away").to.deep.equal(held);
    expect(after(held, upd("r1", 5), refused(T0)), "ends a second before the expiry, within the granularity").to.deep.equal(held);
    expect(after(held, upd("r1", 4), refused(T0)), "ends before the expiry").to.equal(undefined);
    const accepted = after(held, upd("r1", 8), answered(T0, { receipt: "r2", tnv: T0 + 8_000 }))!;
    expect(accepted.visibleAt).to.equal(T0 + 8_000);
    // It expires while invisible (message-ttl/expires-while-invisible): it never comes back.
    claim("message-ttl/expires-while-invisible");
    expect(after(accepted, GET, delivery(T0 + 8_000, 2))).to.equal(undefined);
    expect(after(accepted, { op: "absent" }, answered(T0 + 60_000))).to.deep.equal(accepted);
  });

  it("expects a message neither deleted, cleared nor expired back once its window is surely over (the drain)", function () {
    const due = message({ count: 1, receipts: ["r1"], visibleAt: T0 });
    expect(after(due, { op: "absent" }, answered(T0 + LAPSE)), "missing, its window surely over").to.equal(undefined);
    expect(after(due, { op: "absent" }, answered(T0 + LAPSE - 1)), "its window may still run").to.deep.equal(due);
    expect(after(due, { op: "absent" }, answered(T0 + LAPSE), ["absent"]), "… allowed only without the rule").to.deep.equal(due);
    const expiring = { ...due, expiresAt: T0 + LAPSE + SECOND };
    expect(after(expiring, { op: "absent" }, answered(T0 + LAPSE)), "it may have expired").to.deep.equal(expiring);
    expect(after({ ...due, expiresAt: T0 + LAPSE + SECOND + 1 }, { op: "absent" }, answered(T0 + LAPSE))).to.equal(undefined);
  });
});

describe("the queue delivery model's checker: a history the reference does not allow fails", function () {
  let seq = 0;
  const event = (who: string, kind: Event["kind"], call: number, fields: Partial<Event>): Event => ({
    seq: seq++,
    who,
    kind,
    call,
    ret: call + 5,
    status: 200,
    ...fields,
  });
  const put = event("R1", "put", 0, {
    id: "m1",
    text: "put",
    visibility: 0,
    status: 201,
    date: T0,
    newReceipt: "r0",
    tnv: T0,
    expires: T0 + 7 * 86_400_000,
  });
  const take = (who: string, call: number, date: number, count: number, visibility = 30): Event => {
    const d: Delivered = { id: "m1", receipt: `${who}-${count}`, tnv: date + visibility * 1000, expires: put.expires, count, text: "put" };
    return event(who, "get", call, { n: 1, visibility, date, delivered: [d] });
  };
  const remove = (who: string, call: number, date: number, receipt: string): Event =>
    event(who, "delete", call, { id: "m1", receipt, status: 204, date });

  it("passes a history the reference allows: a delivery, a redelivery after its window, a delete with the current receipt", function () {
    const events = [put, take("R1", 10, T0, 1, 1), take("R2", 20, T0 + 2_000, 2), remove("R2", 30, T0 + 2_000, "R2-2")];
    expect(checkMessage(put, events, undefined)).to.equal(undefined);
    expect(violationsOf([put], events, new Set(), T0 + 60_000)).to.deep.equal([]);
  });

  it("names a delivery to two receivers within one window", function () {
    const events = [put, take("R1", 10, T0, 1), take("R2", 20, T0 + 1_000, 1)];
    const v = checkMessage(put, events, undefined);
    expect(v?.invariant).to.equal("dup");
    expect(v?.signature).to.equal("a message was delivered to two receivers within one visibility window");
    expect(v?.explanation)
      .to.match(/^message m1, put by R1/)
      .and.include("R2 get");
  });

  it("names a deleted message that came back, and one missing at the drain", function () {
    const back = [put, take("R1", 10, T0, 1, 1), remove("R1", 20, T0, "R1-1"), take("R2", 30, T0 + 5_000, 2)];
    expect(checkMessage(put, back, undefined)?.invariant).to.equal("deleted");
    const [missing] = violationsOf([put], [put, take("R1", 10, T0, 1, 1)], new Set(), T0 + 10_000);
    expect(missing?.invariant).to.equal("absent");
    expect(violationsOf([put], [put, take("R1", 10, T0, 1, 1)], new Set(["m1"]), T0 + 10_000)).to.deep.equal([]);
  });

  it("refuses a TimeNextVisible that is not the answer's Date plus the window asked", function () {
    const off = take("R1", 10, T0, 1, 2);
    off.delivered![0].tnv = T0 + 5_000;
    expect(() => expectAnswersAsAsked([put, off], [put], "replay")).to.throw(
      /a TimeNextVisible is not the answer's Date plus the visibility timeout asked/,
    );
    expect(() => expectAnswersAsAsked([put, take("R1", 10, T0, 1, 2)], [put], "replay")).to.not.throw();
  });
});
