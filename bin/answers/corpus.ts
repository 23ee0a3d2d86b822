// The corpus: the manifest of recordings (SOURCES.tsv: repo, path, commit,
// sdk, format), each file read with its format's parser and normalised, and
// the records as JSON lines sorted by repository, path and index.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { RecordedAnswer } from "../../model/answers.ts";
import { ConfigError } from "../../fixtures/wire/target.ts";
import type { Exchange } from "./exchange.ts";
import { answersOf } from "./normalise.ts";
import { parseEntries } from "./parse-entries.ts";
import { parseCpp, parseJava } from "./parse-network-calls.ts";
import { parseNock } from "./parse-nock.ts";
import { parseVcr } from "./parse-vcr.ts";

export const MANIFEST = "SOURCES.tsv";
const COLUMNS = ["repo", "path", "commit", "sdk", "format"];

export const PARSERS: Record<string, (text: string) => Exchange[]> = {
  "entries-json": parseEntries,
  "java-json": parseJava,
  "vcr-yaml": parseVcr,
  "nock-js": parseNock,
  "cpp-json": parseCpp,
};

const SDKS = ["net", "java", "python", "js", "go", "cpp", "rust"];

export interface SourceRow {
  repo: string;
  path: string;
  commit: string;
  sdk: string;
  format: string;
}

/** The manifest's rows; a malformed one is the user's to fix. */
export function parseManifest(text: string, where: string): SourceRow[] {
  const lines = text.split("\n").filter((l) => l.trim() && !l.startsWith("#"));
  if (lines[0]?.split("\t").join(",") !== COLUMNS.join(","))
    throw new ConfigError(`${where}: the first line must name the columns ${COLUMNS.join(", ")} (tab-separated).`);
  return lines.slice(1).map((line, n) => {
    const [repo, path, commit, sdk, format] = line.split("\t");
    if (!format || !SDKS.includes(sdk) || !PARSERS[format])
      throw new ConfigError(
        `${where} line ${n + 2}: expected repo, path, commit, an SDK (${SDKS.join("|")}) and a format (${Object.keys(PARSERS).join("|")}).`,
      );
    return { repo, path, commit, sdk, format };
  });
}

/** Where the recordings directory keeps a file: <owner>+<repo>/<path>. */
export const fileOf = (dir: string, row: SourceRow) => join(dir, row.repo.replace("/", "+"), row.path);

export interface Corpus {
  manifest: string;
  records: RecordedAnswer[];
  files: number;
  headerless: number;
  notAzure: number;
}

export function buildCorpus(dir: string): Corpus {
  if (!existsSync(dir)) throw new ConfigError(`no recordings directory at ${dir} (give --recordings <dir> or set AZURE_RECORDINGS).`);
  const manifestFile = join(dir, MANIFEST);
  if (!existsSync(manifestFile)) throw new ConfigError(`${dir} has no ${MANIFEST} (the manifest: repo, path, commit, sdk, format).`);
  const manifest = readFileSync(manifestFile, "utf8");
  const corpus: Corpus = { manifest, records: [], files: 0, headerless: 0, notAzure: 0 };
  for (const row of parseManifest(manifest, manifestFile)) {
    const file = fileOf(dir, row);
    if (!existsSync(file)) throw new ConfigError(`${file} is missing (listed in ${MANIFEST}).`);
    let exchanges: Exchange[];
    try {
      exchanges = PARSERS[row.format](readFileSync(file, "utf8"));
    } catch (err) {
      throw new ConfigError(`${file} is not a readable ${row.format} recording: ${(err as Error).message.split("\n")[0]}`);
    }
    const got = answersOf(exchanges, { sdk: row.sdk, repo: row.repo, path: row.path, commit: row.commit });
    corpus.records.push(...got.records);
    corpus.headerless += got.headerless;
    corpus.notAzure += got.notAzure;
    corpus.files++;
  }
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  corpus.records.sort((a, b) => cmp(a.source.repo, b.source.repo) || cmp(a.source.path, b.source.path) || a.source.index - b.source.index);
  return corpus;
}

/** One record a line, keys in the order of RecordedAnswer (the objects are built in it). */
export const formatRecords = (records: RecordedAnswer[]): string =>
  records.map((r) => JSON.stringify(r)).join("\n") + (records.length ? "\n" : "");

const tally = (values: string[]) => {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([v, n]) => `${v} ${n}`)
    .join(", ");
};

/** The summary lines: records by SDK, service and status, and how many show a lease state. */
export function summary(c: Corpus): string[] {
  const r = c.records;
  return [
    `${r.length} records from ${c.files} recordings (${c.headerless} exchanges left out: the format keeps no request headers; ${c.notAzure} not answered by Azure)`,
    `by SDK: ${tally(r.map((x) => x.source.sdk))}`,
    `by service: ${tally(r.map((x) => x.service))}`,
    `by status: ${tally(r.map((x) => String(x.status)))}`,
    `with a lease state: ${r.filter((x) => x.state.lease !== undefined).length}; with an unknown value: ${r.filter((x) => Object.values(x.params).includes("unknown")).length}`,
  ];
}
