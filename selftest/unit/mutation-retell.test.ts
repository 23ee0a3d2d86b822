// Rows no mutant killed, re-told (selftest/mutate.ts, retellRows), without a
// target: only a wanted row that no mutant killed and whose run told nothing
// runs once more, alone, under the mutant that named it; what it tells then
// replaces what it told first.
import { assert } from "chai";
import { retellRows } from "../mutate.ts";
import type { MutantOutcome, TestOutcome } from "../mutation-report.ts";

const outcome = (name: string, ran: TestOutcome[]): MutantOutcome => {
  const killers = ran.filter((t) => t.status === "FAIL");
  return {
    name,
    description: name,
    topic: "t",
    kills: ran.map((t) => t.id),
    verdict: killers.length ? "killed" : "survived",
    killers,
    ran,
    durationMs: 1,
  };
};
const reset = "PUT /c/b?comp=lease was retried after ECONNRESET";

/** retellRows over `results`, with a second run that answers `second` for each (mutant, row); returns its outcomes and the runs it asked for. */
async function retell(results: MutantOutcome[], second: TestOutcome["status"], wanted = (_: string) => true) {
  const asked: string[] = [];
  const out = await retellRows(results, wanted, async (mutant, row) => {
    asked.push(`${mutant} ${row}`);
    return outcome(mutant, [{ id: row, status: second }]);
  });
  return { out, asked };
}

describe("mutant runs that could not tell a row, run again over it alone", function () {
  it("a row no mutant killed, left INCONCLUSIVE: its mutant runs again over it, and the kill then counts", async function () {
    const first = outcome("renew-ignored", [
      { id: "a/renew", status: "INCONCLUSIVE", message: reset },
      { id: "a/container-renew", status: "FAIL" },
    ]);
    const { out, asked } = await retell([first], "FAIL");
    assert.deepEqual(asked, ["renew-ignored a/renew"]);
    assert.deepEqual(
      out[0].killers.map((k) => k.id),
      ["a/container-renew", "a/renew"],
    );
    assert.equal(out[0].verdict, "killed");
    assert.deepEqual(
      out[0].ran.map((t) => `${t.id} ${t.status}`),
      ["a/renew FAIL", "a/container-renew FAIL"],
    );
    assert.match(out[0].retold?.[0] ?? "", /^a\/renew: INCONCLUSIVE \(.*ECONNRESET.*\), then FAIL$/);
  });

  it("a PRECONDITION_FAILED row and a row re-run after a transport fault are re-told too; a second run that tells nothing changes no verdict", async function () {
    const first = outcome("m", [
      { id: "a/pf", status: "PRECONDITION_FAILED" },
      { id: "a/rerun", status: "PASS", rerun: reset },
    ]);
    const { out, asked } = await retell([first], "INCONCLUSIVE");
    assert.deepEqual(asked, ["m a/pf", "m a/rerun"]);
    assert.equal(out[0].verdict, "survived");
    assert.deepEqual(out[0].killers, []);
    assert.lengthOf(out[0].retold ?? [], 2);
  });

  it("leaves alone a row another mutant killed, a row its run told (PASS: a real survival), and a row not wanted", async function () {
    const results = [
      outcome("kills-b", [{ id: "a/b", status: "FAIL" }]),
      outcome("untold-b", [{ id: "a/b", status: "INCONCLUSIVE" }]),
      outcome("passes-c", [{ id: "a/c", status: "PASS" }]),
      outcome("untold-d", [{ id: "a/d", status: "INCONCLUSIVE" }]),
    ];
    const { out, asked } = await retell(results, "FAIL", (id) => id !== "a/d");
    assert.deepEqual(asked, []);
    assert.deepEqual(out, results);
  });

  it("once a row is killed on its second run, another mutant's untold run of it is not re-told", async function () {
    const results = [outcome("x", [{ id: "a/e", status: "INCONCLUSIVE" }]), outcome("y", [{ id: "a/e", status: "INCONCLUSIVE" }])];
    const { asked } = await retell(results, "FAIL");
    assert.deepEqual(asked, ["x a/e"]);
  });
});
