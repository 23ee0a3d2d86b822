// The HTML report: escapes everything that came from a server or a test, and
// renders in a real headless Chromium: the certification summary, the matrix,
// every result's ID in the DOM, and a screenshot next to the report.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assert } from "chai";
import type { RowResult } from "../../fixtures/harness/engine.ts";
import { loadAllSuites } from "../headless.ts";
import { matrixSections, type MatrixSection } from "../../fixtures/harness/registry.ts";
import { renderHtml } from "../../reporters/html.ts";
import { tableCounts } from "../../reporters/html-certification.ts";
import { SCHEMA, summarise, type Report } from "../../model/result.ts";
import { readReport, ROOT, runCli, tmpDir } from "../cli/cli-kit.ts";
import { chromium, chromiumOrSkip } from "./chromium.ts";
import { COPY_BLOB_SUBS, COPY_SRC_IUS_FINER, PUT_BLOB_SUBS, SECTION, stepOf, syntheticReport } from "./synthetic.ts";

const EVIL = `<script>document.title="pwned"</script><img src=x onerror="document.title='pwned'">"'&`;

function hostileReport(): Report {
  const r: RowResult = {
    id: "blob/evil/row",
    title: `title ${EVIL}`,
    table: `T9 ${EVIL}`,
    service: "blob",
    level: "doc",
    source: `source ${EVIL}`,
    status: "EXPECTED_FAIL",
    observed: "FAIL",
    message: `message ${EVIL}`,
    signature: "sig",
    expectation: { status: "FAIL", reason: `reason ${EVIL}`, link: "javascript:alert(1)" },
    notes: { note: EVIL },
    durationMs: 1,
    evidence: [
      {
        seq: 1,
        step: `step ${EVIL}`,
        via: "raw",
        method: "GET",
        url: `/c/${EVIL}`,
        requestHeaders: { "if-match": EVIL },
        status: 412,
        responseHeaders: { etag: EVIL, server: EVIL },
        errorCode: EVIL,
        ms: 1,
      },
    ],
  };
  return {
    schema: SCHEMA,
    run: {
      suite: { name: "s", version: EVIL, commit: EVIL },
      startedAt: "2026-01-01T00:00:00.000Z",
      finishedAt: "2026-01-01T00:00:01.000Z",
      durationMs: 1000,
      target: {
        kind: "emulator",
        name: EVIL,
        account: EVIL,
        endpoints: { blob: EVIL },
        server: { blob: EVIL },
        services: [{ service: "file", available: false, reason: EVIL }],
      },
      apiVersionsSent: { blob: { raw: [EVIL] } },
      expectations: EVIL,
      runPrefix: EVIL,
      concurrency: 1,
      node: "v20",
      platform: "linux",
      leftovers: 1,
      grep: EVIL,
    },
    summary: summarise([r]),
    results: [r],
    notRun: [EVIL],
  };
}

const EVIL_SECTION: MatrixSection = {
  key: `k${EVIL}`,
  title: `matrix ${EVIL}`,
  source: EVIL,
  order: 1,
  columns: [{ key: "c", header: EVIL }],
  rows: [
    {
      label: EVIL,
      cells: {
        c: {
          claim: EVIL,
          id: "blob/evil",
          subs: [
            { label: EVIL, id: "blob/evil/row" },
            { label: `not run ${EVIL}`, id: `blob/evil/${EVIL}` },
          ],
        },
      },
    },
  ],
};

/** The <details> of one sub-verdict in the rendered HTML (its evidence contains no nested <details>). */
function subDetails(html: string, id: string): string {
  const start = html.indexOf(`<details class="sub" data-sub-id="${id}"`);
  assert.isAtLeast(start, 0, `sub-verdict ${id} rendered`);
  return html.slice(start, html.indexOf("</details>", start) + "</details>".length);
}

/** Everything the test script found, as JSON in <pre id="clicks"> of the dumped DOM. */
interface Clicked {
  id: string;
  status: string;
  label: string;
  closedHeight: number;
  open: boolean;
  openHeight: number;
  shows: string[];
  inCell: string;
}

