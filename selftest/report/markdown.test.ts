// The Markdown report's matrix: a cell's sub-verdicts (one per finer row, e.g.
// per conditional header) follow the cell's own verdict, and every link, a
// cell's or a sub's, lands on an anchor of the Evidence section.
import { assert } from "chai";
import { renderMarkdown } from "../../reporters/markdown.ts";
import { STATUS_MARK } from "../../model/result.ts";
import { COPY_SRC_IUS_FINER, PUT_BLOB_SUBS, SECTION, syntheticReport } from "./synthetic.ts";

const anchor = (id: string) => "ev-" + id.replace(/[^a-z0-9]+/gi, "-").toLowerCase();

/** The Markdown table line of a matrix row. */
function matrixLine(md: string, label: string): string {
  const line = md.split("\n").find((l) => l.startsWith(`| ${label} |`));
  assert.isDefined(line, `matrix row ${label}`);
  return line!;
}

describe("Markdown report: sub-verdicts in the matrix", function () {
  const md = renderMarkdown(syntheticReport(), [SECTION]);

  it("shows each sub after the cell's own verdict: label and mark, a failing one linked, a pass plain, a missing row 'not run'", function () {
    const [im, inm, ims, ius] = PUT_BLOB_SUBS;
    const expected =
      `Yes · ${STATUS_MARK.PASS} PASS (` +
      `IM ${STATUS_MARK.PASS} ` +
      `[INM ${STATUS_MARK.FAIL}](#${anchor(inm.id)} "FAIL") ` +
      `[IMS ${STATUS_MARK.EXPECTED_FAIL}](#${anchor(ims.id)} "EXPECTED_FAIL") ` +
      `IUS not run)`;
    const line = matrixLine(md, "Put Blob");
    assert.include(line, `| Yes · ${STATUS_MARK.PASS} PASS | ${expected} |`, "the ETag cell has no subs; the conditional cell has four");
    assert.notInclude(line, `](#${anchor(im.id)}`, "a passing sub is not linked");
    assert.notInclude(line, `](#${anchor(ius.id)}`, "a sub that did not run is not linked");
  });

  it("a sub with finer rows shows the worst of them, linked to that row; a NOT_AVAILABLE sub has no evidence to link", function () {
    const line = matrixLine(md, "Copy Blob");
    assert.include(
      line,
      `(IM ${STATUS_MARK.PASS} src IM ${STATUS_MARK.NOT_AVAILABLE} [src IUS ${STATUS_MARK.INCONCLUSIVE}](#${anchor(COPY_SRC_IUS_FINER[1])} "INCONCLUSIVE"))`,
    );
  });

  it("every link in the report lands on an anchor of the Evidence section", function () {
    const targets = [...md.matchAll(/\]\(#([^ )]+)/g)].map((m) => m[1]);
    assert.isAbove(targets.length, 3);
    const anchors = new Set([...md.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]));
    assert.deepEqual(
      targets.filter((t) => !anchors.has(t)),
      [],
      "links without an anchor",
    );
    for (const id of [PUT_BLOB_SUBS[1].id, PUT_BLOB_SUBS[2].id, COPY_SRC_IUS_FINER[1]]) {
      assert.include(md, `<a id="${anchor(id)}"></a>\n#### ${id}:`, `evidence of ${id}`);
      assert.include(md, `step of ${id}`, `the exchanges of ${id}`);
    }
  });

  it("a section without subs renders as before", function () {
    const plain = {
      ...SECTION,
      rows: SECTION.rows.map((r) => ({
        ...r,
        cells: Object.fromEntries(Object.entries(r.cells).map(([k, c]) => [k, { claim: c.claim, id: c.id }])),
      })),
    };
    const line = matrixLine(renderMarkdown(syntheticReport(), [plain]), "Put Blob");
    assert.equal(line, `| Put Blob | Yes · ${STATUS_MARK.PASS} PASS | Yes · ${STATUS_MARK.PASS} PASS |`);
  });
});
