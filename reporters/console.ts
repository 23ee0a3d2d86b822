// Console output: one line per row in catalogue order as the verdicts come,
// then the summary. The last line is always `N passed, N failed, N skipped`.
import { failsRun, leavesRunIncomplete, SAS_SIGNATURE, STATUSES, type Report, type RowResult } from "../model/result.ts";
import { faultingOperations, undecidedReasons, unsupportedOperations, type LackingOperation } from "../model/lacking.ts";
import type { Progress } from "./progress.ts";
import { isBeyondArticle, sectionRank } from "../model/matrix.ts";
import { showCause } from "../model/causes.ts";
import { surfaceSummary } from "./surface.ts";

/** Causes the console lists (the reports list them all). */
const CAUSES_SHOWN = 10;

const COLOUR: Partial<Record<string, string>> = {
  PASS: "32",
  FAIL: "31",
  UNEXPECTED_PASS: "31",
  EXPECTED_FAIL: "33",
  INCONCLUSIVE: "35",
  UNSUPPORTED: "36",
  ERROR: "41",
};
const useColour = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (status: string) => (useColour && COLOUR[status] ? `\x1b[${COLOUR[status]}m${status}\x1b[0m` : status);

const SIGNATURE_AT_END = new RegExp(`${SAS_SIGNATURE}$`, "i");

/**
 * A message's first line, at most `max` characters and then "…". A cut never
 * leaves part of a redacted SAS signature: `sig=RED` would read as a leaked
 * one, so the cut moves before it.
 */
export function headline(message: string, max = 160): string {
  const line = message.split("\n")[0];
  if (line.length <= max) return line;
  const cut = line.slice(0, max);
  const open = SIGNATURE_AT_END.exec(cut);
  return `${open ? cut.slice(0, open.index) : cut}…`;
}

export function resultLine(r: RowResult): string {
  const pad = " ".repeat(Math.max(0, 19 - r.status.length));
  const why = r.status === "PASS" ? "" : `  ${headline(r.message ?? "")}`;
  return `  ${paint(r.status)}${pad} ${r.id} (${r.durationMs} ms${r.retried ? ", re-run" : ""})${why}`;
}

/**
 * The row lines of a run, in catalogue order: a row's line is printed as soon
 * as it and every row before it have their verdicts (a table's name above its
 * first row), above the live progress line when there is one.
 */
export class RowLines {
  private next = 0;
  private table = "";
  private readonly done = new Map<string, RowResult>();

  constructor(
    private readonly rows: readonly { id: string; table: string }[],
    private readonly progress?: Progress,
  ) {}

  add(r: RowResult): void {
    this.done.set(r.id, r);
    this.progress?.result(r);
    for (let row = this.rows[this.next]; row && this.done.has(row.id); row = this.rows[++this.next]) {
      if (row.table !== this.table) {
        this.table = row.table;
        this.out(`\n${row.table}`);
      }
      this.out(resultLine(this.done.get(row.id)!));
    }
  }

  private out(line: string): void {
    if (this.progress) this.progress.print(line);
    else console.log(line);
  }
}

export function printSummary(report: Report, files: string[]): void {
  const s = report.summary;
  console.log("");
  console.log(
    `Target: ${report.run.target.kind} (${report.run.target.name})  expectations: ${report.run.expectations}  ${Math.round(report.run.durationMs / 100) / 10} s`,
  );
  console.log(
    STATUSES.filter((k) => s[k] > 0)
      .map((k) => `${k} ${s[k]}`)
      .join("  "),
  );
  printBeyondArticle(report);
  printCauses(report);
  printRowsToAct(report);
  for (const svc of report.run.target.services.filter((p) => !p.available)) {
    console.log(`Note: ${svc.service} not available (${svc.reason}); its rows are NOT_AVAILABLE.`);
  }
  const surface = surfaceSummary(report);
  if (surface) console.log(`\n${surface}.`);
  if (report.run.leftovers) console.log(`Warning: ${report.run.leftovers} resource(s) with this run's prefix were left behind.`);
  console.log(`Reports: ${files.join(", ")}`);
  console.log(`${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`);
}

