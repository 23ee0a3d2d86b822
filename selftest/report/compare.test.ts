// The compare view (bin/compare.ts): one column per run naming its version,
// one row per ID, cells linking to each run's evidence; --diff keeps changed
// IDs and exits 1 on a PASS that became FAIL; compare.html rendered in a real
// headless Chromium, hostile values escaped.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assert } from "chai";
import type { RowResult, Status } from "../../fixtures/harness/engine.ts";
import { compareRuns, renderCompareHtml } from "../../reporters/compare.ts";
import { summarise, type Report } from "../../model/result.ts";
import { cleanEnv, collect, ROOT, scriptArgv, tmpDir } from "../cli/cli-kit.ts";
import { chromium, chromiumOrSkip } from "./chromium.ts";
import { row, syntheticReport } from "./synthetic.ts";

const EVIL = `<script>document.title="pwned"</script><img src=x onerror="document.title='pwned'">`;

function result(id: string, status: Status): RowResult {
  const r = row(id, status);
  return status === "FAIL" ? { ...r, observed: "FAIL" } : r;
}

function reportOf(version: string, started: string, rows: [string, Status][]): Report {
  const base = syntheticReport();
  const results = rows.map(([id, st]) => result(id, st));
  const server = { blob: `Azurite-Blob/${version}`, queue: `Azurite-Queue/${version}` };
  return {
    ...base,
    run: {
      ...base.run,
      startedAt: started,
      target: { ...base.run.target, kind: "emulator", server, versions: { blob: version, queue: version } },
    },
    summary: summarise(results),
    results,
    notRun: [],
  };
}

const OLD: [string, Status][] = [
  ["blob/x/same", "PASS"],
  ["blob/x/fixed", "EXPECTED_FAIL"],
  ["blob/x/broke", "PASS"],
  ["queue/x/gone", "PASS"],
];
const NEW: [string, Status][] = [
  ["blob/x/same", "PASS"],
  ["blob/x/fixed", "PASS"],
  ["blob/x/broke", "FAIL"],
];

function compareCli(args: string[]) {
  return collect(
    spawn(process.execPath, [...scriptArgv("bin/compare.ts"), ...args], {
      cwd: ROOT,
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    }),
    60_000,
  );
}

