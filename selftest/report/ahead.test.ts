// Parts of the reports made as rows end (reporters/ahead.ts) change nothing:
// the JSON is byte for byte JSON.stringify(report, null, 2), the HTML is the
// page made with nothing ahead, and an exchange recorded after the row's part
// was made (a late answer of one of its strands) is in the report.
import { assert } from "chai";
import { renderAhead } from "../../reporters/ahead.ts";
import { renderHtml } from "../../reporters/html.ts";
import { renderJson as jsonBytes } from "../../reporters/json.ts";
import type { Report } from "../../model/result.ts";
import { SECTION, syntheticReport } from "./synthetic.ts";

const plainJson = (report: Report) => JSON.stringify(report, null, 2);
const renderJson = (report: Report) => jsonBytes(report).toString();

describe("reports made as rows end", function () {
  it("the JSON is JSON.stringify(report, null, 2), with and without parts made ahead, fields left undefined left out", function () {
    const report = syntheticReport();
    assert.equal(renderJson(report), plainJson(report));
    report.results.forEach(renderAhead);
    assert.equal(renderJson(report), plainJson(report));
    const bare: Report = { ...report, results: [], surface: undefined, notRun: [] };
    assert.equal(renderJson(bare), plainJson(bare));
  });

  it("the HTML page is the one made with nothing ahead", function () {
    const made = renderHtml(syntheticReport(), [SECTION]);
    const report = syntheticReport();
    report.results.forEach(renderAhead);
    assert.equal(renderHtml(report, [SECTION]), made);
  });

  it("an exchange recorded after a row's part was made is in both reports", function () {
    const report = syntheticReport();
    report.results.forEach(renderAhead);
    const late = { ...report.results[0].evidence[0], seq: 2, step: "a late answer of a strand" };
    report.results[0].evidence.push(late);
    assert.equal(renderJson(report), plainJson(report));
    assert.include(renderJson(report), late.step);
    assert.include(renderHtml(report, [SECTION]), late.step);
  });
});
