// The Markdown report: the seed article's tables rebuilt, each cell with its
// verdict (and the sub-verdicts of its finer rows, when the cell names them),
// then every row by catalogue table, then the evidence of each row that did
// not pass.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { causeOfRow } from "../model/causes.ts";
import { basisText, causeRank, cellResults, cellVerdict } from "../model/cells.ts";
import { BEYOND_ARTICLE_NOTE, isBeyondArticle, sectionRank, type MatrixCell, type MatrixSection } from "../model/matrix.ts";
import { surfaceSummary } from "./surface.ts";
import { STATUS_MARK, STATUSES, type Report, type RowResult } from "../model/result.ts";
import { faultingOperations, undecidedReasons, unsupportedOperations, type LackingOperation } from "../model/lacking.ts";

export const anchor = (id: string) => "ev-" + id.replace(/[^a-z0-9]+/gi, "-").toLowerCase();
const esc = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** Rows whose evidence the report lists (the Evidence section): the only rows a verdict links to. */
export const hasEvidence = (r: RowResult): boolean => r.status !== "PASS" && r.status !== "NOT_AVAILABLE";

function verdict(r: RowResult | undefined, withLink: boolean): string {
  if (!r) return "not run";
  const text = `${STATUS_MARK[r.status]} ${r.status}`;
  return withLink && hasEvidence(r) ? `[${text}](#${anchor(r.id)})` : text;
}

/**
 * A cell's sub-verdicts, e.g. ` (IM ✅ [INM ❌](#ev-…) IMS ✅ IUS not run)`: the
 * label and the mark of each finer row, linked to its evidence when the
 * report lists it (a pass has none to land on and stays unlinked).
 */
function subVerdicts(cell: MatrixCell, results: Map<string, RowResult>): string {
  if (!cell.subs?.length) return "";
  const parts = cell.subs.map((sub) => {
    const r = cellVerdict(cellResults(results, sub.id));
    if (!r) return `${esc(sub.label)} not run`;
    const text = `${esc(sub.label)} ${STATUS_MARK[r.status]}`;
    return hasEvidence(r) ? `[${text}](#${anchor(r.id)} "${r.status}")` : text;
  });
  return ` (${parts.join(" ")})`;
}

/** The causes, most rows first: each with its anchor, which a cell it decided links to. */
function causesSection(report: Report): string[] {
  const causes = report.causes ?? [];
  if (!causes.length) return [];
  const all = causes.reduce((n, c) => n + c.rows.length, 0);
  const out = [
    "## Causes",
    "",
    `The answers that decided the ${all} non-PASS rows, most rows first: one answer (an operation the target lacks, an error format, a missing header) often decides many cells of the tables below, each of which links to its cause.`,
    "",
    "| # | rows | operation | answer | what was wrong | step | rows it decided |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const c of causes) {
    const ids =
      c.rows
        .slice(0, 3)
        .map((id) => `\`${id}\``)
        .join(", ") + (c.rows.length > 3 ? `, … (${c.rows.length - 3} more)` : "");
    out.push(
      `| <a id="cause-${c.rank}"></a>${c.rank} | ${c.rows.length} | ${esc(c.operation || "—")} | ${c.status !== undefined ? `${c.status} ${esc(c.code ?? "(no error code)")}` : "—"} | ${esc(c.problem)} | ${esc(c.step)} | ${ids} |`,
    );
  }
  return [...out, ""];
}

/** A link to the cause that decided a non-PASS result, if the report has one. */
function causeLink(r: RowResult | undefined, causes: Map<string, number>): string {
  const rank = causeRank(r, causes);
  return rank ? ` ([cause ${rank}](#cause-${rank}))` : "";
}

function matrix(section: MatrixSection, results: Map<string, RowResult>, causes: Map<string, number> = new Map()): string {
  const head = `| ${section.title} | ${section.columns.map((c) => c.header).join(" | ")} |`;
  const rule = `|---|${section.columns.map(() => "---").join("|")}|`;
  const body = section.rows.map((row) => {
    const cells = section.columns.map((c) => {
      const cell = row.cells[c.key];
      if (!cell) return "";
      const decided = cellVerdict(cellResults(results, cell.id));
      return `${esc(cell.claim)} · ${verdict(decided, true)}${causeLink(decided, causes)}${subVerdicts(cell, results)}`;
    });
    return `| ${esc(row.label)} | ${cells.join(" | ")} |`;
  });
  return [`### ${section.title}`, "", `Source: ${section.source}`, "", head, rule, ...body, ""].join("\n");
}

