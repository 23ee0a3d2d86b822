// Every row is findable from its ID: the location `--list` prints and the
// reports carry exists and holds the row's ID (a hand-written row spells it in
// full) or, for a row a claim table generates, its claim.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { assert } from "chai";
import { loadAllSuites } from "../headless.ts";
import { listRows } from "../../fixtures/run/list-rows.ts";
import { ROOT } from "../../fixtures/paths.ts";
import { registeredRows, rowLocation } from "../../fixtures/harness/registry.ts";
import { SERVICES } from "../../fixtures/wire/target.ts";

const lineOf = (file: string, line: number) => readFileSync(join(ROOT, file), "utf8").split("\n")[line - 1];

describe("every row findable from its ID", function () {
  before(async function () {
    await loadAllSuites();
  });

  it("each row's location exists and its line holds the ID in full, or the claim the row is generated from", function () {
    const bad: string[] = [];
    for (const { row } of registeredRows()) {
      const at = rowLocation(row.id);
      if (!at) {
        bad.push(`${row.id}: no location (a hand-written row spells its ID in full; a generated one names its claim with claimAt)`);
        continue;
      }
      if (!existsSync(join(ROOT, at.file))) {
        bad.push(`${row.id}: ${at.file} does not exist`);
        continue;
      }
      const text = lineOf(at.file, at.line) ?? "";
      const holds = row.claim ? text.includes(row.claim.text) : [`"${row.id}"`, `\`${row.id}\``].some((q) => text.includes(q));
      if (!holds) bad.push(`${row.id}: ${at.file}:${at.line} holds neither the ID nor its claim: ${text.trim()}`);
    }
    assert.deepEqual(bad, []);
  });

  it("a generated row's claim names a part of the row's ID (an operation, a case, a cell)", function () {
    const words = (text: string) => (text.match(/[a-z0-9]+(?:-[a-z0-9]+)*/g) ?? []).filter((w) => !["slug", "claim", "op"].includes(w));
    const bad = registeredRows()
      .filter(({ row }) => row.claim && !words(row.claim.text).some((w) => row.id.includes(w)))
      .map(({ row }) => `${row.id}: ${row.claim!.text}`);
    assert.deepEqual(bad, []);
  });

  it("a generated row's claim is in a file of the suites, not in the code that generates every row alike", function () {
    const bad = registeredRows()
      .filter(({ row }) => row.claim && !rowLocation(row.id)!.file.startsWith("suites/"))
      .map(({ row }) => `${row.id}: ${rowLocation(row.id)!.file}`);
    assert.deepEqual(bad, []);
  });

  it("--list prints each selected row once with its ID, level, file:line and title, and runs nothing", async function () {
    const printed: string[] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => void printed.push(args.join(" "));
    try {
      assert.equal(await listRows({ services: [...SERVICES], grep: "blob/lease/write-with-id|queue/delivery-model" }), 0);
    } finally {
      console.log = log;
    }
    const rows = printed.slice(0, -1).map((l) => l.split("\t"));
    assert.deepEqual(
      rows.map((r) => r[0]),
      ["blob/lease/write-with-id", "queue/delivery-model"],
      "catalogue order",
    );
    for (const [id, level, at, title] of rows) {
      const row = registeredRows().find((e) => e.row.id === id)!.row;
      assert.equal(level, row.level);
      assert.equal(title, row.title);
      const [file, line] = at.split(":");
      assert.include(lineOf(file, Number(line)), `"${id}"`);
    }
    assert.match(printed.at(-1)!, /^2 rows /);
  });
});