describe("HTML report", function () {
  this.timeout(180_000);

  it("escapes every value from a server or a test: no markup, no javascript: link", function () {
    const html = renderHtml(hostileReport(), [EVIL_SECTION]);
    assert.notInclude(html, "<img");
    assert.notInclude(html, 'document.title="pwned"</script>');
    assert.notMatch(html, /href="javascript:/i);
    assert.equal((html.match(/<script>/g) ?? []).length, 1, "only the report's own script");
    assert.include(
      html,
      "&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;&lt;img src=x onerror=&quot;document.title=&#39;pwned&#39;&quot;&gt;&quot;&#39;&amp;",
    );
  });

  it("the Content-Security-Policy allows exactly the report's own script", function () {
    const html = renderHtml(hostileReport(), []);
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1];
    const hash = createHash("sha256").update(script).digest("base64");
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1].replace(/&#39;/g, "'");
    assert.include(csp, `script-src 'sha256-${hash}'`);
    assert.include(csp, "default-src 'none'");
  });

  it("sub-verdicts: after the cell's own verdict, one badge per sub, each opening that row's evidence; 'not run' when it did not run", function () {
    const html = renderHtml(syntheticReport(), [SECTION]);
    const start = html.indexOf(`<td class="cell st-pass" data-id="blob/blob-ops/put-blob/conditional" data-status="PASS">`);
    assert.isAtLeast(start, 0, "the Put Blob conditional cell");
    const own = html.indexOf("<summary><b>Yes</b>", start);
    const subs = html.indexOf(`<div class="subs">`, start);
    const next = html.indexOf(`<td class="cell `, start + 1);
    assert.isTrue(own > start && subs > own && subs < next, "the subs follow the cell's own verdict, inside the cell");
    for (const sub of [...PUT_BLOB_SUBS, ...COPY_BLOB_SUBS]) {
      const d = subDetails(html, sub.id);
      const status = sub.id === COPY_BLOB_SUBS[2].id ? "INCONCLUSIVE" : (sub.status ?? "NOT_RUN");
      assert.include(d, `data-status="${status}"`, sub.label);
      assert.match(d, new RegExp(`<span class="badge st-[a-z-]+">${sub.label} `), `${sub.label}: its badge`);
      if (sub.status === undefined) {
        assert.include(d, `${sub.label} not run</span>`);
        assert.include(d, `<code>${sub.id}</code> was not run.`);
      } else if (sub.id === COPY_BLOB_SUBS[2].id) {
        for (const id of COPY_SRC_IUS_FINER) assert.include(d, stepOf(id), "a sub with finer rows opens each of them");
      } else {
        assert.include(d, `<code>${sub.id}</code>`, `${sub.label}: its row's detail`);
        assert.include(d, stepOf(sub.id), `${sub.label}: its row's exchanges`);
      }
    }
    assert.include(subDetails(html, PUT_BLOB_SUBS[1].id), '<span class="badge st-fail">INM ✗</span>');
    // The cell passes, but a sub fails: the row stays under "show failures only".
    assert.match(html, /<tr class=""><th>Put Blob<\/th>/);
    assert.match(html, /<tr class=""><th>Copy Blob<\/th>/, "an INCONCLUSIVE sub beneath a passing cell");
  });

  it("certification counts only PASS of `doc` rows, per table", function () {
    const base = hostileReport().results[0];
    const rows = (["PASS", "PASS", "EXPECTED_FAIL", "FAIL"] as const).map((status, i) => ({ ...base, id: `x/${i}`, table: "T1", status }));
    rows.push({ ...base, id: "x/rest", table: "T1", level: "rest", status: "PASS" });
    const [t] = tableCounts(rows);
    assert.deepInclude(t, { table: "T1", docPassed: 2, docTotal: 4, total: 5 });
    assert.equal(t.counts.EXPECTED_FAIL, 1);
  });

  describe("in a headless Chromium", function () {
    let bin: string | undefined;
    let dir: string;
    let report: Report;

    before(async function () {
      bin = chromiumOrSkip(this);
      // A run touching several tables, with passes, pinned failures and NOT_AVAILABLE rows.
      dir = join(ROOT, "reports", "selftest-html");
      rmSync(dir, { recursive: true, force: true });
      const cli = await runCli([
        "--report-dir",
        dir,
        "--grep",
        "container-ops|blob-ops/(put-blob|get-block-list)|table/entity-ops/(insert|update)|queue/|file/",
      ]);
      assert.oneOf(cli.code, [0, 1], cli.stderr);
      report = readReport(dir);
      await loadAllSuites();
    });

    it("renders: the certification summary, the matrix sections, and every result's ID in the DOM", async function () {
      const dom = await chromium(bin!, ["--dump-dom", `file://${join(dir, "conformance.html")}`]);
      assert.include(dom, '<section id="certification">');
      assert.match(dom, /<body [^>]*data-script="ran"/, "the report's script ran (its CSP hash is right)");
      assert.match(dom, /<b>\d+ of \d+<\/b> documented/);
      const sections = matrixSections();
      assert.isAbove(sections.length, 0);
      for (const s of sections) assert.include(dom, `id="matrix-${s.key}"`, `matrix section ${s.key}`);
      assert.isAbove((dom.match(/<td class="cell /g) ?? []).length, 10, "matrix cells");
      const missing = report.results.filter((r) => !dom.includes(`data-id="${r.id}"`)).map((r) => r.id);
      assert.deepEqual(missing, [], "every result ID is in the DOM");
      assert.isAbove(report.results.length, 20);
      // Every matrix cell whose row ran shows that row's status.
      const ran = report.results.find((r) => r.id === "blob/container-ops/create-container/etag")!;
      assert.include(dom, `data-id="blob/container-ops/create-container/etag" data-status="${ran.status}"`);
    });

    it("no injected markup survives parsing (a hostile report, rendered)", async function () {
      const evil = join(tmpDir("evil"), "evil.html");
      writeFileSync(evil, renderHtml(hostileReport(), [EVIL_SECTION]));
      const dom = await chromium(bin!, ["--dump-dom", `file://${evil}`]);
      assert.include(
        dom,
        "<title>Azure Storage concurrency conformance: emulator 2026-01-01</title>",
        "no injected script changed the title",
      );
      assert.notInclude(dom, "<img");
      assert.equal((dom.match(/<script>/g) ?? []).length, 1);
      assert.match(dom, /<body [^>]*data-script="ran"/);
    });

    it("produces a screenshot next to the report", async function () {
      const png = join(dir, "conformance.png");
      rmSync(png, { force: true });
      mkdirSync(dir, { recursive: true });
      await chromium(bin!, [
        "--window-size=1280,2400",
        "--hide-scrollbars",
        `--screenshot=${png}`,
        `file://${join(dir, "conformance.html")}`,
      ]);
      assert.isTrue(existsSync(png), "screenshot written");
      assert.isAbove(statSync(png).size, 20_000);
      assert.deepEqual([...readFileSync(png).subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "a PNG");
    });
  });

  describe("sub-verdicts in a headless Chromium (a synthetic report)", function () {
    let bin: string | undefined;
    before(function () {
      bin = chromiumOrSkip(this);
    });

    it("a click on each sub opens that row's evidence, as a click on the cell opens the cell's", async function () {
      // A test script clicks every sub's badge (and a cell) and writes what became
      // visible into the page; the report's CSP is widened by exactly its hash.
      const probe = `
        var out = [];
        document.querySelectorAll("details.sub").forEach(function (d) {
          var summary = d.querySelector("summary");
          var body = function () { return d.getBoundingClientRect().height - summary.getBoundingClientRect().height; };
          var closed = body();
          summary.click();
          out.push({ id: d.getAttribute("data-sub-id"), status: d.getAttribute("data-status"), label: summary.textContent, closedHeight: closed, open: d.open, openHeight: body(),
            shows: Array.prototype.map.call(d.querySelectorAll("td:nth-child(2), p.meta code"), function (e) { return e.textContent; }),
            inCell: d.closest("td.cell").getAttribute("data-id") });
        });
        var cell = document.querySelector('td.cell[data-id="blob/blob-ops/put-blob/conditional"] > details');
        cell.querySelector("summary").click();
        out.push({ id: "cell", status: "", label: "", closedHeight: 0, open: cell.open, openHeight: 0, shows: [], inCell: "" });
        var pre = document.createElement("pre"); pre.id = "clicks"; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);`;
      const hash = createHash("sha256").update(probe).digest("base64");
      const html = renderHtml(syntheticReport(), [SECTION])
        .replace("script-src &#39;sha256-", `script-src &#39;sha256-${hash}&#39; &#39;sha256-`)
        .replace("</body>", `<script>${probe}</script></body>`);
      const page = join(tmpDir("subs"), "subs.html");
      writeFileSync(page, html);
      const dom = await chromium(bin!, ["--dump-dom", `file://${page}`]);
      assert.match(dom, /<body [^>]*data-script="ran"/, "the report's own script still ran");
      const json = /<pre id="clicks">([\s\S]*?)<\/pre>/.exec(dom);
      assert.isNotNull(json, "the probe ran (its hash is in the CSP)");
      const clicked = JSON.parse(json![1].replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")) as Clicked[];
      const cellClick = clicked.pop()!;
      assert.isTrue(cellClick.open, "a click on the cell opens its evidence");
      const subs = [...PUT_BLOB_SUBS, ...COPY_BLOB_SUBS];
      assert.deepEqual(
        clicked.map((c) => c.id),
        subs.map((s) => s.id),
        "every sub rendered, in order",
      );
      for (const [i, c] of clicked.entries()) {
        const sub = subs[i];
        assert.equal(c.inCell, sub.id.replace(/\/[^/]+$/, ""), `${sub.label} sits in its cell`);
        assert.isTrue(c.label.trim().startsWith(`${sub.label} `), `the badge names the sub: ${c.label}`);
        assert.isBelow(c.closedHeight, 5, `${sub.label}: evidence hidden before the click`);
        assert.isTrue(c.open, `${sub.label}: the click opened it`);
        assert.isAbove(c.openHeight, 10, `${sub.label}: its evidence is on screen after the click`);
        const expected =
          sub.status === undefined ? [sub.id] : sub.id === COPY_BLOB_SUBS[2].id ? COPY_SRC_IUS_FINER.map(stepOf) : [stepOf(sub.id)];
        for (const e of expected) assert.include(c.shows, e, `${sub.label}: shows ${e}`);
      }
      assert.equal(clicked.find((c) => c.id === PUT_BLOB_SUBS[3].id)!.label.trim(), "IUS not run");
    });
  });
});