/** Section X's tables, a line each with their counts. */
function printBeyondArticle(report: Report): void {
  const beyond = [...new Set(report.results.map((r) => r.table))].filter(isBeyondArticle).sort((a, b) => sectionRank(a) - sectionRank(b));
  if (!beyond.length) return;
  console.log("Beyond the article (section X, rest rows; certification counts the article's doc rows only):");
  const w = Math.max(...beyond.map((t) => t.length));
  for (const t of beyond) {
    const rs = report.results.filter((r) => r.table === t);
    console.log(
      `  ${t.padEnd(w)}  ${STATUSES.map((k) => [k, rs.filter((r) => r.status === k).length] as const)
        .filter(([, n]) => n)
        .map(([k, n]) => `${k} ${n}`)
        .join("  ")}`,
    );
  }
}

/** The answers that decided the non-PASS rows, most rows first. */
function printCauses(report: Report): void {
  const causes = report.causes ?? [];
  if (!causes.length) return;
  const shown = causes.slice(0, CAUSES_SHOWN);
  const covered = shown.reduce((n, c) => n + c.rows.length, 0);
  const all = causes.reduce((n, c) => n + c.rows.length, 0);
  console.log(
    `\nCauses (the answers that decided the ${all} non-PASS rows${causes.length > shown.length ? `; the first ${shown.length} decide ${covered}` : ""}):`,
  );
  for (const c of shown)
    console.log(`  ${String(c.rank).padStart(2)}. ${String(c.rows.length).padStart(3)} row(s)  ${headline(showCause(c), 150)}`);
}

/** What asks for action: the suite's own errors, failures, lacking or faulting operations, re-runs, rows left undecided. */
function printRowsToAct(report: Report): void {
  const errors = report.results.filter((r) => r.status === "ERROR");
  if (errors.length) {
    console.log(
      `\nThe suite failed on ${errors.length} row(s) (a bug in the suite, not a verdict about the target; exit code 3, please report it):`,
    );
    for (const r of errors) console.log(resultLine(r));
  }
  // UNSUPPORTED rows are listed by the operation they lack, once each, below.
  const bad = report.results.filter((r) => failsRun(r) && r.status !== "UNSUPPORTED" && r.status !== "ERROR");
  if (bad.length) {
    console.log("\nFailures:");
    for (const r of bad) console.log(resultLine(r));
  }
  printOperations(
    "Operations the target does not implement (their rows are UNSUPPORTED",
    unsupportedOperations(report.results, report.run.operationPins),
  );
  printOperations(
    "Operations the target answers with a server error, on every try and again on the re-run (their rows FAIL",
    faultingOperations(report.results, report.run.faultPins),
  );
  const rerun = report.results.filter((r) => r.retried);
  if (rerun.length) {
    console.log(`\nRe-run once (the first run got no answer from the target, INCONCLUSIVE): ${rerun.length} row(s)`);
    for (const r of rerun) console.log(`  ${r.id}: ${headline(r.retried!.message ?? "")}`);
  }
  const undecided = undecidedReasons(report.results);
  if (undecided.length) {
    const why = undecided.map((u) => `${u.rows.length} ${u.reason}`).join(", ");
    console.log(
      `\nNo verdict: ${undecided.reduce((n, u) => n + u.rows.length, 0)} row(s) could not be decided (${why}); the run is incomplete, rerun to decide:`,
    );
    for (const r of report.results.filter(leavesRunIncomplete)) console.log(resultLine(r));
  }
}

function printOperations(heading: string, list: LackingOperation[]): void {
  if (!list.length) return;
  console.log(`\n${heading}${list.some((l) => !l.pinned) ? "; unpinned ones fail the run" : ""}):`);
  for (const l of list) {
    const pin = l.pinned ? `pinned as ${JSON.stringify(l.pinned.key)}: ${l.pinned.reason}` : "not pinned";
    console.log(`  ${l.operation}: ${l.status}${l.code ? " " + l.code : ""}, ${l.rows.length} row(s); ${pin}`);
  }
}
