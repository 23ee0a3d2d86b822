// `npm run surface [-- --run <conformance.json>]`: writes catalogue/surface.tsv,
// the concurrency surface of the installed SDKs (catalogue section S): every
// (REST operation, concurrency parameter) pair their generated operation
// specs take, named as the request classifier names the SDK's request. The
// last column, the rows: with --run, those whose evidence sent the pair in
// that run (a full run: no row left unselected); without, what the file says
// already. The surface lint (selftest/unit/surface.test.ts) fails when the
// file and the installed SDKs differ.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { Command } from "commander";
import { ROOT } from "../fixtures/paths.ts";
import { declaredKey, declaredSurfaceRows, installedSurface, listedSurface, SURFACE_FILE } from "../fixtures/run/surface.ts";
import { loadAllSuites, registeredRows } from "../fixtures/harness/registry.ts";
import { ConfigError } from "../fixtures/wire/target.ts";
import { READABLE_SCHEMAS, type Report } from "../model/result.ts";
import { surfaceCoverage } from "../model/surface-coverage.ts";
import { formatSurface, pairKey, type ListedPair, type SurfacePair } from "../model/surface.ts";
import { parseArgs, runMain, withOneLineErrors } from "./cli-kit.ts";

const ABOUT = [
  "The concurrency surface (catalogue section S): every (REST operation, concurrency parameter) pair of the installed SDKs' generated operation specs.",
  "Written by `npm run surface` (bin/surface.ts); the surface lint fails when it and the installed SDKs differ.",
  "rows: the rows that declare the pair (a row's `surface`), and those whose evidence sent it in a full run (`npm run surface -- --run <conformance.json>`).",
];

/** A full run's report, or why it cannot give the rows. */
function readRun(path: string): Report {
  if (!existsSync(path)) throw new ConfigError(`no report at ${path}: run the suite (npm test) first.`);
  const report = JSON.parse(readFileSync(path, "utf8")) as Report;
  if (!READABLE_SCHEMAS.includes(String(report.schema)) || !Array.isArray(report.results))
    throw new ConfigError(`${path} is not a conformance report.`);
  if (report.notRun.length)
    throw new ConfigError(`${path} is not a full run (${report.notRun.length} rows not selected): the rows column needs every row.`);
  return report;
}

/**
 * The pairs with their rows: the rows that declare the pair (RowDef.surface),
 * and those that sent it in the run, else those the file names.
 */
export function withRows(
  pairs: SurfacePair[],
  run: Report | undefined,
  listed: ListedPair[],
  declared: Map<string, string[]>,
): ListedPair[] {
  const rows = new Map(listed.map((p) => [pairKey(p), p.rows]));
  const sent = run
    ? new Map(
        surfaceCoverage(pairs, run.results, { services: run.run.target.services, notRun: run.notRun }).entries.map((e) => [
          pairKey(e),
          e.rows,
        ]),
      )
    : rows;
  return pairs.map((p) => ({
    ...p,
    rows: [...new Set([...(declared.get(declaredKey(p.service, p.operation, p.parameter)) ?? []), ...(sent.get(pairKey(p)) ?? [])])],
  }));
}

/** Where the rows came from, for the file's head. */
function provenance(run: Report | undefined, listed: string | undefined): string {
  if (!run) return listed ?? "rows: none yet (no run given)";
  const t = run.run.target;
  const server = t.azuriteVersion ? `Azurite ${t.azuriteVersion}` : (Object.values(t.server).find(Boolean) ?? t.kind);
  return `rows from a run against ${t.name} (${server}) on ${run.run.startedAt.slice(0, 10)}${run.run.suite.commit ? `, suite ${run.run.suite.commit.slice(0, 10)}` : ""}.`;
}

async function main(): Promise<number> {
  const program = withOneLineErrors(
    new Command()
      .name("surface")
      .description(
        "Writes catalogue/surface.tsv: every (REST operation, concurrency parameter) pair the installed SDKs' generated operation specs take (catalogue section S), and the rows that sent each in a full run.",
      )
      .option(
        "--run <conformance.json>",
        "a full run's report: the rows column becomes the rows whose evidence sent each pair (default: keep the file's rows)",
      )
      .option("--out <path>", "write here instead of catalogue/surface.tsv"),
  );
  const stop = parseArgs(program);
  if (stop !== undefined) return stop;
  const opts = program.opts<{ run?: string; out?: string }>();
  const run = opts.run ? readRun(resolve(opts.run)) : undefined;
  const listed = listedSurface() ?? [];
  const previous = existsSync(SURFACE_FILE)
    ? readFileSync(SURFACE_FILE, "utf8")
        .split("\n")
        .find((l) => l.startsWith("# rows from "))
    : undefined;
  await loadAllSuites();
  const declared = declaredSurfaceRows(registeredRows().map((r) => r.row));
  const pairs = withRows(await installedSurface(), run, listed, declared);
  const out = resolve(opts.out ?? SURFACE_FILE);
  writeFileSync(out, formatSurface(pairs, [...ABOUT, provenance(run, previous?.slice(2))]));
  const covered = pairs.filter((p) => p.rows.length).length;
  console.log(
    `${relative(ROOT, out) || out}: ${pairs.length} pairs (${pairs.filter((p) => p.service === "blob").length} blob, ${pairs.filter((p) => p.service === "file").length} file, ${pairs.filter((p) => p.service === "queue").length} queue, ${pairs.filter((p) => p.service === "table").length} table), ${covered} with rows`,
  );
  return 0;
}

await runMain(import.meta.url, main);
