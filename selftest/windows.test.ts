// Legal variations of the timed claims fail nothing: through the proxy, every
// window of a kind (suites/general/window-claims.ts) ends one second after the
// end its answer states, which the catalogue allows (one second at each end).
// Every row that opens such windows must keep the verdict it has through the
// proxy on a correct target. The early ends of the same windows are mutants
// (selftest/mutants/windows.ts), killed in the mutation self-test.
import { expect } from "chai";
import pLimit from "p-limit";
import { runHeadless } from "../fixtures/headless.ts";
import type { RowResult } from "../model/result.ts";
import { sharedAzurite } from "./azurite-fixture.ts";
import { proxiedBaseline } from "./baseline.ts";
import { tooLateToTell } from "./cli/cli-kit.ts";
import { LATE_VARIATIONS } from "./mutants/windows.ts";
import { startProxy } from "./proxy.ts";

/** The rows that open each window's kind (by window: a lease's on its resource). */
const ROWS: Record<string, RegExp> = {
  "blob/lease/break-period-holds": /^blob\/(lease|lease-ops)\//,
  "blob/container-lease/break-period-holds": /^blob\/container-lease\//,
  "blob/lease/expiry-frees": /^blob\/(lease|lease-ops)\//,
  "blob/container-lease/expiry-frees": /^blob\/container-lease\//,
  "queue/get-messages/invisible-until-end": /^queue\//,
  "queue/update-message/invisible-until-end": /^queue\//,
  "queue/put-message/initial-invisibility": /^queue\/(put-message|message-ttl|update-message\/visibility-beyond-expiry)\//,
  "queue/message-ttl/expiry": /^queue\/(put-message|message-ttl|update-message\/visibility-beyond-expiry)\//,
};

const outcome = (r: RowResult | undefined) => (r ? `${r.status}${r.signature ? ` [${r.signature}]` : ""}` : "not run");

let runs: Map<string, Promise<{ results: RowResult[]; changed: number }>> | undefined;
/** Three variations at once, as many as there were kinds of window: more would starve the windows' late probes on a 2-core machine. */
const limit = pLimit(3);
function start() {
  runs ??= new Map(
    LATE_VARIATIONS.map(({ claim, variation }) => [
      claim.id,
      limit(async () => {
        const a = await sharedAzurite();
        const proxy = await startProxy({ upstream: a.ports, mutant: variation });
        try {
          const run = await runHeadless({ connectionString: proxy.connectionString, select: (id) => ROWS[claim.id].test(id), expectations: "azurite" });
          return { results: run.results, changed: proxy.stats.mutatedRequests };
        } finally {
          await proxy.stop();
        }
      }),
    ]),
  );
  return runs;
}

describe("legal variations: a window ending one second late fails nothing", function () {
  for (const { claim } of LATE_VARIATIONS) {
    it(`${claim.resource ? claim.resource + " " : ""}${claim.kind} windows one second late: every row that opens them keeps its verdict`, async function () {
      const [{ results, changed }, baseline] = await Promise.all([start().get(claim.id)!, proxiedBaseline()]);
      const plain = new Map(baseline.map((r) => [r.id, r]));
      expect(results.map((r) => r.id), "rows run").to.include(claim.id);
      expect(changed, "windows the proxy lengthened").to.be.greaterThan(0);
      const differ = results.filter((r) => outcome(r) !== outcome(plain.get(r.id)) && !tooLateToTell(r) && !tooLateToTell(plain.get(r.id))).map((r) => `${r.id}: ${outcome(plain.get(r.id))} → ${outcome(r)} ${r.message ?? ""}`);
      expect(differ, differ.join("\n")).to.deep.equal([]);
    });
  }
});
