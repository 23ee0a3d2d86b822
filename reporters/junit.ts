// JUnit XML for CI dashboards, built with junit-report-builder (it escapes).
// One testcase per catalogue ID; statuses map: FAIL/UNEXPECTED_PASS and an
// UNSUPPORTED whose operation is not pinned → failure; INCONCLUSIVE (no
// answer: the run is incomplete) → error, unless pinned so; NOT_AVAILABLE,
// PRECONDITION_FAILED, MANUAL, a pinned UNSUPPORTED or INCONCLUSIVE → skipped.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import junit, { type Builder } from "junit-report-builder";
import { failsRun, leavesRunIncomplete, type Report } from "../model/result.ts";
import { inconclusiveReason } from "../model/lacking.ts";

export function writeJUnit(report: Report, dir: string): string {
  mkdirSync(dir, { recursive: true });
  // A CommonJS default export: the builder instance itself at run time.
  const builder = (junit as unknown as Builder).newBuilder();
  const suites = new Map<string, ReturnType<typeof builder.testSuite>>();
  for (const r of report.results) {
    let suite = suites.get(r.table);
    if (!suite) {
      suite = builder.testSuite().name(r.table);
      suites.set(r.table, suite);
    }
    const tc = suite
      .testCase()
      .className(r.table)
      .name(r.id)
      .time(r.durationMs / 1000)
      .property("status", r.status)
      .property("level", r.level);
    if (r.location) tc.file(r.location);
    const exchanges = () =>
      r.evidence.map((e) => `${e.method} ${e.url} -> ${e.status ?? e.transportError} ${e.errorCode ?? ""}`).join("\n");
    if (r.status === "ERROR") {
      tc.error(r.message ?? r.status, "ERROR: the suite failed on this row (a bug in the suite)");
      tc.standardOutput(exchanges());
    } else if (failsRun(r)) {
      tc.failure(r.message ?? r.status, r.status);
      tc.standardOutput(exchanges());
    } else if (leavesRunIncomplete(r)) {
      tc.error(r.message ?? r.status, `INCONCLUSIVE: ${inconclusiveReason(r.message ?? "")}`);
      tc.standardOutput(exchanges());
    } else if (r.status !== "PASS" && r.status !== "EXPECTED_FAIL") tc.skipped();
  }
  const path = join(dir, "junit.xml");
  builder.writeTo(path);
  return path;
}
