// The concurrency surface in words, for the console, Markdown and HTML
// reports: how much of it the run sent, and why the rest went unsent.
import type { Report } from "../model/result.ts";
import type { NotSentReason, SurfaceEntry } from "../model/surface.ts";

export const NOT_SENT_TEXT: Record<NotSentReason, string> = {
  NOT_APPLICABLE: "not applicable: no state gives the parameter a meaning (catalogue S)",
  NOT_AVAILABLE: "the service is not available",
  UNSUPPORTED: "the operation is not implemented (UNSUPPORTED)",
  PRECONDITION_FAILED: "the row that sends it could not set up (PRECONDITION_FAILED)",
  NOT_RUN: "the rows that send it were not selected",
  NO_ROW: "no row sends it yet",
};

/** "concurrency surface exercised: 144 of 307 pairs, 120 seen refused on their own"; none for a report without `surface`. */
export function surfaceLine(report: Report): string | undefined {
  const s = report.surface;
  if (!s) return undefined;
  return `concurrency surface exercised: ${s.sent} of ${s.pairs} (operation, parameter) pairs sent, ${s.refusedAlone} seen refused on their own`;
}

/** The figure as a sentence, with the unsent pairs by why: "Concurrency surface exercised: …; not sent: 88 no row sends it yet, …". */
export function surfaceSummary(report: Report): string | undefined {
  const line = surfaceLine(report);
  if (!line || !report.surface) return undefined;
  const unsent = notSentSummary(report.surface.entries);
  return `C${line.slice(1)}${unsent ? `; not sent: ${unsent}` : ""}`;
}

/** The unsent pairs by why, most first: "88 no row sends it yet, 38 the service is not available". */
function notSentSummary(entries: SurfaceEntry[]): string {
  const counts = new Map<NotSentReason, number>();
  for (const e of entries) if (e.notSentBecause) counts.set(e.notSentBecause, (counts.get(e.notSentBecause) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([reason, n]) => `${n} ${NOT_SENT_TEXT[reason]}`)
    .join(", ");
}
