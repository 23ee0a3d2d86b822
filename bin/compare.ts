#!/usr/bin/env node
// `npm run compare -- <report.json>... [--report-dir d] [--diff]`: runs side by
// side in <d>/compare.md and compare.html. Exit code: 0; 1 with --diff when a
// row passed in one run and fails in the next (an upgrade gate); 2 bad input.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { Command } from "commander";
import { ConfigError } from "../fixtures/wire/target.ts";
import { writeCompare, type CompareRun } from "../reporters/compare.ts";
import type { Report } from "../model/result.ts";
import { parseArgs, runMain, withOneLineErrors } from "./cli-kit.ts";

const program = withOneLineErrors(
  new Command()
    .name("compare")
    .description(
      "Puts conformance runs side by side: one column per run (target kind, server version, date), one row per ID, each cell linking to that run's evidence.",
    )
    .argument("<reports...>", "conformance.json files (or the report directories holding them), oldest first")
    .option("-r, --report-dir <dir>", "where compare.md and compare.html go", "reports")
    .option("-d, --diff", "list only the IDs whose verdict changed; exit 1 if a row that passed fails in a later run"),
);

export function readRun(arg: string): CompareRun {
  const path = existsSync(arg) && statSync(arg).isDirectory() ? join(arg, "conformance.json") : arg;
  if (!existsSync(path)) throw new ConfigError(`no report at ${path}.`);
  let report: Report;
  try {
    report = JSON.parse(readFileSync(path, "utf8")) as Report;
  } catch (err) {
    throw new ConfigError(`${path} is not JSON (${(err as Error).message.split("\n")[0]}).`);
  }
  if (!String(report.schema ?? "").startsWith("azure-storage-concurrency-conformance/report@") || !Array.isArray(report.results)) {
    throw new ConfigError(`${path} is not a conformance report (schema ${JSON.stringify(report.schema)}).`);
  }
  return { report, path: resolve(path) };
}

function main(): number {
  const stop = parseArgs(program);
  if (stop !== undefined) return stop;
  const opts = program.opts<{ reportDir: string; diff?: boolean }>();
  const runs = (program.args as string[]).map(readRun);
  const { comparison, files } = writeCompare(runs, { outDir: resolve(opts.reportDir), diff: opts.diff });
  for (const col of comparison.columns) console.log(`  ${col.label}  (${col.server})`);
  const changed = comparison.rows.filter((r) => r.changed);
  console.log(`${changed.length} of ${comparison.rows.length} IDs differ between the runs.`);
  if (opts.diff) for (const r of changed) console.log(`  ${r.id}: ${r.cells.map((c) => c?.status ?? "not run").join(" → ")}`);
  for (const r of comparison.regressions) console.log(`  regression ${r.id}: PASS in ${r.from}, FAIL in ${r.to}`);
  console.log(`Wrote ${files.join(", ")}`);
  return opts.diff && comparison.regressions.length ? 1 : 0;
}

await runMain(import.meta.url, main);
