// Catalogue lint: the registry covers every required catalogue ID, every row
// is well formed, and the repository's ID list is the specification's.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { assert } from "chai";
import { loadAllSuites } from "../headless.ts";
import { defineTable, matrixSections, registeredRows } from "../../fixtures/harness/registry.ts";
import { ROOT } from "../../fixtures/paths.ts";
import { SERVICES } from "../../fixtures/wire/target.ts";
import { cellResults } from "../../model/cells.ts";
import type { RowResult } from "../../model/result.ts";

const LEVELS = ["doc", "rest", "disputed", "info"];

/**
 * Blocks of required-ids-next.txt (named by the start of the comment that
 * heads each) whose IDs are not all implemented yet, each with why: an ID of
 * such a block may still lack a row; one of any other block may not.
 */
const NOT_YET: Record<string, string> = {};

/** The IDs of a list, each with the comment heading its block (the last comment line before it). */
function idBlocks(path: string): { id: string; block: string }[] {
  let block = "";
  const out: { id: string; block: string }[] = [];
  for (const line of readFileSync(path, "utf8")
    .split("\n")
    .map((l) => l.trim())) {
    if (line.startsWith("#")) block = line;
    else if (line) out.push({ id: line, block });
  }
  return out;
}

const idList = (path: string): string[] => idBlocks(path).map((e) => e.id);

/** An ID is covered when a row has it or IDs beneath it ('ID/...'). */
export function covered(id: string, rowIds: string[]): boolean {
  return rowIds.some((r) => r === id || r.startsWith(id + "/"));
}

type Registered = ReturnType<typeof registeredRows>;

/** What is wrong with each row: a duplicate or malformed ID, a missing level, source, title, service, table or run(). */
export function rowProblems(rows: Registered): string[] {
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const { row, table } of rows) {
    if (seen.has(row.id)) problems.push(`${row.id}: duplicate`);
    seen.add(row.id);
    if (!/^[a-z0-9][a-z0-9-]*(\/[a-z0-9][a-z0-9.-]*)+$/.test(row.id))
      problems.push(`${row.id}: not a lowercase path of kebab-case segments`);
    if (!LEVELS.includes(row.level)) problems.push(`${row.id}: level ${JSON.stringify(row.level)}`);
    if (!row.source?.trim()) problems.push(`${row.id}: no source`);
    if (!row.title?.trim()) problems.push(`${row.id}: no title`);
    if (!SERVICES.includes(row.service)) problems.push(`${row.id}: service ${JSON.stringify(row.service)}`);
    if (!table?.trim()) problems.push(`${row.id}: no catalogue table`);
    if (typeof row.run !== "function") problems.push(`${row.id}: no run()`);
  }
  return problems;
}

/** The next IDs' problems: an ID no row covers outside a waiting block, a waiting block all done, a waiting block the list lacks. */
export function nextIdProblems(entries: { id: string; block: string }[], rowIds: string[], notYet: Record<string, string>): string[] {
  const waiting = (block: string) => Object.keys(notYet).some((k) => block.startsWith(k));
  const inBlock = (k: string) => entries.filter((e) => e.block.startsWith(k));
  return [
    ...entries.filter((e) => !covered(e.id, rowIds) && !waiting(e.block)).map((e) => `${e.id}: no row covers it`),
    ...Object.keys(notYet)
      .filter((k) => inBlock(k).length && inBlock(k).every((e) => covered(e.id, rowIds)))
      .map((k) => `${k}: every ID of this block is implemented now: remove it from NOT_YET`),
    ...Object.keys(notYet)
      .filter((k) => !inBlock(k).length)
      .map((k) => `${k}: NOT_YET names a block the list no longer has`),
  ];
}

