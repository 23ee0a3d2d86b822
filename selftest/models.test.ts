// The model rows (catalogue M) can fail, and fail only for cause, over many
// seeds: through the proxy with no mutant, every seed passes; each stateful
// mutant (selftest/mutants/*.ts with `killRate`) is killed in at least its
// `atLeast` of `seeds` runs with different seeds. Prints each kill rate. Each
// model row's plain run comes first, then its mutants run in LANES_PER_ROW
// lanes, one after another in a lane, every row's lanes side by side: most
// of a run is waits (a lease expiring), which overlap, while a row runs under
// at most LANES_PER_ROW mutants (or its plain run) at once, so the load it
// meets, and the kill rate it shows, stay near those of one run. Kill rates
// need no shortest failing sequence: no shrinking here. Each seed runs through
// its own proxy, which tells whether the mutant changed anything in its run. A
// mutant's seed whose row got no answer in time (INCONCLUSIVE), or never met
// the mutant (sequences a loaded machine cut short), measures the machine, not
// the row: it runs once more, and the rate counts survivors among the seeds
// that met the mutant, with a floor of real kills. Survivors are printed with
// their rows' statuses.
import { expect } from "chai";
import pLimit from "p-limit";
import { runHeadless, type HeadlessRun } from "./headless.ts";
import { sharedAzurite } from "./azurite-fixture.ts";
import { loadMutants, selector, type LoadedMutant } from "./mutate.ts";
import { startProxy, type MutationProxy } from "./proxy.ts";
import type { Mutant } from "./mutants/types.ts";

const all = await loadMutants();
const stateful = all.filter((m): m is LoadedMutant & Required<Pick<Mutant, "killRate">> => !!m.killRate);
const rows = [...new Set(stateful.flatMap((m) => m.kills))];
const SEEDS = Math.max(...stateful.map((m) => m.killRate.seeds));
const seeds = Array.from({ length: SEEDS }, (_, i) => 1000 + i);
/** Mutants of one model row measured at once (see above). */
const LANES_PER_ROW = 1;
/**
 * Runs of a model row (one per seed) in flight at once, across every lane: the
 * rows' lanes overlap, and with every seed of every lane at once a loaded
 * 2-core machine would cut the sequences short (their time budget is the
 * server's clock), measuring the machine rather than the suite.
 */
const runsAtOnce = pLimit(30);

/** Requests or answers `proxy`'s mutant changed so far. */
const changed = (proxy: MutationProxy) => proxy.stats.mutatedRequests + proxy.stats.mutatedResponses;

/** Runs `ids` once per seed, all seeds side by side, each through its own proxy applying `mutant` (or none). */
async function perSeed(ids: string[], mutant?: Mutant): Promise<SeedRun[]> {
  const azurite = await sharedAzurite();
  return Promise.all(
    seeds.map(async (seed) => {
      // One proxy per seed, so a seed's run knows whether the mutant changed anything in it.
      const proxy = await startProxy({ upstream: azurite.ports, mutant });
      try {
        // A kill needs no shortest sequence: shrinking would only replay the waits.
        const once = async () => {
          const before = changed(proxy);
          const run = await runsAtOnce(() =>
            runHeadless({ connectionString: proxy.connectionString, select: selector(ids), expectations: "azurite", seed, shrink: false }),
          );
          return { run, met: changed(proxy) > before };
        };
        const failedIn = (run: HeadlessRun) =>
          run.results.filter((r) => r.status === "FAIL" || r.status === "UNEXPECTED_PASS").map((r) => r.id);
        let { run, met } = await once();
        // A mutant's row left unfailed without meeting the mutant (its sequences cut short by the time
        // budget on a loaded machine), or INCONCLUSIVE (no answer in time), measured the machine, not an
        // assertion: that seed runs once more.
        const again = !!mutant && failedIn(run).length === 0 && (!met || run.results.some((r) => r.status === "INCONCLUSIVE"));
        if (again) ({ run, met } = await once());
        return {
          seed,
          again,
          met,
          failed: failedIn(run),
          // A failing row keeps its whole message (the history's failing window, the replay command): a
          // plain run that fails on a correct target must be diagnosable from the self-test's output alone.
          // A row that passed shows its notes (commands run, waits made, sequences the budget ended): why a mutant survived.
          statuses: run.results.map(
            (r) =>
              `${r.id} ${r.status}${r.message ? `: ${r.status === "FAIL" || r.status === "UNEXPECTED_PASS" ? r.message : r.message.split("\n")[0]}` : ""}${r.status === "PASS" ? ` ${JSON.stringify(r.notes).slice(0, 300)}` : ""}`,
          ),
        };
      } finally {
        await proxy.stop();
      }
    }),
  );
}

