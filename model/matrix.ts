// The report's matrix: the seed article's tables as sections of rows and
// cells, each cell naming the test ID that checks it, and the catalogue's order
// of sections and tables. Suites register sections (fixtures/registry.ts);
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
}

/** Catalogue sections in the catalogue's order; a table's title starts with its section. */
const SECTIONS = ["T1", "T2", "C", "G", "L", "TB", "Q", "F", "M"];
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
