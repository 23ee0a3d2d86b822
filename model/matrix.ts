// The report's matrix: the seed article's tables as sections of rows and
// cells, each cell naming the test ID that checks it, and the catalogue's order
// of sections and tables. Suites register a section's layout (title, columns)
// and each row names its own place in it (`MatrixPlace`), so a cell's ID is
// written once, where the row is (fixtures/harness/registry.ts);
// `fillMatrix` builds the cells from the places; reporters render them.

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

/** A section without its cells: what a table of the report looks like; the rows fill it. */
export type MatrixLayout = Omit<MatrixSection, "rows"> & {
  /** The order of the section's rows, by label, where the claim table has one; rows not listed follow, as they first appear. */
  rowOrder?: readonly string[];
};

/**
 * Where a row stands in the report's matrix: a section (its key), the label
 * of a row of that section, a column (its key) and the article's claim for the
 * cell. With `sub`, the row is a finer row shown inside the cell under that
 * label (e.g. one per conditional header) and the cell's claim is another
 * row's.
 */
export interface MatrixPlace {
  section: string;
  row: string;
  column: string;
  claim?: string;
  sub?: string;
}

/** The common prefix of IDs, on whole path segments (`file/lease/a`, `file/lease/b` → `file/lease`). */
function commonPrefix(ids: string[]): string {
  const parts = ids.map((id) => id.split("/"));
  const out: string[] = [];
  for (let i = 0; parts.every((p) => i < p.length && p[i] === parts[0][i]); i++) out.push(parts[0][i]);
  return out.join("/");
}

/**
 * The sections with their cells, from the places rows name (rows in the order
 * given, a section's rows and a cell's finer rows in the order they first
 * appear). A cell several rows stand in names their common ID prefix (its
 * verdict is the worst of them). A place naming no layout or column, a finer
 * row in a cell that no row claims, two claims for one cell: each is an error.
 */
export function fillMatrix(layouts: MatrixLayout[], rows: { id: string; matrix?: MatrixPlace[] }[]): MatrixSection[] {
  const sections = new Map(
    layouts.map(({ rowOrder = [], ...l }) => [
      l.key,
      { ...l, rows: rowOrder.map((label) => ({ label, cells: {} })) as MatrixSection["rows"] },
    ]),
  );
  const mains = new Map<MatrixCell, string[]>();
  const subsOnly = new Map<string, { label: string; id: string }[]>();
  for (const { id, matrix = [] } of rows)
    for (const p of matrix) {
      const s = sections.get(p.section);
      if (!s) throw new Error(`${id}: its matrix place names no section "${p.section}"`);
      if (!s.columns.some((c) => c.key === p.column)) throw new Error(`${id}: section "${p.section}" has no column "${p.column}"`);
      let row = s.rows.find((r) => r.label === p.row);
      if (!row) s.rows.push((row = { label: p.row, cells: {} }));
      const where = `${p.section} / ${p.row} / ${p.column}`;
      if (p.sub !== undefined) {
        const list = subsOnly.get(where) ?? [];
        subsOnly.set(where, [...list, { label: p.sub, id }]);
        continue;
      }
      if (p.claim === undefined) throw new Error(`${id}: its place in ${where} has neither a claim nor a sub label`);
      const cell = row.cells[p.column];
      if (cell && cell.claim !== p.claim) throw new Error(`${id}: ${where} claims "${p.claim}", another row "${cell.claim}"`);
      if (cell) mains.get(cell)!.push(id);
      else mains.set((row.cells[p.column] = { claim: p.claim, id }), [id]);
    }
  for (const [cell, ids] of mains) cell.id = commonPrefix(ids);
  for (const s of sections.values())
    for (const row of s.rows)
      for (const [column, cell] of Object.entries(row.cells)) {
        const where = `${s.key} / ${row.label} / ${column}`;
        const subs = subsOnly.get(where);
        subsOnly.delete(where);
        if (subs) cell.subs = subs;
      }
  const orphan = [...subsOnly.keys()][0];
  if (orphan) throw new Error(`finer rows in ${orphan}, a cell no row claims`);
  const empty = [...sections.values()].flatMap((s) =>
    s.rows.filter((r) => !Object.keys(r.cells).length).map((r) => `${s.key} / ${r.label}`),
  )[0];
  if (empty) throw new Error(`the matrix row ${empty} has no cell: no row names a place in it`);
  return [...sections.values()];
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