interface SeedRun {
  seed: number;
  again: boolean;
  /** The mutant changed a request or an answer of this seed's run. */
  met: boolean;
  failed: string[];
  statuses: string[];
}

type SeedRuns = SeedRun[];
let started: { plain: Promise<SeedRuns>; mutants: Map<string, Promise<SeedRuns>> } | undefined;
/** Starts every run on first use: per model row, its plain run, then its mutants in its lanes. */
function start(): NonNullable<typeof started> {
  if (started) return started;
  const plainOf = new Map(rows.map((row) => [row, perSeed([row])]));
  const plain = Promise.all([...plainOf.values()]).then((runs) =>
    seeds.map((seed, i) => ({
      seed,
      again: false,
      met: false,
      failed: runs.flatMap((r) => r[i].failed),
      statuses: runs.flatMap((r) => r[i].statuses),
    })),
  );
  const lanes = new Map<string, Promise<unknown>>();
  const mutants = new Map<string, Promise<SeedRuns>>();
  const perRow = new Map<string, number>();
  for (const m of stateful) {
    const n = perRow.get(m.kills[0]) ?? 0;
    perRow.set(m.kills[0], n + 1);
    const lane = `${m.kills[0]} ${n % LANES_PER_ROW}`;
    const run = (lanes.get(lane) ?? plainOf.get(m.kills[0])!.catch(() => undefined)).then(() => perSeed(m.kills, m));
    lanes.set(
      lane,
      run.catch(() => undefined),
    );
    mutants.set(m.name, run);
  }
  for (const p of [plain, ...mutants.values()]) p.catch(() => undefined);
  started = { plain, mutants };
  return started;
}

describe("model rows over many seeds", function () {
  it("has stateful mutants for every model row", function () {
    expect(rows).to.include.members([
      "blob/lease/model",
      "general/linearizable/blob",
      "general/linearizable/table-entity",
      "queue/delivery-model",
    ]);
  });

  it(`pass through the proxy without a mutant for each of ${SEEDS} seeds`, async function () {
    const runs = await start().plain;
    const bad = runs.filter((r) => r.failed.length > 0).map((r) => `seed ${r.seed}: ${r.statuses.join("; ")}`);
    expect(bad, bad.join("\n")).to.deep.equal([]);
  });

  for (const m of stateful) {
    it(`${m.name} is killed in at least ${m.killRate.atLeast} of ${m.killRate.seeds} seeds`, async function () {
      const runs = (await start().mutants.get(m.name)!).slice(0, m.killRate.seeds);
      const killed = runs.filter((r) => r.failed.length > 0);
      const survived = runs.filter((r) => r.failed.length === 0 && r.met).map((r) => `seed ${r.seed}: ${r.statuses.join("; ")}`);
      const unmet = runs.filter((r) => r.failed.length === 0 && !r.met).map((r) => r.seed);
      // A survivor is printed even when the rate holds: a rate near its floor in CI is diagnosable from the log.
      const again = runs.filter((r) => r.again).map((r) => r.seed);
      console.log(
        `      ${m.name}: killed in ${killed.length}/${runs.length} seeds${unmet.length ? `, never met in seeds ${unmet.join(", ")} (twice)` : ""}${again.length ? ` (seeds ${again.join(", ")} ran again)` : ""}${survived.map((s) => `\n        survived ${s.slice(0, 400)}`).join("")}`,
      );
      // The rate counts the seeds whose run met the mutant: a seed whose sequences a loaded machine cut
      // short before they reached the mutated answer, twice, measured the machine. A floor keeps the
      // check from passing with nothing met: at least half the required kills are real ones.
      expect(survived.length, `survived:\n${survived.join("\n")}`).to.be.at.most(m.killRate.seeds - m.killRate.atLeast);
      expect(killed.length, `killed in ${killed.length} seeds, never met in ${unmet.length}`).to.be.at.least(
        Math.ceil(m.killRate.atLeast / 2),
      );
    });
  }
});