function evidence(r: RowResult): string {
  const lines = [
    `<a id="${anchor(r.id)}"></a>`,
    `#### ${r.id}: ${STATUS_MARK[r.status]} ${r.status}`,
    "",
    `${r.title} (${r.level}; ${r.source})`,
    "",
    ...(r.basis ? [`Rests on: ${basisText(r)}${r.liveSource ? ` (${esc(r.liveSource)})` : ""}`, ""] : []),
  ];
  if (r.message) lines.push("> " + esc(r.message), "");
  if (r.retried)
    lines.push(
      `Re-run: the first run (${r.retried.durationMs} ms, ${r.retried.evidence.length} exchanges) was INCONCLUSIVE: ${esc(r.retried.message ?? "")}`,
      "",
    );
  if (r.expectation)
    lines.push(
      `Pinned: ${r.expectation.status}${r.expectation.operations ? ` (${r.expectation.operations.join(", ")})` : ""} — ${r.expectation.reason}${r.expectation.link ? ` (${r.expectation.link})` : ""}`,
      "",
    );
  if (Object.keys(r.notes).length) lines.push("Observed: `" + esc(JSON.stringify(r.notes)) + "`", "");
  if (r.evidence.length) {
    lines.push(
      "| # | step | via | request | headers sent | status | error code | ETag | Last-Modified |",
      "|---|---|---|---|---|---|---|---|---|",
    );
    for (const e of r.evidence) {
      const sent = Object.entries(e.requestHeaders)
        .filter(([k]) => k !== "x-ms-version" && k !== "content-length")
        .map(([k, v]) => `${k}: ${v}`)
        .join("; ");
      lines.push(
        `| ${e.seq} | ${esc(e.step ?? "")} | ${e.via} | ${e.method} ${esc(e.url)}${e.try ? ` (try ${e.try})` : ""} | ${esc(sent)} | ${e.status ?? esc(e.transportError ?? "")}${e.retried ? " (retried)" : ""} | ${e.errorCode ?? ""} | ${esc(e.responseHeaders["etag"] ?? "")} | ${e.responseHeaders["last-modified"] ?? ""} |`,
      );
    }
    lines.push("");
  }
  return lines.join("\n");
}

/** Operations once each (not implemented, or answered with a server error), with the rows each takes down. */
function operationTable(lacking: LackingOperation[], heading: string, explanation: string): string[] {
  if (!lacking.length) return [];
  const out = [heading, "", explanation, "", "| operation | answer | rows | pinned |", "|---|---|---|---|"];
  for (const l of lacking) {
    const pin = l.pinned
      ? `as ${esc(JSON.stringify(l.pinned.key))}: ${esc(l.pinned.reason)}${l.pinned.link ? ` (${l.pinned.link})` : ""}`
      : "no";
    out.push(`| ${esc(l.operation)} | ${l.status}${l.code ? " " + esc(l.code) : ""} | ${l.rows.length} | ${pin} |`);
  }
  return [...out, ""];
}

function lackingOperations(report: Report): string[] {
  return [
    ...operationTable(
      unsupportedOperations(report.results, report.run.operationPins),
      "## Operations the target does not implement",
      "Their rows are UNSUPPORTED: not a pass, and the run fails unless the target's expectation file pins the operation (`unsupported`).",
    ),
    ...operationTable(
      faultingOperations(report.results, report.run.faultPins),
      "## Operations the target answers with a server error",
      "A server error (a 5xx other than 501, not throttling) on every try of a request, and again when the row ran once more: the target cannot do what the claim needs. Their rows FAIL, unless the target's expectation file pins the operation (`faults`).",
    ),
    ...undecided(report),
  ];
}

