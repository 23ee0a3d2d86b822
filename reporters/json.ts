// conformance.json: the report as `JSON.stringify(report, null, 2)` writes it,
// but each result's part made once, as the row ends (reporters/ahead.ts): the
// last row of a run is a long wait, during which the machine is idle, so the
// end of the run only joins the parts.
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
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
export const renderJson = (report: Report): Buffer => Buffer.concat(jsonParts(report));

/** The report's bytes in parts, in order: each result's part as made when its row ended. */
function jsonParts(report: Report): Buffer[] {
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
  return parts;
}

export function writeJson(report: Report, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "conformance.json");
  // Part by part: a run's 10 MB are not copied into one buffer, twice, at the end (the run's peak memory).
  const fd = openSync(path, "w");
  try {
    for (const part of [...jsonParts(report), Buffer.from("\n")]) for (let at = 0; at < part.length;) at += writeSync(fd, part, at);
  } finally {
    closeSync(fd);
  }
  return path;
}
