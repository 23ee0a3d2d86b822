// The report's matrix: the seed article's tables as sections of rows and
// cells, each cell naming the test ID that checks it, and the catalogue's order
// of sections and tables. Suites register sections (fixtures/harness/registry.ts);
// reporters render them.

export interface MatrixCell {
  /** What the seed article says ("Yes", "No", "412", ...). */
  claim: string;
  /** The test ID that checks the cell. */
  id: string;
  /** Finer rows shown inside the cell, e.g. one per conditional header: label and test ID. */
  subs?: { label: string; id: string }[];
}

/** One table of the report's matrix, mirroring a table of the seed article. */
export interface MatrixSection {
  key: string;
  title: string;
  source: string;
  /** Order of the report; lower first. */
  order: number;
  columns: { key: string; header: string }[];
  rows: { label: string; cells: Record<string, MatrixCell> }[];
  /** A table of catalogue section X: shown under "Beyond the article", apart from the article's tables. */
  beyond?: boolean;
}

/** Catalogue section X (its tables are titled `X-A …`, `X-T …`): controls of the REST reference beyond the seed article. */
export const isBeyondArticle = (tableTitle: string): boolean => /^X-[A-Z]+ /.test(tableTitle);

/** Why the report shows section X apart (every report says it where the part begins). */
export const BEYOND_ARTICLE_NOTE =
  "The concurrency controls the REST reference documents beyond the seed article: append positions and sizes, blob index tag predicates, conditions on the From-URL operations, page-blob sequence numbers, snapshots, batches, versions and recovery. These rows are `rest` level (a few `disputed` or `info`). Certification counts the article's `doc` claims only, so they are shown apart and never change the certificate; a deviation here still fails the run unless the target's expectation file pins it.";

/** Catalogue sections in the catalogue's order; a table's title starts with its section. */
const SECTIONS = ["T1", "T2", "C", "G", "L", "TB", "Q", "F", "X-A", "X-T", "X-U", "X-S", "X-N", "X-B", "X-V", "M"];
/** Within a section, the catalogue's order of its tables (others follow, in load order). */
const TABLES = [
  "L Blob leases",
  "L Operations that honour a blob lease",
  "L Lease actions × lease states",
  "L Container leases",
  "TB Table entities",
  "TB Table entity group transactions",
  "Q Queue messages",
  "Q Queue settings (last writer wins)",
  "F Files (REST)",
  "F Files (Lease File)",
  "F Files (SMB)",
];
export function sectionRank(tableTitle: string): number {
  const i = SECTIONS.indexOf(tableTitle.split(" ")[0]);
  const j = TABLES.indexOf(tableTitle);
  return (i < 0 ? SECTIONS.length : i) * 100 + (j < 0 ? 99 : j);
}
