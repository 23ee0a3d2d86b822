// catalogue/rows.tsv, the committed index of every row (bin/rows-index.ts), is
// what the registry holds now: an ID found by grep there is a row that runs.
import { readFileSync } from "node:fs";
import { assert } from "chai";
import { ROWS_INDEX, rowsIndex } from "../../bin/rows-index.ts";
import { registeredRows } from "../../fixtures/harness/registry.ts";
import { BASIS_FILE } from "../../fixtures/paths.ts";

describe("the rows index (catalogue/rows.tsv)", function () {
  let text = "";
  let basis = "";
  before(async function () {
    ({ text, basis } = await rowsIndex());
  });

  it("is current: npm run rows writes what is committed (catalogue/rows.tsv and catalogue/basis.json)", function () {
    assert.isTrue(readFileSync(ROWS_INDEX, "utf8") === text, "catalogue/rows.tsv is stale: run npm run rows and commit it");
    assert.isTrue(readFileSync(BASIS_FILE, "utf8") === basis, "catalogue/basis.json is stale: run npm run rows and commit it");
  });

  it("has one line per registered row, with its level, the line of its claim, its runner and its basis", function () {
    const lines = text
      .split("\n")
      .filter((l) => l && !l.startsWith("#"))
      .map((l) => l.split("\t"));
    assert.deepEqual(
      lines.map((l) => l[0]).sort(),
      registeredRows()
        .map((r) => r.row.id)
        .sort(),
    );
    const unplaced = lines
      .filter(
        (l) =>
          l.length !== 5 ||
          !/^[\w/.-]+:\d+$/.test(l[2]) ||
          !/^[\w/.-]+(:\d+)? \S+$/.test(l[3]) ||
          !/^(reference|disputed|live: \d+ exchanges? \(.+\))$/.test(l[4]),
      )
      .map((l) => l.join(" | "));
    assert.deepEqual(unplaced, []);
  });
});