describe("catalogue lint", function () {
  let rows: ReturnType<typeof registeredRows>;
  before(async function () {
    await loadAllSuites();
    rows = registeredRows();
  });

  it("the coverage rule: an ID is covered by itself or by IDs beneath it, not by a mere prefix", function () {
    assert.isTrue(covered("a/b", ["a/b"]));
    assert.isTrue(covered("a/b", ["a/b/c"]));
    assert.isFalse(covered("a/b", ["a/bc"]));
    assert.isFalse(covered("a/b/c", ["a/b"]));
  });

  it("every ID of catalogue/required-ids.txt is covered by a registered row", function () {
    const ids = rows.map((r) => r.row.id);
    const missing = idList(join(ROOT, "catalogue", "required-ids.txt")).filter((id) => !covered(id, ids));
    assert.deepEqual(missing, [], `${missing.length} required catalogue ID(s) have no test`);
  });

  it("every registered row has a unique, well-formed ID, a level, a source, a title and a service", function () {
    assert.isAbove(rows.length, 0, "no rows registered");
    assert.deepEqual(rowProblems(rows), []);
  });

  it("the row checks find each kind of problem (a duplicate, a malformed ID, a missing level, source, title, service, table or run)", function () {
    const good = rows[0];
    const bad = [
      good,
      { row: { ...good.row, id: good.row.id }, table: good.table },
      { row: { ...good.row, id: "Blob/Not Kebab", level: "lore", source: " ", title: "", service: "disk", run: undefined }, table: "" },
    ];
    const found = rowProblems(bad as typeof rows).map((p) => p.slice(p.indexOf(":") + 2));
    assert.deepEqual(found, [
      "duplicate",
      "not a lowercase path of kebab-case segments",
      'level "lore"',
      "no source",
      "no title",
      'service "disk"',
      "no catalogue table",
      "no run()",
    ]);
  });

  it("the registry refuses a second row with an ID it holds", function () {
    assert.throws(() => defineTable({ table: rows[0].table, service: rows[0].row.service }, [rows[0].row]), /duplicate catalogue ID/);
  });

  it("every matrix section is filled, and a cell's ID covers only the rows that name a place in it", function () {
    const sections = matrixSections();
    assert.isAbove(sections.length, 0, "no matrix section registered");
    assert.deepEqual(
      sections.filter((s) => !s.rows.length).map((s) => s.key),
      [],
      "sections no row names a place in",
    );
    // The rows a cell covers, as the reports read a cell (model/cells.ts).
    const byId = new Map(rows.map(({ row }) => [row.id, { id: row.id } as RowResult]));
    const wrong = sections.flatMap((s) =>
      s.rows.flatMap((r) =>
        Object.entries(r.cells).flatMap(([column, c]) => {
          const placed = rows
            .filter(({ row }) =>
              row.matrix?.some((p) => p.section === s.key && p.row === r.label && p.column === column && p.sub === undefined),
            )
            .map(({ row }) => row.id);
          const under = cellResults(byId, c.id).map((x) => x.id);
          const finer = new Set((c.subs ?? []).map((x) => x.id));
          return under
            .filter((id) => !placed.includes(id) && !finer.has(id))
            .map((id) => `${s.key} ${r.label} ${column}: ${c.id} covers ${id}`);
        }),
      ),
    );
    assert.deepEqual(wrong, []);
  });

  for (const file of ["required-ids.txt", "required-ids-next.txt"]) {
    it(`catalogue/${file} is the specification's ${file}`, function () {
      const spec = join(ROOT, "..", "shared", "spec", file);
      if (!existsSync(spec)) this.skip();
      assert.deepEqual(idList(join(ROOT, "catalogue", file)), idList(spec));
    });
  }

  it("catalogue/CATALOGUE.md, which the self-tests read tables from, is the specification's text", function () {
    const spec = join(ROOT, "..", "shared", "spec", "CATALOGUE.md");
    if (!existsSync(spec)) this.skip();
    assert.isTrue(
      readFileSync(join(ROOT, "catalogue", "CATALOGUE.md"), "utf8") === readFileSync(spec, "utf8"),
      "catalogue/CATALOGUE.md differs from ../shared/spec/CATALOGUE.md: copy it",
    );
  });

  it("every ID of catalogue/required-ids-next.txt is covered, but for the blocks still to come", function () {
    const entries = idBlocks(join(ROOT, "catalogue", "required-ids-next.txt"));
    assert.isAbove(entries.length, 0, "required-ids-next.txt lists no ID");
    assert.deepEqual(
      nextIdProblems(
        entries,
        rows.map((r) => r.row.id),
        NOT_YET,
      ),
      [],
    );
  });

  it("the check of the next IDs finds an uncovered ID, a waiting block now done, and a waiting block the list lacks", function () {
    const entries = [
      { id: "blob/a", block: "# done" },
      { id: "blob/b", block: "# open" },
      { id: "blob/c", block: "# waiting" },
    ];
    assert.deepEqual(nextIdProblems(entries, ["blob/a", "blob/c/x"], { "# waiting": "why", "# gone": "why" }), [
      "blob/b: no row covers it",
      "# waiting: every ID of this block is implemented now: remove it from NOT_YET",
      "# gone: NOT_YET names a block the list no longer has",
    ]);
    assert.deepEqual(nextIdProblems(entries, ["blob/a"], { "# open": "why", "# waiting": "why" }), []);
  });
});
