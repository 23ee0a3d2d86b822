// The HTML reports' building blocks (html.ts, html-certification.ts, and the
// compare view, compare.ts): escaping, row anchors, and a status's class,
// mark and badge.
import type { Status } from "../model/result.ts";

/** Escapes text for HTML element content and double- or single-quoted attributes. */
export function esc(value: unknown): string {
  return String(value ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

export const cls = (s: Status | "NOT_RUN") => `st-${s.toLowerCase().replace(/_/g, "-")}`;
export const anchor = (id: string) => "row-" + id.replace(/[^a-z0-9]+/gi, "-").toLowerCase();

// Marks any system font has (emoji are often missing in headless browsers and CI images); the compare view uses them too.
export const MARK: Record<Status | "NOT_RUN", string> = {
  PASS: "✓",
  FAIL: "✗",
  EXPECTED_FAIL: "✗",
  UNEXPECTED_PASS: "!",
  NOT_AVAILABLE: "–",
  PRECONDITION_FAILED: "∅",
  MANUAL: "✎",
  INCONCLUSIVE: "?",
  UNSUPPORTED: "⊘",
  ERROR: "⚠",
  NOT_RUN: "·",
};

export function badge(status: Status | "NOT_RUN"): string {
  const mark = MARK[status];
  return `<span class="badge ${cls(status)}">${mark} ${esc(status.replace(/_/g, " "))}</span>`;
}

/** A failing or doubtful result shows (and survives the filter); a pass hides under "failures only". */
export const okClass = (s: Status | undefined) => (s === undefined || s === "PASS" || s === "NOT_AVAILABLE" ? "ok" : "");
