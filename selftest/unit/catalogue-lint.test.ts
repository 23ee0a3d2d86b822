// Catalogue lint: the registry covers every required catalogue ID, every row
// is well formed, and the repository's ID list is the specification's.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { assert } from "chai";
import { loadAllSuites } from "../../fixtures/headless.ts";
import { matrixSections, registeredRows } from "../../fixtures/registry.ts";
import { ROOT } from "../../fixtures/paths.ts";
import { SERVICES } from "../../fixtures/target.ts";

const LEVELS = ["doc", "rest", "disputed", "info"];

/** IDs of required-ids-next.txt not implemented yet, each with why. */
const NOT_YET: Record<string, string> = {
};

function idList(path: string): string[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
}

/** An ID is covered when a row has it or IDs beneath it ('ID/...'). */
export function covered(id: string, rowIds: string[]): boolean {
  return rowIds.some((r) => r === id || r.startsWith(id + "/"));
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
    const seen = new Set<string>();
    const problems: string[] = [];
    for (const { row, table } of rows) {
      if (seen.has(row.id)) problems.push(`${row.id}: duplicate`);
      seen.add(row.id);
      if (!/^[a-z0-9][a-z0-9-]*(\/[a-z0-9][a-z0-9.-]*)+$/.test(row.id)) problems.push(`${row.id}: not a lowercase path of kebab-case segments`);
      if (!LEVELS.includes(row.level)) problems.push(`${row.id}: level ${JSON.stringify(row.level)}`);
      if (!row.source?.trim()) problems.push(`${row.id}: no source`);
      if (!row.title?.trim()) problems.push(`${row.id}: no title`);
      if (!SERVICES.includes(row.service)) problems.push(`${row.id}: service ${JSON.stringify(row.service)}`);
      if (!table?.trim()) problems.push(`${row.id}: no catalogue table`);
      if (typeof row.run !== "function") problems.push(`${row.id}: no run()`);
    }
    assert.deepEqual(problems, []);
  });

  it("every matrix cell names an ID that a registered row covers", function () {
    const ids = rows.map((r) => r.row.id);
    const dangling = matrixSections().flatMap((s) =>
      s.rows.flatMap((r) => Object.values(r.cells).filter((c) => !covered(c.id, ids)).map((c) => `${s.key} ${r.label}: ${c.id}`)),
    );
    assert.deepEqual(dangling, []);
  });

  for (const file of ["required-ids.txt", "required-ids-next.txt"]) {
    it(`catalogue/${file} is the specification's ${file}`, function () {
      const spec = join(ROOT, "..", "shared", "spec", file);
      if (!existsSync(spec)) this.skip();
      assert.deepEqual(idList(join(ROOT, "catalogue", file)), idList(spec));
    });
  }

  it("every ID of catalogue/required-ids-next.txt is covered, but for the models still to come", function () {
    const ids = rows.map((r) => r.row.id);
    const missing = idList(join(ROOT, "catalogue", "required-ids-next.txt")).filter((id) => !covered(id, ids) && !(id in NOT_YET));
    assert.deepEqual(missing, [], `${missing.length} ID(s) the open work adds have no test`);
    const done = Object.keys(NOT_YET).filter((id) => covered(id, ids));
    assert.deepEqual(done, [], "implemented now: remove from NOT_YET");
  });
});
