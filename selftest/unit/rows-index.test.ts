// catalogue/rows.tsv, the committed index of every row (bin/rows-index.ts), is
// what the registry holds now: an ID found by grep there is a row that runs.
import { readFileSync } from "node:fs";
import { assert } from "chai";
import { ROWS_INDEX, rowsIndex } from "../../bin/rows-index.ts";
import { registeredRows } from "../../fixtures/harness/registry.ts";

describe("the rows index (catalogue/rows.tsv)", function () {
  let text = "";
  before(async function () {
    text = await rowsIndex();
  });

  it("is current: npm run rows writes what is committed", function () {
    assert.isTrue(readFileSync(ROWS_INDEX, "utf8") === text, "catalogue/rows.tsv is stale: run npm run rows and commit it");
  });

  it("has one line per registered row, with its level, the line of its claim and its runner", function () {
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
      .filter((l) => l.length !== 4 || !/^[\w/.-]+:\d+$/.test(l[2]) || !/^[\w/.-]+(:\d+)? \S+$/.test(l[3]))
      .map((l) => l.join(" | "));
    assert.deepEqual(unplaced, []);
  });
});
