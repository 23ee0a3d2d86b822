import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Report } from "../model/result.ts";

export function writeJson(report: Report, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "conformance.json");
  writeFileSync(path, JSON.stringify(report, null, 2) + "\n");
  return path;
}
