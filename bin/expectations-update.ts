#!/usr/bin/env node
// `npm run expectations:update -- <target>`: rewrites expectations/<target>.json
// (and its topic files expectations/<target>.<topic>.json) from the last run's
// reports/conformance.json, for a person to review with `git diff`. The rules
// (what is pinned, narrowed, widened, kept or dropped, and which file a pin
// goes to) are in expectations-apply.ts.
import { existsSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { ROOT } from "../fixtures/paths.ts";
import { Command } from "commander";
import { expectationPath } from "../fixtures/harness/expectations.ts";
import { loadAllSuites } from "../fixtures/harness/registry.ts";
import { registeredRows } from "../fixtures/harness/registry.ts";
import { ConfigError } from "../fixtures/wire/target.ts";
import { READABLE_SCHEMAS, type Report } from "../model/result.ts";
import { serverVersions } from "../model/versions.ts";
import { parseArgs, runMain, withOneLineErrors } from "./cli-kit.ts";
import { applyReport, loadFiles, readJson, TODO_REASON, writeFiles } from "./expectations-apply.ts";

const program = withOneLineErrors(
  new Command()
    .name("expectations:update")
    .description(
      "Rewrites a target's expectation file from a run's report, for a person to review: pins FAIL results (status + signature), drops pins of rows that now pass, keeps reasons and links; new pins get the reason \"" +
        TODO_REASON +
        '". Topic files (<target>.<topic>.json) are updated in place.',
    )
    .argument("[target]", "target name: expectations/<target>.json (e.g. azurite, live)")
    .option("-r, --report <path>", "the run's conformance.json (default: $CONFORMANCE_REPORT_DIR or reports, /conformance.json)")
    .option("-e, --expectations <path>", "an expectation file by path (for a target kept outside this package)")
    .option("-f, --force", "update even though the report was made with another expectation file")
    .option("-n, --dry-run", "say what would change, write nothing"),
);

async function main(): Promise<number> {
  const stop = parseArgs(program);
  if (stop !== undefined) return stop;
  const [name] = program.args as [string | undefined];
  const opts = program.opts<{ report?: string; expectations?: string; force?: boolean; dryRun?: boolean }>();
  if (!name && !opts.expectations)
    throw new ConfigError("name a target (e.g. `npm run expectations:update -- azurite`) or pass --expectations <path>.");
  if (name && !/^[a-z0-9][a-z0-9_-]*$/i.test(name))
    throw new ConfigError(`target ${JSON.stringify(name)}: use a plain name (letters, digits, - and _), or --expectations <path>.`);
  const mainPath = opts.expectations ? resolve(opts.expectations) : expectationPath(name!);
  const reportPath = resolve(opts.report ?? join(process.env.CONFORMANCE_REPORT_DIR || "reports", "conformance.json"));
  if (!existsSync(reportPath)) throw new ConfigError(`no report at ${reportPath}: run the suite first (npm test) or pass --report <path>.`);
  const report = readJson<Report>(reportPath, "Report");
  if (!Array.isArray(report.results) || !report.run) throw new ConfigError(`${reportPath} is not a conformance report (no run / results).`);
  if (!READABLE_SCHEMAS.includes(String(report.schema))) {
    throw new ConfigError(`${reportPath} has schema ${JSON.stringify(report.schema)}; expected one of ${READABLE_SCHEMAS.join(", ")}.`);
  }
  const used = report.run.expectations;
  if (used && used !== "none" && resolve(ROOT, used) !== mainPath && resolve(used) !== mainPath && !opts.force) {
    throw new ConfigError(
      `${relative(process.cwd(), reportPath)} was run against ${report.run.target.kind} with expectations ${used}, not ${relative(process.cwd(), mainPath)}; pass --force to update it anyway.`,
    );
  }
  const files = loadFiles(mainPath, name ?? basename(mainPath, ".json"));
  await loadAllSuites();
  const versions = report.run.target.versions ?? serverVersions(report.run.target.server ?? {});
  const sum = applyReport(files, report, new Set(registeredRows().map((r) => r.row.id)), versions);
  if (!opts.dryRun) writeFiles(files, sum);
  const rel = (p: string) => relative(process.cwd(), p) || p;
  const named = [...new Set(Object.values(versions))].join(", ");
  console.log(
    `From ${rel(reportPath)} (${report.run.target.kind}${named ? ` version ${named}` : ""}, ${report.results.length} results, ${report.run.finishedAt}):`,
  );
  for (const id of sum.added) console.log(`  + pinned   ${id}  (reason: ${TODO_REASON})`);
  for (const c of sum.changed) console.log(`  ~ changed  ${c.id}: ${c.from}  ->  ${c.to}`);
  for (const c of sum.ranged) console.log(`  ~ versions ${c.id}: ${c.from}  ->  ${c.to}`);
  for (const c of sum.conflicts) {
    console.log(
      `  ! conflict ${c.id}: pinned for versions ${c.versions}, but version ${c.version ?? "unknown"} fails otherwise (${c.signature ?? "no signature"}): edit by hand`,
    );
  }
  for (const id of sum.removed) console.log(`  - passes   ${id}  (pin removed)`);
  for (const id of sum.stale) console.log(`  - gone     ${id}  (no such test any more; pin removed)`);
  for (const op of sum.addedOperations) console.log(`  + ${op}  (reason: ${TODO_REASON})`);
  for (const op of sum.removedOperations) console.log(`  - answers ${op}  (operation pin removed)`);
  if (sum.kept.length) console.log(`  = kept ${sum.kept.length} pin(s) of rows not run or without a verdict in this run`);
  if (opts.dryRun) console.log("Dry run: nothing written.");
  else {
    for (const p of sum.written) console.log(`wrote ${rel(p)}`);
    for (const p of sum.deleted) console.log(`deleted ${rel(p)} (no pins left)`);
    if (!sum.written.length && !sum.deleted.length) console.log("No change.");
  }
  if (sum.todo.length)
    console.log(`${sum.todo.length} pin(s) still need a reason (search for "${TODO_REASON}"); review with git diff before committing.`);
  return 0;
}

await runMain(import.meta.url, main);