/** Rows no answer decided: how many, and why. */
function undecided(report: Report): string[] {
  const reasons = undecidedReasons(report.results);
  if (!reasons.length) return [];
  const n = reasons.reduce((a, r) => a + r.rows.length, 0);
  return [
    "## Rows no answer decided",
    "",
    `${n} row(s) are INCONCLUSIVE: the target gave no answer to decide them (run once more, with the same outcome). The run is incomplete (exit code 4).`,
    "",
    "| why | rows |",
    "|---|---|",
    ...reasons.map((r) => `| ${esc(r.reason)} | ${r.rows.map((id) => `\`${id}\``).join(", ")} |`),
    "",
  ];
}

export function renderMarkdown(report: Report, sections: MatrixSection[]): string {
  const byId = new Map(report.results.map((r) => [r.id, r]));
  const { run, summary } = report;
  const out: string[] = [
    "# Azure Storage concurrency conformance",
    "",
    `Target: **${run.target.kind}** (${run.target.name}) · server ${
      Object.entries(run.target.server)
        .filter(([, v]) => v)
        .map(([k, v]) => `${k}: ${v}`)
        .join(", ") || "unknown"
    } · suite ${run.suite.version}${run.suite.commit ? ` (${run.suite.commit.slice(0, 10)})` : ""} · ${run.finishedAt}`,
    "",
    `Expectations: ${run.expectations} · run prefix \`${run.runPrefix}\` · ${Math.round(run.durationMs / 1000)} s`,
    "",
    "| " + STATUSES.join(" | ") + " |",
    "|" + STATUSES.map(() => "---").join("|") + "|",
    "| " + STATUSES.map((s) => summary[s]).join(" | ") + " |",
    "",
  ];
  const missing = run.target.services.filter((s) => !s.available);
  for (const s of missing) out.push(`- The **${s.service}** service is not available: ${s.reason}. Its rows are NOT_AVAILABLE.`);
  if (missing.length) out.push("");
  const surface = surfaceSummary(report);
  if (surface) out.push(`${surface}. Each pair: \`surface\` in conformance.json.`, "");
  out.push(...causesSection(report));
  out.push(...lackingOperations(report));
  const causes = causeOfRow(report.causes ?? []);
  out.push("## The article's tables", "");
  for (const s of sections.filter((x) => !x.beyond)) out.push(matrix(s, byId, causes));
  const beyond = [...new Set(report.results.map((r) => r.table))].filter(isBeyondArticle).sort((a, b) => sectionRank(a) - sectionRank(b));
  if (beyond.length) {
    out.push(
      "## Beyond the article",
      "",
      BEYOND_ARTICLE_NOTE,
      "",
      "| Catalogue section X | " + STATUSES.join(" | ") + " | rows |",
      "|---|" + STATUSES.map(() => "---").join("|") + "|---|",
    );
    for (const t of beyond) {
      const rs = report.results.filter((r) => r.table === t);
      out.push(`| ${esc(t)} | ${STATUSES.map((st) => rs.filter((r) => r.status === st).length || "").join(" | ")} | ${rs.length} |`);
    }
    out.push("");
    for (const s of sections.filter((x) => x.beyond)) out.push(matrix(s, byId, causes));
  }
  out.push("## Every row", "");
  const tables = [...new Set(report.results.map((r) => r.table))];
  for (const t of tables) {
    out.push(`### ${t}`, "", "| ID | level | rests on | verdict | detail |", "|---|---|---|---|---|");
    for (const r of report.results.filter((x) => x.table === t)) {
      const said = r.message ?? (Object.keys(r.notes).length ? JSON.stringify(r.notes) : "");
      const detail = r.retried ? `↻ re-run (the first run was INCONCLUSIVE)${said ? `; ${said}` : ""}` : said;
      out.push(`| \`${r.id}\` | ${r.level} | ${basisText(r)} | ${verdict(r, true)} | ${esc(detail)} |`);
    }
    out.push("");
  }
  const notPassed = report.results.filter(hasEvidence);
  if (notPassed.length) {
    out.push("## Evidence", "");
    for (const r of notPassed) out.push(evidence(r));
  }
  if (report.notRun.length) out.push(`Not run in this run (filtered): ${report.notRun.length} rows.`, "");
  return out.join("\n");
}

export function writeMarkdown(report: Report, sections: MatrixSection[], dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "conformance.md");
  writeFileSync(path, renderMarkdown(report, sections));
  return path;
}
