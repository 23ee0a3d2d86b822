// The mutation runner. As a CLI:
//   node --import tsx selftest/mutate.ts [name|prefix*...] [--concurrency N] [--out file.json] [--list]
// loads every mutant from selftest/mutants/*.ts, starts one embedded Azurite,
// puts a proxy applying one mutant in front of it per mutant, runs only the
// tests each mutant names (against Azurite's expectations, so its pinned
// deviations are accounted for) and prints who killed what. Exit code 1 when
// a mutant survives. With no name, every mutant runs and the report goes to
// reports/mutation.json.
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import pLimit from "p-limit";
import semver from "semver";
import { embeddedPackage, type EmbeddedAzurite } from "../fixtures/azurite/azurite.ts";
import { loadAllSuites, runHeadless } from "./headless.ts";
import { filesEndingWith } from "../fixtures/paths.ts";
import { registeredRows } from "../fixtures/harness/registry.ts";
import { ROOT } from "../fixtures/paths.ts";
import { startProxy } from "./proxy.ts";
import type { ClaimTable, Mutant } from "./mutants/types.ts";
import { buildReport, byTable, formatTable, formatTables, writeReport, type MutantOutcome } from "./mutation-report.ts";

const here = dirname(fileURLToPath(import.meta.url));
export const MUTANTS_DIR = join(here, "mutants");
export const REPORT_PATH = join(ROOT, "reports", "mutation.json");

export interface LoadedMutant extends Mutant {
  topic: string;
}

/** Every mutant of every selftest/mutants/<topic>.ts (helper modules aside: types.ts, *-kit.ts) meant for the embedded Azurite's version. */
export async function loadMutants(azuriteVersion = embeddedPackage().version): Promise<LoadedMutant[]> {
  const out: LoadedMutant[] = [];
  for (const f of filesEndingWith(MUTANTS_DIR, ".ts")) {
    if (basename(f) === "types.ts" || f.endsWith("-kit.ts") || f.endsWith(".d.ts")) continue;
    const mod = (await import(pathToFileURL(f).href)) as { MUTANTS?: Mutant[] };
    if (!Array.isArray(mod.MUTANTS)) throw new Error(`${f} does not export MUTANTS: Mutant[]`);
    for (const m of mod.MUTANTS)
      if (!m.versions || semver.satisfies(azuriteVersion, m.versions)) out.push({ ...m, topic: basename(f, ".ts") });
  }
  return out;
}

/** The claim tables of the generated mutants (each generator module's CLAIM_TABLES). */
export async function loadClaimTables(): Promise<ClaimTable[]> {
  const out: ClaimTable[] = [];
  for (const f of filesEndingWith(MUTANTS_DIR, ".ts")) {
    if (basename(f) === "types.ts" || f.endsWith("-kit.ts") || f.endsWith(".d.ts")) continue;
    const mod = (await import(pathToFileURL(f).href)) as { CLAIM_TABLES?: ClaimTable[] };
    out.push(...(mod.CLAIM_TABLES ?? []));
  }
  return out;
}

/** Test IDs or ID prefixes ending in '/' -> a selector. */
export function selector(kills: string[]): (id: string) => boolean {
  return (id) => kills.some((k) => (k.endsWith("/") ? id.startsWith(k) : id === k));
}

/** Filters mutants by exact name or `prefix*`; unknown names throw. */
export function pickMutants(all: LoadedMutant[], names: string[]): LoadedMutant[] {
  if (names.length === 0) return all;
  const picked = new Set<LoadedMutant>();
  for (const n of names) {
    const hits = n.endsWith("*") ? all.filter((m) => m.name.startsWith(n.slice(0, -1))) : all.filter((m) => m.name === n);
    if (hits.length === 0)
      throw new Error(`no mutant named ${JSON.stringify(n)} (--list shows the ${all.length} known; a trailing * matches a prefix)`);
    hits.forEach((h) => picked.add(h));
  }
  return all.filter((m) => picked.has(m));
}

export interface MutantRunOptions {
  /** Row concurrency inside one mutant's run. */
  rowConcurrency?: number;
}

