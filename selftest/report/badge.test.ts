// badge.json: N/M counts the doc rows that PASS out of the doc rows run (an
// expected failure, a row without a verdict, a rest row is no doc claim that
// holds), and the colour follows the share.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assert } from "chai";
import { SCHEMA, summarise, type Report, type RowResult, type Status } from "../../model/result.ts";
import { badgeColour, renderBadge, writeBadge } from "../../reporters/badge.ts";
import { row, syntheticReport } from "./synthetic.ts";

function report(rows: RowResult[]): Report {
  const base = syntheticReport();
  return { ...base, schema: SCHEMA, summary: summarise(rows), results: rows };
}

const docRows = (statuses: Status[]) => statuses.map((s, i) => row(`blob/x/${i}`, s, "doc"));

describe("badge.json (shields.io endpoint)", function () {
  it("counts only PASS of doc rows, out of the doc rows run", function () {
    const rows = [
      ...docRows(["PASS", "PASS", "EXPECTED_FAIL", "FAIL", "NOT_AVAILABLE", "INCONCLUSIVE", "PRECONDITION_FAILED"]),
      row("blob/y/rest", "PASS", "rest"),
      row("blob/y/info", "PASS", "info"),
    ];
    assert.deepEqual(renderBadge(report(rows)), {
      schemaVersion: 1,
      label: "Azure Storage concurrency",
      message: "2/7 doc claims",
      color: "orange",
    });
  });

  it("colours by the share that passes", function () {
    assert.deepEqual([1, 0.99, 0.9, 0.89, 0.75, 0.5, 0.25, 0.24, 0].map(badgeColour), [
      "brightgreen",
      "green",
      "green",
      "yellowgreen",
      "yellowgreen",
      "yellow",
      "orange",
      "red",
      "red",
    ]);
    assert.equal(renderBadge(report(docRows(["PASS", "PASS"]))).color, "brightgreen");
    assert.equal(renderBadge(report([row("blob/y/rest", "PASS", "rest")])).color, "lightgrey", "no doc row run");
  });

  it("is written beside the reports as JSON", function () {
    const dir = mkdtempSync(join(tmpdir(), "conformance-badge-"));
    const path = writeBadge(report(docRows(["PASS", "FAIL"])), dir);
    assert.equal(path, join(dir, "badge.json"));
    assert.deepEqual(JSON.parse(readFileSync(path, "utf8")), {
      schemaVersion: 1,
      label: "Azure Storage concurrency",
      message: "1/2 doc claims",
      color: "yellow",
    });
  });
});
