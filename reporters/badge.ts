// badge.json: the run's certification figure as a shields.io endpoint badge
// (https://shields.io/badges/endpoint-badge): how many of the `doc` rows (the
// claims the article states) PASS out of the `doc` rows run. Only PASS
// counts, as in the certification summary: an expected failure, a service the
// target lacks or a row it could not answer is not a claim that holds.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Report } from "../model/result.ts";

export const BADGE_LABEL = "Azure Storage concurrency";

export interface EndpointBadge {
  schemaVersion: 1;
  label: string;
  message: string;
  color: string;
}

/** shields.io colour for a share of claims that hold (0–1). */
export function badgeColour(share: number): string {
  if (share >= 1) return "brightgreen";
  if (share >= 0.9) return "green";
  if (share >= 0.75) return "yellowgreen";
  if (share >= 0.5) return "yellow";
  if (share >= 0.25) return "orange";
  return "red";
}

export function docClaims(report: Report): { passed: number; total: number } {
  const doc = report.results.filter((r) => r.level === "doc");
  return { passed: doc.filter((r) => r.status === "PASS").length, total: doc.length };
}

export function renderBadge(report: Report): EndpointBadge {
  const { passed, total } = docClaims(report);
  return {
    schemaVersion: 1,
    label: BADGE_LABEL,
    message: `${passed}/${total} doc claims`,
    color: total === 0 ? "lightgrey" : badgeColour(passed / total),
  };
}

export function writeBadge(report: Report, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "badge.json");
  writeFileSync(path, JSON.stringify(renderBadge(report), null, 2) + "\n");
  return path;
}
