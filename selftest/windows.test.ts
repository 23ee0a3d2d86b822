// Legal variations of the timed claims fail nothing: through the proxy, every
// window of a kind (suites/window-kit.ts) ends one second after the
// end its answer states, which the catalogue allows (one second at each end).
// Every row that opens such windows must keep the verdict it has through the
// proxy on a correct target. The early ends of the same windows are mutants
// (selftest/mutants/windows.ts), killed in the mutation self-test. And an
// answer given after the time it is judged at (a window's end, a message's
// expiry) leaves its row too late to tell, never FAILed.
import { expect } from "chai";
import pLimit from "p-limit";
import { runHeadless } from "./headless.ts";
import type { RowResult } from "../model/result.ts";
import { sharedAzurite } from "./azurite-fixture.ts";
import { proxiedBaseline } from "./baseline.ts";
import { changedVerdicts } from "./cli/cli-kit.ts";
import { LATE_VARIATIONS } from "./mutants/windows.ts";
import { operation, query, type Mutant } from "./mutants/types.ts";
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
          const run = await runHeadless({
            connectionString: proxy.connectionString,
            select: (id) => ROWS[claim.id].test(id),
            expectations: "azurite",
          });
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
      expect(
        results.map((r) => r.id),
        "rows run",
      ).to.include(claim.id);
      expect(changed, "windows the proxy lengthened").to.be.greaterThan(0);
      // Window rows are the ones a loaded machine leaves too late to tell: half of them must still be compared.
      const differ = changedVerdicts(`${claim.id}'s variation and the baseline`, results, baseline, undefined, 0.5);
      expect(differ, differ.join("\n")).to.deep.equal([]);
    });
  }
});

/**
 * A loaded target: the proxy holds the first write probe after a break (Put Blob
 * without the ID, or Delete Container without it) for the break period and two
 * seconds more, so the target answers it after the window's end and the write
 * succeeds. The row's own exchanges show it answered too late to tell.
 */
function slowStartProbe(resource: "blob" | "container"): Mutant {
  return {
    name: `slow-start-probe-${resource}`,
    description: `the first ${resource === "blob" ? "Put Blob" : "Delete Container"} after a break is answered after the break period`,
    kills: [],
    async onRequest(req, state) {
      const query = new URL(req.url, "http://proxy").searchParams;
      if (req.headers["x-ms-lease-action"] === "break")
        return void state.set("period", Number(req.headers["x-ms-lease-break-period"] ?? 0));
      const period = state.get("period") as number | undefined;
      const isProbe =
        resource === "container"
          ? req.method === "DELETE" && query.get("restype") === "container"
          : req.method === "PUT" && !query.has("comp") && !!req.headers["x-ms-blob-type"];
      if (period === undefined || !isProbe) return;
      state.delete("period");
      state.set("held", true);
      await new Promise((r) => setTimeout(r, (period + 2) * 1000));
    },
  };
}

describe("a window probe answered after the window's end is too late to tell, never a FAIL", function () {
  for (const resource of ["blob", "container"] as const) {
    const id = resource === "blob" ? "blob/lease/break-period-holds" : "blob/container-lease/break-period-holds";
    it(`${id}: the probe right after the break, answered after the break period, leaves the row PRECONDITION_FAILED`, async function () {
      const mutant = slowStartProbe(resource);
      const proxy = await startProxy({ upstream: (await sharedAzurite()).ports, mutant });
      try {
        const run = await limit(() =>
          runHeadless({ connectionString: proxy.connectionString, select: (x) => x === id, expectations: "azurite" }),
        );
        const [r] = run.results;
        const held = r.evidence.filter(
          (ex) =>
            (resource === "blob" ? ex.operation?.startsWith("Put Blob") : ex.operation === "Delete Container") &&
            ex.step === "probe right after the window opened",
        );
        expect(
          held.map((ex) => ex.status),
          "the held probe was answered as the write it is, after the window",
        ).to.deep.equal([resource === "blob" ? 201 : 202]);
        expect(`${r.status}: ${r.message}`).to.match(
          /^PRECONDITION_FAILED: the probe right after the window opened was answered only in its last second or after its end/,
        );
      } finally {
        await proxy.stop();
      }
    });
  }
});

/**
 * A loaded target, for the rows judged against a message's ExpirationTime: the
 * proxy holds the first `held` request after a Put Message with a time to live
 * for that time and a second more, so the target answers it once the message
 * has expired. The row's own exchanges show it answered too late to tell.
 */
function heldPastExpiry(held: "Get Messages" | "Update Message"): Mutant {
  return {
    name: `held-past-expiry-${held.replace(" ", "-").toLowerCase()}`,
    description: `the first ${held} after a Put Message with a messagettl is answered after the message's expiry`,
    kills: [],
    async onRequest(req, state) {
      const op = operation(req);
      const ttl = query(req).get("messagettl");
      if (op === "Put Message" && ttl && Number(ttl) > 0) return void state.set("ttl", Number(ttl));
      if (op !== held || query(req).get("peekonly") === "true" || !state.has("ttl")) return;
      const seconds = state.get("ttl") as number;
      state.delete("ttl");
      await new Promise((r) => setTimeout(r, (seconds + 1) * 1000));
    },
  };
}

describe("a message's answer given after its expiry is too late to tell, never a FAIL", function () {
  const cases = [
    { id: "queue/message-ttl/expires-while-invisible", held: "Get Messages" },
    { id: "queue/update-message/visibility-beyond-expiry", held: "Get Messages" },
    { id: "queue/update-message/visibility-beyond-expiry", held: "Update Message" },
  ] as const;
  for (const { id, held } of cases) {
    it(`${id}: ${held} answered after the message's expiry leaves the row PRECONDITION_FAILED`, async function () {
      const proxy = await startProxy({ upstream: (await sharedAzurite()).ports, mutant: heldPastExpiry(held) });
      try {
        const run = await limit(() =>
          runHeadless({ connectionString: proxy.connectionString, select: (x) => x === id, expectations: "azurite" }),
        );
        const [r] = run.results;
        expect(
          r.evidence.filter((ex) => ex.operation === held).map((ex) => ex.status),
          `the held ${held} was answered`,
        ).to.include(held === "Get Messages" ? 200 : 404);
        expect(`${r.status}: ${r.message}`).to.equal(
          `PRECONDITION_FAILED: ${held} was answered only at the message's ExpirationTime (server clock): no time left to tell`,
        );
      } finally {
        await proxy.stop();
      }
    });
  }
});
