// `npm run answers`: writes catalogue/azure-answers.jsonl, Azure's own answers
// (model/answers.ts): the exchanges of the Azure SDKs' live test recordings
// that bear on concurrency, one record each. It reads the recordings from a
// directory (--recordings, else AZURE_RECORDINGS, else /work/recordings) laid
// out as <owner>+<repo>/<path>, with SOURCES.tsv naming each file's repository,
// path, commit, SDK and format; the committed copy of that manifest,
// catalogue/azure-answers.sources.tsv, tells where to download them to
// rebuild. `--check` rebuilds in memory and fails if either file differs.
// `--uncovered` reads the committed corpus (no recordings needed) and lists
// the recorded answers no row's claim matches, each with its line of
// catalogue/azure-answers-uncovered.tsv (why it has no row), and fails on an
// answer without a line or a line no longer needed.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Command } from "commander";
import { ROOT } from "../fixtures/paths.ts";
import { buildCorpus, formatRecords, summary } from "./answers/corpus.ts";
import { parseAnswers, parseUncoveredReasons, uncoveredKey, uncoveredOf } from "../model/answers.ts";
import { parseArgs, runMain, withOneLineErrors } from "./cli-kit.ts";

export const ANSWERS_FILE = join(ROOT, "catalogue", "azure-answers.jsonl");
export const SOURCES_FILE = join(ROOT, "catalogue", "azure-answers.sources.tsv");
export const UNCOVERED_FILE = join(ROOT, "catalogue", "azure-answers-uncovered.tsv");

const read = (path: string) => (existsSync(path) ? readFileSync(path, "utf8") : undefined);

async function main(): Promise<number> {
  const program = withOneLineErrors(
    new Command()
      .name("answers")
      .description(
        "Writes catalogue/azure-answers.jsonl: the exchanges of the Azure SDKs' recorded live tests that bear on concurrency (ETags, conditions, leases, pop receipts), one record each, and catalogue/azure-answers.sources.tsv, where each recording came from.",
      )
      .option(
        "--recordings <dir>",
        "the recordings directory: <owner>+<repo>/<path> files and SOURCES.tsv (default: $AZURE_RECORDINGS, else /work/recordings)",
      )
      .option("--check", "rebuild in memory; exit 1 if the committed files differ")
      .option(
        "--uncovered",
        "list the recorded answers no row claims, with why each has no row (catalogue/azure-answers-uncovered.tsv); exit 1 if one has no line there or a line is stale",
      ),
  );
  const stop = parseArgs(program);
  if (stop !== undefined) return stop;
  const opts = program.opts<{ recordings?: string; check?: boolean; uncovered?: boolean }>();
  if (opts.uncovered) return listUncovered();
  const dir = resolve(opts.recordings ?? process.env.AZURE_RECORDINGS ?? "/work/recordings");
  const corpus = buildCorpus(dir);
  const text = formatRecords(corpus.records);
  if (opts.check) {
    const stale = [
      read(ANSWERS_FILE) !== text ? "catalogue/azure-answers.jsonl" : undefined,
      read(SOURCES_FILE) !== corpus.manifest ? "catalogue/azure-answers.sources.tsv" : undefined,
    ].filter(Boolean);
    if (stale.length) {
      console.error(`${stale.join(" and ")} ${stale.length > 1 ? "differ" : "differs"} from what ${dir} builds: run npm run answers.`);
      return 1;
    }
    console.log(`catalogue/azure-answers.jsonl is up to date (${corpus.records.length} records).`);
    return 0;
  }
  writeFileSync(ANSWERS_FILE, text);
  writeFileSync(SOURCES_FILE, corpus.manifest);
  console.log(`catalogue/azure-answers.jsonl: ${summary(corpus).join("\n  ")}`);
  return 0;
}

/** The recorded answers no row claims, with their reasons; 1 when one lacks a reason or a reason is stale. */
async function listUncovered(): Promise<number> {
  const { loadAllSuites, registeredRows } = await import("../fixtures/harness/registry.ts");
  await loadAllSuites();
  const claims = registeredRows().flatMap(({ row }) => row.answers ?? []);
  const uncovered = uncoveredOf(claims, parseAnswers(readFileSync(ANSWERS_FILE, "utf8")));
  const reasons = parseUncoveredReasons(read(UNCOVERED_FILE) ?? "");
  const missing = uncovered.filter((u) => !reasons.get(uncoveredKey(u)));
  const stale = [...reasons.keys()].filter((k) => !uncovered.some((u) => uncoveredKey(u) === k));
  for (const u of uncovered)
    console.log(`${u.records}\t${u.shape}\t${u.answer}\t${reasons.get(uncoveredKey(u)) || "NO REASON"} (${u.source})`);
  console.log(
    `${uncovered.reduce((n, u) => n + u.records, 0)} recorded answers of ${uncovered.length} shapes no row claims; ${missing.length} without a line in catalogue/azure-answers-uncovered.tsv, ${stale.length} stale line(s) there.`,
  );
  for (const k of stale) console.log(`stale: ${k.replace("\t", " => ")}`);
  return missing.length || stale.length ? 1 : 0;
}

await runMain(import.meta.url, main);
