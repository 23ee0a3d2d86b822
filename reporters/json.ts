// conformance.json: the report as `JSON.stringify(report, null, 2)` writes it,
// but each result's part made once, as the row ends (reporters/ahead.ts): the
// last row of a run is a long wait, during which the machine is idle, so the
// end of the run only joins the parts.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Report } from "../model/result.ts";
import { perResult } from "./per-result.ts";

/**
 * `r` as it stands in the report's results (indented under "results"), as
 * UTF-8 bytes: joining 10 MB of text costs more than the JSON.stringify it
 * saves; bytes are copied at once.
 */
export const resultJson = perResult((r) => Buffer.from("    " + JSON.stringify(r, null, 2).replace(/\n/g, "\n    ")));

/** The report's bytes: those of `JSON.stringify(report, null, 2)` (a unit test holds it to that). */
export function renderJson(report: Report): Buffer {
  const parts: Buffer[] = [];
  const text = (s: string) => parts.push(Buffer.from(s));
  for (const [key, value] of Object.entries(report)) {
    const json = key === "results" ? "[" : (JSON.stringify(value, null, 2) as string | undefined);
    if (json === undefined) continue;
    text(`${parts.length ? ",\n" : "{\n"}  ${JSON.stringify(key)}: ${json.replace(/\n/g, "\n  ")}`);
    if (key !== "results") continue;
    report.results.forEach((r, i) => {
      text(i ? ",\n" : "\n");
      parts.push(resultJson(r));
    });
    text(report.results.length ? "\n  ]" : "]");
  }
  text(parts.length ? "\n}" : "{}");
  return Buffer.concat(parts);
}

export function writeJson(report: Report, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "conformance.json");
  writeFileSync(path, Buffer.concat([renderJson(report), Buffer.from("\n")]));
  return path;
}