/** Runs one mutant's named tests through a proxy applying it. */
export async function runMutant(azurite: EmbeddedAzurite, mutant: LoadedMutant, opts: MutantRunOptions = {}): Promise<MutantOutcome> {
  const started = Date.now();
  const base = { name: mutant.name, description: mutant.description, topic: mutant.topic, kills: mutant.kills, cell: mutant.cell };
  const proxy = await startProxy({ upstream: azurite.ports, mutant });
  try {
    const run = await runHeadless({
      connectionString: proxy.connectionString,
      select: selector(mutant.kills),
      expectations: "azurite",
      concurrency: opts.rowConcurrency,
    });
    const ran = run.results.map((r) => ({
      id: r.id,
      status: r.status,
      message: r.message,
      rerun: r.retried ? (r.retried.message ?? "re-run") : undefined,
    }));
    const killers = ran.filter((r) => r.status === "FAIL" || r.status === "UNEXPECTED_PASS");
    // A request the proxy rewrote and signed wrongly fails for the proxy's sake, not the mutant's.
    const problem =
      ran.length === 0
        ? `no registered test matches kills ${JSON.stringify(mutant.kills)}`
        : proxy.stats.mutantErrors > 0 && killers.length === 0
          ? `the proxy failed on ${proxy.stats.mutantErrors} request(s), answering 500 (a throwing mutant?): ${proxy.stats.firstMutantError}`
          : proxy.stats.authFailures > 0
            ? `the target refused ${proxy.stats.authFailures} request(s) the mutant rewrote as wrongly signed: a proxy defect, not a kill`
            : undefined;
    // A mutant whose rows all failed exactly as pinned: either it never changed a
    // message, or what it changed the target already does (a header it strips,
    // the target ignores too). No run against this target can tell the two apart.
    const untouched = proxy.stats.mutatedRequests === 0 && proxy.stats.mutatedResponses === 0;
    const equivalent = killers.length === 0 && !problem && ran.length > 0 && ran.every((r) => r.status === "EXPECTED_FAIL");
    return {
      ...base,
      verdict: killers.length > 0 && proxy.stats.authFailures === 0 ? "killed" : equivalent ? "equivalent" : "survived",
      problem: equivalent
        ? `${untouched ? "never fired" : "fired, and every named row still failed exactly as pinned"}: the target already deviates this way`
        : problem,
      killers: proxy.stats.authFailures === 0 ? killers : [],
      ran,
      durationMs: Date.now() - started,
      proxy: {
        requests: proxy.stats.requests,
        mutatedRequests: proxy.stats.mutatedRequests,
        mutatedResponses: proxy.stats.mutatedResponses,
      },
    };
  } catch (err) {
    return {
      ...base,
      verdict: "survived",
      killers: [],
      ran: [],
      problem: `the run failed: ${(err as Error).message}`,
      durationMs: Date.now() - started,
    };
  } finally {
    await proxy.stop();
  }
}

/**
 * A kill counts only when the killing test does not FAIL without any mutant
 * too (a row failing on the target unpinned would "kill" everything it is
 * named by). Rewrites such outcomes into survivors with the reason.
 */
export function attribute(results: MutantOutcome[], baseline: Map<string, string>): MutantOutcome[] {
  return results.map((r) => {
    if (r.verdict !== "killed") return r;
    const failing = (id: string) => ["FAIL", "UNEXPECTED_PASS"].includes(baseline.get(id) ?? "");
    if (r.killers.some((k) => !failing(k.id))) return r;
    return {
      ...r,
      verdict: "survived",
      problem: `killed only by tests that fail without any mutant: ${r.killers.map((k) => `${k.id} (${baseline.get(k.id)})`).join(", ")}`,
    };
  });
}

/** The named tests' statuses through a proxy with no mutant. */
export async function baselineOf(azurite: EmbeddedAzurite, mutants: Mutant[]): Promise<Map<string, string>> {
  const proxy = await startProxy({ upstream: azurite.ports });
  try {
    const run = await runHeadless({
      connectionString: proxy.connectionString,
      select: selector(mutants.flatMap((m) => m.kills)),
      expectations: "azurite",
    });
    return new Map(run.results.map((r) => [r.id, r.status]));
  } finally {
    await proxy.stop();
  }
}

/** Rows that wait at least this long (a lease expiring) make a mutant a waiting one. */
const LONG_WAIT_SECONDS = 5;

/** Whether a mutant's named rows mostly wait (the longest mandated wait among them). */
export function waits(mutant: Mutant): boolean {
  const kills = selector(mutant.kills);
  return registeredRows().some(({ row }) => kills(row.id) && (row.waitSeconds ?? 0) >= LONG_WAIT_SECONDS);
}

/** Whether a named row's run told nothing of it: no answer in time, a state the machine could not make, or a re-run after a transport fault. */
const untoldRow = (t: MutantOutcome["ran"][number]) => t.status === "INCONCLUSIVE" || t.status === "PRECONDITION_FAILED" || !!t.rerun;

/**
 * Why a survivor's run told nothing: the run failed; a named row ended with a
 * status that means the environment could not tell; or a named row ran twice
 * (a transport fault), where a mutant that counts requests (the second write
 * to an account-wide setting) met the second attempt in another state.
 */
function untold(r: MutantOutcome): string | undefined {
  if (r.verdict !== "survived") return undefined;
  if (r.problem?.startsWith("the run failed")) return r.problem;
  const env = r.ran.filter(untoldRow);
  return env.length
    ? `the first run could not tell: ${env.map((x) => `${x.id} ${x.status}${x.rerun ? ` after a re-run (${x.rerun})` : ""}: ${x.message ?? ""}`).join("; ")}`
    : undefined;
}

