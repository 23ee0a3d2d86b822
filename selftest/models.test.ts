// The model rows (catalogue M) can fail, and fail only for cause, over many
// seeds: through the proxy with no mutant, every seed passes; each stateful
// mutant (selftest/mutants/*.ts with `killRate`) is killed in at least its
// `atLeast` of `seeds` runs with different seeds. Prints each kill rate.
import { expect } from "chai";
import { runHeadless } from "../fixtures/headless.ts";
import { sharedAzurite } from "./azurite-fixture.ts";
import { loadMutants, selector, type LoadedMutant } from "./mutate.ts";
import { startProxy } from "./proxy.ts";
import type { Mutant } from "./mutants/types.ts";

const all = await loadMutants();
const stateful = all.filter((m): m is LoadedMutant & Required<Pick<Mutant, "killRate">> => !!m.killRate);
const rows = [...new Set(stateful.flatMap((m) => m.kills))];
const SEEDS = Math.max(...stateful.map((m) => m.killRate.seeds));
const seeds = Array.from({ length: SEEDS }, (_, i) => 1000 + i);

/** Runs `ids` once per seed, all seeds side by side, through a proxy applying `mutant` (or none). */
async function perSeed(ids: string[], mutant?: Mutant): Promise<{ seed: number; failed: string[]; statuses: string[] }[]> {
  const azurite = await sharedAzurite();
  const proxy = await startProxy({ upstream: azurite.ports, mutant });
  try {
    return await Promise.all(
      seeds.map(async (seed) => {
        const run = await runHeadless({ connectionString: proxy.connectionString, select: selector(ids), expectations: "azurite", seed });
        return {
          seed,
          failed: run.results.filter((r) => r.status === "FAIL" || r.status === "UNEXPECTED_PASS").map((r) => r.id),
          statuses: run.results.map((r) => `${r.id} ${r.status}${r.message ? `: ${r.message.split("\n")[0]}` : ""}`),
        };
      }),
    );
  } finally {
    await proxy.stop();
  }
}

describe("model rows over many seeds", function () {
  it("has stateful mutants for every model row", function () {
    expect(rows).to.include.members(["blob/lease/model", "general/linearizable/blob", "general/linearizable/table-entity", "queue/delivery-model"]);
  });

  it(`pass through the proxy without a mutant for each of ${SEEDS} seeds`, async function () {
    const runs = await perSeed(rows);
    const bad = runs.filter((r) => r.failed.length > 0).map((r) => `seed ${r.seed}: ${r.statuses.join("; ")}`);
    expect(bad, bad.join("\n")).to.deep.equal([]);
  });

  for (const m of stateful) {
    it(`${m.name} is killed in at least ${m.killRate.atLeast} of ${m.killRate.seeds} seeds`, async function () {
      const runs = (await perSeed(m.kills, m)).slice(0, m.killRate.seeds);
      const killed = runs.filter((r) => r.failed.length > 0).length;
      console.log(`      ${m.name}: killed in ${killed}/${runs.length} seeds`);
      const survived = runs.filter((r) => r.failed.length === 0).map((r) => `seed ${r.seed}: ${r.statuses.join("; ")}`);
      expect(killed, `survived:\n${survived.join("\n")}`).to.be.at.least(m.killRate.atLeast);
    });
  }
});
