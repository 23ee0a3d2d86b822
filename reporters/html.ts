// The HTML report: one self-contained page (no external resources) for an
// emulator team to publish. At the top a certification summary (`doc` rows
// passed / total per catalogue table), then the seed article's tables with a
// coloured cell per claim, each cell (and each of its sub-verdicts) opening
// its evidence, then every row by table. Every value that came from a server
// or a test goes through esc().
// A Content-Security-Policy allows only the one inline script below, so even
// an escaping slip could not run injected script.
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BEYOND_ARTICLE_NOTE, isBeyondArticle, sectionRank, type MatrixCell, type MatrixSection } from "../model/matrix.ts";
import { causeOfRow } from "../model/causes.ts";
import { basisText, causeRank, cellResults, cellVerdict } from "../model/cells.ts";
import { NOT_SENT_TEXT, surfaceLine, surfaceSummary } from "./surface.ts";
import { failsRun, STATUSES, type Report, type RowResult, type Status } from "../model/result.ts";
import { faultingOperations, undecidedReasons, unsupportedOperations, type LackingOperation } from "../model/lacking.ts";

/** Escapes text for HTML element content and double- or single-quoted attributes. */
export function esc(value: unknown): string {
  return String(value ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

const cls = (s: Status | "NOT_RUN") => `st-${s.toLowerCase().replace(/_/g, "-")}`;
export const anchor = (id: string) => "row-" + id.replace(/[^a-z0-9]+/gi, "-").toLowerCase();

const STYLE = `
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1200px;padding:16px;color:#1b1f24;background:#fff}
h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d0d7de}h3{font-size:15px;margin:20px 0 6px}
table{border-collapse:collapse;margin:6px 0 12px;width:100%}th,td{border:1px solid #d0d7de;padding:4px 6px;vertical-align:top;text-align:left}
th{background:#f6f8fa}code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
.meta{color:#57606a}.cert td.num{text-align:right;font-variant-numeric:tabular-nums}
.st-pass{background:#d1f5d3}.st-fail{background:#ffc9c9}.st-unexpected-pass{background:#ff9bb0}.st-expected-fail{background:#ffe2b3}
.st-not-available{background:#eaeef2;color:#57606a}.st-precondition-failed{background:#fff5b1}.st-manual{background:#cfe6ff}
.st-inconclusive{background:#e5d4ff}.st-unsupported{background:#ffd8b5;color:#7a2e00}.st-error{background:#3b3b3b;color:#fff}.st-not-run{background:repeating-linear-gradient(45deg,#fff,#fff 4px,#f3f3f3 4px,#f3f3f3 8px);color:#57606a}
.badge{display:inline-block;padding:0 6px;border-radius:8px;font-size:12px;white-space:nowrap}.cert th .badge{white-space:normal}
details>summary{cursor:pointer}details[open]>summary{margin-bottom:4px}
td.cell{min-width:120px}.subs{margin-top:3px}details.sub{display:inline-block;vertical-align:top;margin:1px 0}details.sub[open]{display:block;margin:4px 0}
details.sub>summary{list-style:none}details.sub>summary::-webkit-details-marker{display:none}details.sub>summary .badge{border:1px solid rgba(0,0,0,.15)}.ev{font-size:12px;margin:4px 0}.ev td,.ev th{padding:2px 4px}
.msg{white-space:pre-wrap;word-break:break-word;margin:4px 0}.legend span{margin-right:6px}
body.only-failures .ok{display:none}
.bar{position:sticky;top:0;background:#fff;padding:6px 0;border-bottom:1px solid #d0d7de;z-index:1}
`;

// The only script: the "failures only" filter and "open all" toggle (and a
// mark that it ran, which the self-test looks for: the CSP hash is right).
const SCRIPT = `
document.body.setAttribute("data-script","ran");
document.getElementById("only-failures").addEventListener("change",function(e){document.body.classList.toggle("only-failures",e.target.checked)});
document.getElementById("open-all").addEventListener("change",function(e){document.querySelectorAll("details").forEach(function(d){d.open=e.target.checked})});
`;
const SCRIPT_HASH = createHash("sha256").update(SCRIPT).digest("base64");

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

function badge(status: Status | "NOT_RUN"): string {
  const mark = MARK[status];
  return `<span class="badge ${cls(status)}">${mark} ${esc(status.replace(/_/g, " "))}</span>`;
}

/** A failing or doubtful result shows (and survives the filter); a pass hides under "failures only". */
const okClass = (s: Status | undefined) => (s === undefined || s === "PASS" || s === "NOT_AVAILABLE" ? "ok" : "");

function evidenceTable(r: RowResult): string {
  if (!r.evidence.length) return `<p class="meta">No HTTP exchange recorded.</p>`;
  const rows = r.evidence.map((e) => {
    const sent = Object.entries(e.requestHeaders)
      .filter(([k]) => k !== "content-length")
      .map(([k, v]) => `${esc(k)}: ${esc(v)}`)
      .join("<br>");
    const got = ["etag", "last-modified", "x-ms-lease-state", "x-ms-lease-status", "x-ms-popreceipt", "x-ms-time-next-visible", "server"]
      .filter((k) => e.responseHeaders[k] !== undefined)
      .map((k) => `${esc(k)}: ${esc(e.responseHeaders[k])}`)
      .join("<br>");
    return (
      `<tr><td>${e.seq}</td><td>${esc(e.step ?? "")}</td><td>${esc(e.via)}</td><td><code>${esc(e.method)} ${esc(e.url)}</code></td>` +
      `<td><code>${sent}</code></td><td>${esc(e.status ?? e.transportError ?? "")}</td><td>${esc(e.errorCode ?? "")}</td><td><code>${got}</code></td><td>${esc(e.ms)}</td></tr>`
    );
  });
  return (
    `<table class="ev"><thead><tr><th>#</th><th>step</th><th>via</th><th>request</th><th>headers sent</th><th>status</th><th>error code</th><th>response headers</th><th>ms</th></tr></thead>` +
    `<tbody>${rows.join("")}</tbody></table>`
  );
}

function resultDetail(r: RowResult): string {
  const parts = [
    `<p><code>${esc(r.id)}</code> ${badge(r.status)} <span class="meta">${esc(r.level)} · ${esc(r.source)} · ${esc(r.durationMs)} ms${r.location ? ` · code <code>${esc(r.location)}</code>` : ""}</span></p>`,
  ];
  parts.push(`<p>${esc(r.title)}</p>`);
  if (r.status !== r.observed) parts.push(`<p class="meta">Observed before expectations: ${esc(r.observed)}</p>`);
  if (r.message) parts.push(`<p class="msg">${esc(r.message)}</p>`);
  if (r.expectation) {
    const link =
      r.expectation.link && /^https?:\/\//.test(r.expectation.link)
        ? ` <a href="${esc(r.expectation.link)}">${esc(r.expectation.link)}</a>`
        : "";
    const ops = r.expectation.operations ? ` (${r.expectation.operations.map(esc).join(", ")})` : "";
    parts.push(`<p class="meta">Pinned: ${esc(r.expectation.status)}${ops} — ${esc(r.expectation.reason)}${link}</p>`);
  }
  if (r.basis) parts.push(`<p class="meta">Rests on: ${esc(basisText(r))}${r.liveSource ? ` (${esc(r.liveSource)})` : ""}</p>`);
  if (Object.keys(r.notes).length) parts.push(`<p class="meta">Observed: <code>${esc(JSON.stringify(r.notes))}</code></p>`);
  parts.push(evidenceTable(r));
  return parts.join("");
}

/** The evidence a cell or sub-verdict opens: every result of `id`, or a line saying it was not run. */
function detailsOf(rs: RowResult[], id: string): string {
  return rs.length ? rs.map(resultDetail).join("<hr>") : `<p class="meta"><code>${esc(id)}</code> was not run.</p>`;
}

/**
 * A cell's sub-verdicts (one per finer row, e.g. per conditional header): a
 * small badge each, after the cell's own verdict, opening that row's evidence
 * as the cell does (a <details> of its own). Their statuses join the row's
 * for the "failures only" filter.
 */
function subVerdicts(cell: MatrixCell, byId: Map<string, RowResult>, statuses: (Status | undefined)[]): string {
  if (!cell.subs?.length) return "";
  const subs = cell.subs.map((sub) => {
    const rs = cellResults(byId, sub.id);
    const worst = cellVerdict(rs);
    statuses.push(worst?.status);
    const st = worst?.status ?? "NOT_RUN";
    const shown = st === "NOT_RUN" ? "not run" : MARK[st];
    const title = `${sub.label}: ${st === "NOT_RUN" ? "not run" : st.replace(/_/g, " ")} (${sub.id})`;
    return (
      `<details class="sub" data-sub-id="${esc(sub.id)}" data-status="${esc(st)}"><summary title="${esc(title)}">` +
      `<span class="badge ${cls(st)}">${esc(sub.label)} ${esc(shown)}</span></summary>${detailsOf(rs, sub.id)}</details>`
    );
  });
  return `<div class="subs">${subs.join(" ")}</div>`;
}

/** The causes, most rows first: the answers that decided the non-PASS rows (each cell they decided links here). */
function causesSection(report: Report): string {
  const causes = report.causes ?? [];
  if (!causes.length) return "";
  const all = causes.reduce((n, c) => n + c.rows.length, 0);
  const rows = causes.map(
    (c) =>
      `<tr id="cause-${c.rank}"><td>${c.rank}</td><td>${c.rows.length}</td><td>${esc(c.operation || "—")}</td><td>${c.status !== undefined ? `${c.status} ${esc(c.code ?? "(no error code)")}` : "—"}</td><td>${esc(c.problem)}</td><td>${esc(c.step)}</td>` +
      `<td><details><summary>${c.rows.length} row(s)</summary>${c.rows.map((id) => `<a href="#${anchor(id)}"><code>${esc(id)}</code></a>`).join(" ")}</details></td></tr>`,
  );
  return (
    `<section id="causes"><h2>Causes</h2><p class="meta">The answers that decided the ${all} non-PASS rows, most rows first: one answer (an operation the target lacks, an error format, a missing header) often decides many cells of the tables below, each of which links to its cause.</p>` +
    `<table class="cert"><thead><tr><th>#</th><th>Rows</th><th>Operation</th><th>Answer</th><th>What was wrong</th><th>Step</th><th>Rows it decided</th></tr></thead><tbody>${rows.join("")}</tbody></table></section>`
  );
}

function matrix(section: MatrixSection, byId: Map<string, RowResult>, causes: Map<string, number> = new Map()): string {
  const head = `<tr><th>${esc(section.title)}</th>${section.columns.map((c) => `<th>${esc(c.header)}</th>`).join("")}</tr>`;
  const body = section.rows.map((row) => {
    const statuses: (Status | undefined)[] = [];
    const cells = section.columns.map((c) => {
      const cell = row.cells[c.key];
      if (!cell) return `<td></td>`;
      const rs = cellResults(byId, cell.id);
      const worst = cellVerdict(rs);
      statuses.push(worst?.status);
      const st = worst?.status ?? "NOT_RUN";
      const rank = causeRank(worst, causes);
      return (
        `<td class="cell ${cls(st)}" data-id="${esc(cell.id)}" data-status="${esc(st)}"><details><summary><b>${esc(cell.claim)}</b> ${badge(st)}</summary>` +
        `${detailsOf(rs, cell.id)}</details>${rank ? ` <a class="meta" href="#cause-${rank}">cause ${rank}</a>` : ""}${subVerdicts(cell, byId, statuses)}</td>`
      );
    });
    const ok = statuses.every((s) => okClass(s) === "ok") ? "ok" : "";
    return `<tr class="${ok}"><th>${esc(row.label)}</th>${cells.join("")}</tr>`;
  });
  return (
    `<section class="matrix" id="matrix-${esc(section.key)}"><h3>${esc(section.title)}</h3><p class="meta">Source: ${esc(section.source)}</p>` +
    `<table><thead>${head}</thead><tbody>${body.join("")}</tbody></table></section>`
  );
}

interface TableCounts {
  table: string;
  docPassed: number;
  docTotal: number;
  counts: Record<Status, number>;
  total: number;
}

/** Per catalogue table: `doc` rows that PASS (certification counts only PASS) and every status's count. */
export function tableCounts(results: RowResult[]): TableCounts[] {
  const out = new Map<string, TableCounts>();
  for (const r of results) {
    let t = out.get(r.table);
    if (!t) {
      t = {
        table: r.table,
        docPassed: 0,
        docTotal: 0,
        counts: Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<Status, number>,
        total: 0,
      };
      out.set(r.table, t);
    }
    t.counts[r.status] += 1;
    t.total += 1;
    if (r.level === "doc") {
      t.docTotal += 1;
      if (r.status === "PASS") t.docPassed += 1;
    }
  }
  return [...out.values()].sort((a, b) => sectionRank(a.table) - sectionRank(b.table));
}

function certification(report: Report): string {
  const { run } = report;
  const counts = tableCounts(report.results);
  const docPassed = counts.reduce((n, t) => n + t.docPassed, 0);
  const docTotal = counts.reduce((n, t) => n + t.docTotal, 0);
  const servers = Object.entries(run.target.server)
    .filter(([, v]) => v)
    .map(([k, v]) => `${esc(k)}: ${esc(v)}`)
    .join(", ");
  const versions = Object.entries(run.apiVersionsSent)
    .map(
      ([svc, byVia]) =>
        `${esc(svc)}: ${Object.entries(byVia)
          .map(([via, vs]) => `${esc(via)} ${vs.map(esc).join("/")}`)
          .join(", ")}`,
    )
    .join("; ");
  const missing = run.target.services.filter((s) => !s.available);
  const row = (t: TableCounts) =>
    `<tr class="${t.counts.FAIL + t.counts.UNEXPECTED_PASS + t.counts.INCONCLUSIVE + t.counts.EXPECTED_FAIL + t.counts.UNSUPPORTED > 0 ? "" : "ok"}"><td>${esc(t.table)}</td>` +
    `<td class="num"><b>${t.docTotal ? `${t.docPassed} / ${t.docTotal}` : "—"}</b></td>` +
    STATUSES.map((s) => `<td class="num ${t.counts[s] ? cls(s) : ""}">${t.counts[s] || ""}</td>`).join("") +
    `<td class="num">${t.total}</td></tr>`;
  const head = (first: string) =>
    `<thead><tr><th>${first}</th><th><code>doc</code> passed / total</th>${STATUSES.map((s) => `<th>${badge(s)}</th>`).join("")}<th>rows</th></tr></thead>`;
  const beyond = counts.filter((t) => isBeyondArticle(t.table));
  return [
    `<section id="certification"><h2>Certification summary</h2>`,
    `<p><b>${docPassed} of ${docTotal}</b> documented (<code>doc</code>) claims pass on this target. Only PASS counts; an expected failure is still a deviation.</p>`,
    `<table class="meta-table"><tbody>`,
    `<tr><th>Target</th><td>${esc(run.target.kind)} (${esc(run.target.name)}), account <code>${esc(run.target.account)}</code>${run.target.azuriteVersion ? `, embedded Azurite ${esc(run.target.azuriteVersion)}` : ""}</td></tr>`,
    `<tr><th>Server</th><td>${servers || "unknown"}</td></tr>`,
    `<tr><th>API versions sent</th><td>${versions || "none recorded"}</td></tr>`,
    `<tr><th>Suite</th><td>${esc(run.suite.name)} ${esc(run.suite.version)}${run.suite.commit ? ` (commit <code>${esc(run.suite.commit.slice(0, 12))}</code>)` : ""}</td></tr>`,
    `<tr><th>Date</th><td>${esc(run.startedAt)} – ${esc(run.finishedAt)} (${Math.round(run.durationMs / 1000)} s)</td></tr>`,
    `<tr><th>Expectations</th><td>${esc(run.expectations)}</td></tr>`,
    `<tr><th>Selection</th><td>${report.results.length} rows run${run.grep ? `, grep <code>${esc(run.grep)}</code>` : ""}${report.notRun.length ? `, ${report.notRun.length} not selected` : ""}</td></tr>`,
    missing.length
      ? `<tr><th>Not available</th><td>${missing.map((s) => `${esc(s.service)}: ${esc(s.reason)}`).join("<br>")}</td></tr>`
      : "",
    run.leftovers
      ? `<tr><th>Left behind</th><td class="st-fail">${esc(run.leftovers)} resource(s) with this run's prefix <code>${esc(run.runPrefix)}</code></td></tr>`
      : "",
    `</tbody></table>`,
    lackingOperations(report),
    `<h3>Per table</h3><table class="cert">${head("Catalogue table")}`,
    `<tbody>${counts
      .filter((t) => !isBeyondArticle(t.table))
      .map(row)
      .join("")}</tbody></table>`,
    beyond.length
      ? `<h3 id="beyond-summary">Beyond the article</h3><p class="meta">${esc(BEYOND_ARTICLE_NOTE)}</p><table class="cert">${head("Catalogue section X")}<tbody>${beyond.map(row).join("")}</tbody></table>`
      : "",
    `</section>`,
  ].join("\n");
}

/** Operations once each (not implemented, or answered with a server error), with the rows each takes down. */
function operationTable(lacking: LackingOperation[], id: string, heading: string, explanation: string): string {
  if (!lacking.length) return "";
  const rows = lacking.map((l) => {
    const link = l.pinned?.link && /^https?:\/\//.test(l.pinned.link) ? ` <a href="${esc(l.pinned.link)}">${esc(l.pinned.link)}</a>` : "";
    const pin = l.pinned
      ? `pinned as <code>${esc(l.pinned.key)}</code>: ${esc(l.pinned.reason)}${link}`
      : `<b>not pinned</b>: fails the run`;
    return `<tr data-operation="${esc(l.operation)}"><td>${esc(l.operation)}</td><td>${esc(l.status)}${l.code ? " " + esc(l.code) : ""}</td><td class="num">${l.rows.length}</td><td>${pin}</td></tr>`;
  });
  return (
    `<h3 id="${id}">${heading}</h3><p>${explanation}</p>` +
    `<table class="cert"><thead><tr><th>Operation</th><th>Answer</th><th>Rows</th><th>Pinned</th></tr></thead><tbody>${rows.join("")}</tbody></table>`
  );
}

function lackingOperations(report: Report): string {
  const reasons = undecidedReasons(report.results);
  return (
    operationTable(
      unsupportedOperations(report.results, report.run.operationPins),
      "unsupported",
      "Operations the target does not implement",
      `The target answered these as not implemented; the rows that need them are ${badge("UNSUPPORTED")}: not a pass.`,
    ) +
    operationTable(
      faultingOperations(report.results, report.run.faultPins),
      "faults",
      "Operations the target answers with a server error",
      `A server error (a 5xx other than 501, not throttling) on every try of a request, and again when the row ran once more: the target cannot do what the claim needs, and the rows are ${badge("FAIL")} (${badge("EXPECTED_FAIL")} where the expectation file pins the operation under <code>faults</code>).`,
    ) +
    (reasons.length
      ? `<h3 id="undecided">Rows no answer decided</h3><p>${reasons.reduce((a, r) => a + r.rows.length, 0)} row(s) are ${badge("INCONCLUSIVE")}: the target gave no answer to decide them, also when run once more. The run is incomplete (exit code 4).</p>` +
        `<table class="cert"><thead><tr><th>Why</th><th>Rows</th></tr></thead><tbody>${reasons.map((r) => `<tr><td>${esc(r.reason)}</td><td>${r.rows.map((id) => `<a href="#${anchor(id)}"><code>${esc(id)}</code></a>`).join(", ")}</td></tr>`).join("")}</tbody></table>`
      : "")
  );
}

/** Every pair of the concurrency surface: the rows that sent it, whether one was refused for it alone, why it went unsent. */
function surfaceSection(report: Report): string {
  const s = report.surface;
  if (!s) return "";
  const rows = (ids: string[]) =>
    ids
      .slice(0, 3)
      .map((id) => `<a href="#${anchor(id)}"><code>${esc(id)}</code></a>`)
      .join(", ") + (ids.length > 3 ? ` (+${ids.length - 3})` : "");
  const line = (e: (typeof s.entries)[number]) =>
    `<tr><td>${esc(e.service)}</td><td>${esc(e.operation)}</td><td><code>${esc(e.parameter)}</code></td><td>${esc(e.kind)}</td>` +
    `<td>${e.sent ? rows(e.rows) : esc(NOT_SENT_TEXT[e.notSentBecause ?? "NO_ROW"])}</td><td>${e.refusedAlone ? rows(e.refusedBy ?? []) : e.sent ? "no" : ""}</td></tr>`;
  return (
    `<section id="surface"><h2>Concurrency surface</h2><p class="meta">Every (REST operation, concurrency parameter) pair the SDKs' operation specs take (catalogue section S). ${esc(surfaceSummary(report))}.</p>` +
    `<details><summary>Every pair</summary><table><thead><tr><th>service</th><th>operation</th><th>parameter</th><th>kind</th><th>sent by</th><th>refused on its own in</th></tr></thead><tbody>` +
    `${s.entries.map(line).join("")}</tbody></table></details></section>`
  );
}

function everyRow(report: Report): string {
  const tables = [...new Set(report.results.map((r) => r.table))];
  const out = [`<section id="rows"><h2>Every row</h2>`];
  for (const t of tables) {
    out.push(
      `<h3>${esc(t)}</h3><table><thead><tr><th>ID</th><th>level</th><th>rests on</th><th>verdict</th><th>detail</th></tr></thead><tbody>`,
    );
    for (const r of report.results.filter((x) => x.table === t)) {
      const first = (r.message ?? "").split("\n")[0];
      out.push(
        `<tr id="${anchor(r.id)}" class="${okClass(r.status)}" data-id="${esc(r.id)}" data-status="${esc(r.status)}"><td><code>${esc(r.id)}</code></td><td>${esc(r.level)}</td><td>${esc(basisText(r))}</td>` +
          `<td class="${cls(r.status)}">${badge(r.status)}</td><td><details><summary>${esc(first || r.title)}</summary>${resultDetail(r)}</details></td></tr>`,
      );
    }
    out.push(`</tbody></table>`);
  }
  if (report.notRun.length) {
    out.push(`<p class="meta">Not selected in this run: ${report.notRun.map((id) => `<code>${esc(id)}</code>`).join(", ")}</p>`);
  }
  out.push(`</section>`);
  return out.join("\n");
}

export function renderHtml(report: Report, sections: MatrixSection[]): string {
  const byId = new Map(report.results.map((r) => [r.id, r]));
  const causes = causeOfRow(report.causes ?? []);
  const failing = report.results.filter(failsRun).length;
  const csp = `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${SCRIPT_HASH}'; img-src data:`;
  return [
    `<!DOCTYPE html>`,
    `<html lang="en"><head><meta charset="utf-8">`,
    `<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>Azure Storage concurrency conformance: ${esc(report.run.target.kind)} ${esc(report.run.startedAt.slice(0, 10))}</title>`,
    `<style>${STYLE}</style></head>`,
    `<body data-schema="${esc(report.schema)}">`,
    `<h1>Azure Storage concurrency conformance</h1>`,
    `<p class="meta">${esc(report.run.target.kind)} · suite ${esc(report.run.suite.version)} · ${esc(report.run.finishedAt)} · ` +
      STATUSES.filter((s) => report.summary[s])
        .map((s) => `${badge(s)} ${report.summary[s]}`)
        .join(" ") +
      ` · run ${failing ? `<b>fails</b> (${failing})` : "passes"}</p>`,
    report.surface ? `<p class="meta"><a href="#surface">${esc(surfaceLine(report))}</a></p>` : "",
    `<div class="bar"><label><input type="checkbox" id="only-failures"> show failures only</label> &nbsp; <label><input type="checkbox" id="open-all"> open all evidence</label>` +
      ` &nbsp; <span class="legend">${STATUSES.map(badge).join(" ")} ${badge("NOT_RUN")}</span></div>`,
    certification(report),
    causesSection(report),
    `<section id="matrix"><h2>The article's tables</h2><p class="meta">Each cell: the seed article's claim and the verdict of the test that checks it (the worst of its finer tests), then, where the cell has them, one small badge per finer row (e.g. per conditional header). Click a cell or a badge for its evidence.</p>`,
    sections
      .filter((s) => !s.beyond)
      .map((s) => matrix(s, byId, causes))
      .join("\n"),
    `</section>`,
    sections.some((s) => s.beyond)
      ? `<section id="beyond"><h2>Beyond the article</h2><p class="meta">${esc(BEYOND_ARTICLE_NOTE)} Each cell: the catalogue's claim and the verdict of the row that checks it, then one small badge per further row of the cell.</p>${sections
          .filter((s) => s.beyond)
          .map((s) => matrix(s, byId, causes))
          .join("\n")}</section>`
      : "",
    surfaceSection(report),
    everyRow(report),
    `<script>${SCRIPT}</script>`,
    `</body></html>`,
    "",
  ].join("\n");
}

export function writeHtml(report: Report, sections: MatrixSection[], dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "conformance.html");
  writeFileSync(path, renderHtml(report, sections));
  return path;
}