/**
 * Runs mutants concurrently, results in the order given: those whose rows
 * mostly wait all start at once, outside the bound (their runs sleep, and
 * would hold a place in it for seconds), the others `concurrency` at a time.
 * A survivor whose run told nothing (untold: a loaded machine answered too
 * late for a timed row, or a preflight timed out) runs once more, after the
 * others, one at a time: a survival must come from a run that could tell.
 */
export async function runMutants(
  azurite: EmbeddedAzurite,
  mutants: LoadedMutant[],
  opts: MutantRunOptions & { concurrency?: number; onResult?: (r: MutantOutcome) => void } = {},
): Promise<MutantOutcome[]> {
  const limit = pLimit(Math.max(1, opts.concurrency ?? 8));
  const run = async (m: LoadedMutant) => {
    const r = await runMutant(azurite, m, opts);
    opts.onResult?.(r);
    return r;
  };
  const first = await Promise.all(mutants.map((m) => (waits(m) ? run(m) : limit(() => run(m)))));
  const results: MutantOutcome[] = [];
  for (const [i, r] of first.entries()) {
    const why = untold(r);
    results.push(why ? { ...(await run(mutants[i])), rerunBecause: why } : r);
  }
  return results;
}

/**
 * The rows `wanted` that no mutant killed, though a mutant naming them ran
 * them without telling (untoldRow: on a loaded machine, a lease action reset
 * after a long wait): each such mutant runs once more over that row alone
 * (`again`: runMutant with kills [row], judged as the first runs were), one
 * at a time, after the others, and what that run tells replaces the row's
 * entry in the mutant's outcome (a kill joins its killers). "No mutant kills
 * this row" must come from runs that could tell, as a survival does
 * (runMutants).
 */
export async function retellRows(
  results: MutantOutcome[],
  wanted: (id: string) => boolean,
  again: (mutant: string, row: string) => Promise<MutantOutcome>,
): Promise<MutantOutcome[]> {
  const killed = new Set(results.flatMap((r) => r.killers.map((k) => k.id)));
  const out = [...results];
  for (const [i, r] of results.entries()) {
    for (const t of r.ran.filter((x) => wanted(x.id) && untoldRow(x))) {
      if (killed.has(t.id)) continue;
      const second = await again(r.name, t.id);
      const now = second.ran.find((x) => x.id === t.id) ?? t;
      const cur = out[i];
      out[i] = {
        ...cur,
        ran: cur.ran.map((x) => (x.id === t.id ? now : x)),
        killers: [...cur.killers, ...second.killers],
        verdict: second.killers.length ? "killed" : cur.verdict,
        retold: [
          ...(cur.retold ?? []),
          `${t.id}: ${t.status}${t.rerun ? " after a re-run" : ""} (${(t.message ?? "").slice(0, 200)}), then ${now.status}`,
        ],
      };
      if (second.killers.length) killed.add(t.id);
    }
  }
  return out;
}

async function main(argv: string[]): Promise<number> {
  const names: string[] = [];
  let concurrency = 8;
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--concurrency") concurrency = Number(argv[++i]);
    else if (a === "--out") out = resolve(argv[++i]);
    else if (a === "--list") {
      for (const m of await loadMutants()) console.log(`${m.name}  (${m.topic}) ${m.description}`);
      return 0;
    } else if (a === "--help" || a === "-h") {
      console.log("usage: node --import tsx selftest/mutate.ts [name|prefix*...] [--concurrency N] [--out file.json] [--list]");
      return 0;
    } else names.push(a);
  }
  const mutants = pickMutants(await loadMutants(), names);
  await loadAllSuites();
  const { startAzurite } = await import("../fixtures/azurite/azurite.ts");
  const started = Date.now();
  const azurite = await startAzurite();
  try {
    console.log(`running ${mutants.length} mutant(s), ${concurrency} at once, against Azurite ${azurite.version}`);
    const [raw, baseline] = await Promise.all([
      runMutants(azurite, mutants, {
        concurrency,
        onResult: (r) =>
          console.log(
            `  ${({ killed: "killed    ", equivalent: "equivalent", survived: "SURVIVED  " } as const)[r.verdict]} ${r.name} (${Math.round(r.durationMs / 100) / 10} s)`,
          ),
      }),
      baselineOf(azurite, mutants),
    ]);
    const results = attribute(raw, baseline);
    const tables = byTable(await loadClaimTables(), results).filter((t) =>
      t.rows.some((r) => r.mutants.some((m) => m.verdict !== "not run")),
    );
    console.log("\n" + formatTable(results) + (tables.length ? "\n\n" + formatTables(tables) : ""));
    const report = buildReport(results, { wallTimeSeconds: Math.round((Date.now() - started) / 100) / 10, byTable: tables });
    const path = out ?? (names.length === 0 ? REPORT_PATH : undefined);
    if (path) {
      writeReport(path, report);
      console.log(`report: ${path}`);
    }
    return report.survived === 0 ? 0 : 1;
  } finally {
    await azurite.stop();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(2);
    },
  );
}
