// The head start of the rows that mostly wait (schedule.ts): the pool grants
// no slot until each of them has begun its first wait or ended, or until
// HEAD_START_MAX_MS has passed with one still setting up.
import { assert } from "chai";
import { Slots } from "../../fixtures/harness/pool.ts";
import { HEAD_START_MAX_MS, headStart } from "../../fixtures/harness/schedule.ts";

/** Lets every pending callback run (a promise that is still pending after this is held by something). */
const settle = () => new Promise((r) => setImmediate(r));

describe("the head start of rows that mostly wait", function () {
  it("the pool grants no slot while it is shut, and grants them once it opens", async function () {
    const pool = new Slots(2);
    let open!: () => void;
    pool.shutUntil(new Promise<void>((r) => (open = r)));
    let granted = 0;
    const acquiring = [pool.acquire(), pool.acquire()].map((p) => p.then(() => granted++));
    await settle();
    assert.equal(granted, 0, "granted while shut");
    open();
    await Promise.all(acquiring);
    assert.equal(granted, 2);
  });

  it("opens once every leading row has begun its first wait (or ended), not before", async function () {
    const lead = headStart(2);
    let opened = false;
    void lead.opens.then(() => (opened = true));
    lead.waiting("a")();
    lead.waiting("a")();
    await settle();
    assert.isFalse(opened, "opened with one row of two waiting (told twice)");
    lead.waiting("b")();
    await settle();
    assert.isTrue(opened);
  });

  it(`opens by itself after ${HEAD_START_MAX_MS} ms when a leading row is still setting up, and at once with none`, async function () {
    this.timeout(HEAD_START_MAX_MS + 5000);
    await headStart(0).opens;
    await headStart(1).opens;
  });
});
