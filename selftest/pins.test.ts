// Pins match on a failure's data (the step, what the check expected and what it
// got), never on its message's words: with every failure message worded
// otherwise, each row pinned FAIL for the shared Azurite's version is still
// EXPECTED_FAIL, while its message (and so its older text signature) changed.
import { assert } from "chai";
import { loadExpectations } from "../fixtures/harness/expectations.ts";
import { runHeadless } from "./headless.ts";
import { pinApplies, pinFor } from "../model/versions.ts";
import { sharedAzurite } from "./azurite-fixture.ts";
import { toldIds, tooLateToTell } from "./cli/cli-kit.ts";

const reword = (message: string) => `REWORDED ${[...message].reverse().join("")}`;

describe("pins survive reworded assertions", function () {
  this.timeout(300_000);

  it("every FAIL pin of expectations/azurite*.json that applies still holds when every failure message is worded otherwise", async function () {
    const azurite = await sharedAzurite();
    const { pins } = loadExpectations("azurite");
    const pinned = Object.entries(pins)
      .filter(([, entry]) => {
        const pin = pinFor(entry, azurite.version);
        return pin?.status === "FAIL" && pinApplies(pin, azurite.version);
      })
      .map(([id]) => id);
    assert.isAbove(pinned.length, 40, "the embedded Azurite's pinned deviations");
    const run = await runHeadless({
      connectionString: azurite.connectionString,
      select: (id) => pinned.includes(id),
      expectations: "azurite",
      rewordFailures: reword,
    });
    const byId = new Map(run.results.map((r) => [r.id, r]));
    const told = toldIds("the pinned rows", pinned, (id) => tooLateToTell(byId.get(id)));
    const broken = told
      .map((id) => byId.get(id))
      .filter((r) => r && r.status !== "EXPECTED_FAIL")
      .map((r) => `${r!.id}: ${r!.status}: ${r!.message?.slice(0, 300)}`);
    assert.deepEqual(broken, []);
    const held = pinned.map((id) => byId.get(id)).filter((r) => r?.status === "EXPECTED_FAIL");
    for (const r of held) {
      assert.match(r!.message ?? "", /^REWORDED /, `${r!.id}: the message was worded otherwise`);
      assert.notEqual(r!.signature, pinFor(pins[r!.id], azurite.version)!.signature, `${r!.id}: its text signature changed`);
    }
  });
});