describe("compare view", function () {
  this.timeout(180_000);
  let dir: string;
  let out: string;

  before(function () {
    dir = tmpDir("compare");
    out = join(dir, "out");
    for (const [name, rep] of [
      ["old", reportOf("3.35.0", "2026-01-01T10:00:00.000Z", OLD)],
      ["new", reportOf("3.37.0", "2026-01-02T10:00:00.000Z", NEW)],
    ] as const) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, "conformance.json"), JSON.stringify(rep));
    }
  });

  it("marks the IDs whose verdict changed and finds the regression (PASS, then FAIL)", function () {
    const c = compareRuns([
      { report: reportOf("3.35.0", "2026-01-01T10:00:00.000Z", OLD) },
      { report: reportOf("3.37.0", "2026-01-02T10:00:00.000Z", NEW) },
    ]);
    assert.deepEqual(
      c.columns.map((col) => col.version),
      ["3.35.0", "3.37.0"],
    );
    assert.deepEqual(
      c.rows.filter((r) => r.changed).map((r) => r.id),
      ["blob/x/fixed", "blob/x/broke", "queue/x/gone"],
    );
    assert.deepEqual(
      c.regressions.map((r) => r.id),
      ["blob/x/broke"],
    );
  });

  it("writes compare.md and compare.html naming both versions, every ID, cells linking to each run's evidence", async function () {
    const cli = await compareCli([join(dir, "old", "conformance.json"), join(dir, "new"), "--report-dir", out]);
    assert.equal(cli.code, 0, cli.stderr);
    const md = readFileSync(join(out, "compare.md"), "utf8");
    for (const v of ["3.35.0", "3.37.0", "Azurite-Blob/3.37.0"]) assert.include(md, v);
    for (const [id] of OLD) assert.include(md, `\`${id}\``);
    assert.include(md, "[🟧 EXPECTED_FAIL](../old/conformance.md#ev-blob-x-fixed)");
    assert.include(md, "[✅ PASS](../new/conformance.html#row-blob-x-fixed)");
    assert.include(readFileSync(join(out, "compare.html"), "utf8"), `href="../new/conformance.html#row-blob-x-broke"`);
  });

  it("--diff lists only the changed IDs and exits 1 on a regression; 0 without one", async function () {
    const cli = await compareCli([join(dir, "old"), join(dir, "new"), "--report-dir", out, "--diff"]);
    assert.equal(cli.code, 1, cli.stdout + cli.stderr);
    assert.include(cli.stdout, "regression blob/x/broke");
    const md = readFileSync(join(out, "compare.md"), "utf8");
    assert.notInclude(md, "`blob/x/same`");
    assert.include(md, "`blob/x/fixed`");
    const back = await compareCli([join(dir, "new"), join(dir, "old"), "--report-dir", out, "--diff"]);
    assert.equal(back.code, 1, "a pass that becomes a pinned failure is a regression too (the rows' own verdicts)");
    assert.include(back.stdout, "regression blob/x/fixed");
    assert.notInclude(back.stdout, "regression blob/x/broke", "FAIL then PASS is no regression");
    const same = await compareCli([join(dir, "new"), join(dir, "new"), "--report-dir", out, "--diff"]);
    assert.equal(same.code, 0);
  });

  it("bad input: a file that is not a report is one line and exit 2", async function () {
    writeFileSync(join(dir, "x.json"), "{}");
    const cli = await compareCli([join(dir, "x.json")]);
    assert.equal(cli.code, 2);
    assert.match(cli.stderr.trim(), /^error: .*is not a conformance report/);
  });

  describe("in a headless Chromium", function () {
    let bin: string | undefined;
    before(function () {
      bin = chromiumOrSkip(this);
    });

    it("renders one column per run (kind, version, date) and one row per ID, with working evidence links", async function () {
      const cli = await compareCli([join(dir, "old"), join(dir, "new"), "--report-dir", out]);
      assert.equal(cli.code, 0, cli.stderr);
      const dom = await chromium(bin!, ["--dump-dom", `file://${join(out, "compare.html")}`]);
      const heads = [...dom.matchAll(/<th data-col="\d">([\s\S]*?)<\/th>/g)].map((m) => m[1]);
      assert.equal(heads.length, 2);
      assert.match(heads[0], /emulator<br><b>3\.35\.0<\/b>.*2026-01-01 10:00/s);
      assert.match(heads[1], /emulator<br><b>3\.37\.0<\/b>.*2026-01-02 10:00/s);
      assert.equal((dom.match(/<tr data-id=/g) ?? []).length, 4, "one row per ID");
      assert.equal((dom.match(/<tr data-id="[^"]+" class="changed">/g) ?? []).length, 3, "the changed IDs marked");
      for (const href of dom.matchAll(/href="([^"#]+)#/g))
        assert.isTrue(existsSync(join(out, href[1]).replace(/conformance\.(html|md)$/, "conformance.json")), href[1]);
      const png = join(out, "compare.png");
      await chromium(bin!, ["--window-size=1200,800", "--hide-scrollbars", `--screenshot=${png}`, `file://${join(out, "compare.html")}`]);
      assert.isAbove(statSync(png).size, 5_000);
    });

    it("no injected markup survives (hostile IDs, messages and server headers)", async function () {
      const hostile = reportOf(EVIL, "2026-01-01T10:00:00.000Z", [[`blob/${EVIL}`, "FAIL"]]);
      hostile.results[0].message = EVIL;
      const file = join(tmpDir("compare-evil"), "compare.html");
      const runs = [{ report: hostile, path: `/tmp/${EVIL}/conformance.json` }];
      writeFileSync(file, renderCompareHtml(compareRuns(runs), runs, { outDir: "/tmp" }));
      const dom = await chromium(bin!, ["--dump-dom", `file://${file}`]);
      assert.notInclude(dom, "<img");
      assert.notInclude(dom, "<script>");
      assert.include(dom, "<title>Conformance runs side by side</title>");
    });
  });
});
