// The HTML report: one self-contained page (no external resources) for an
// emulator team to publish. At the top a certification summary (`doc` rows
// passed / total per catalogue table; html-certification.ts), then the seed
// article's tables with a coloured cell per claim, each cell (and each of its
// sub-verdicts) opening its evidence, then every row by table. Every value
// that came from a server or a test goes through esc() (html-kit.ts).
// A Content-Security-Policy allows only the one inline script
// (html-assets.ts), so even an escaping slip could not run injected script.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BEYOND_ARTICLE_NOTE, type MatrixCell, type MatrixSection } from "../model/matrix.ts";
import { causeOfRow } from "../model/causes.ts";
import { basisText, causeRank, cellResults, cellVerdict } from "../model/cells.ts";
import { NOT_SENT_TEXT, surfaceLine, surfaceSummary } from "./surface.ts";
import { failsRun, STATUSES, type Report, type RowResult, type Status } from "../model/result.ts";
import { anchor, badge, cls, esc, MARK, okClass } from "./html-kit.ts";
import { SCRIPT, SCRIPT_HASH, STYLE } from "./html-assets.ts";
import { certification } from "./html-certification.ts";
import { perResult } from "./per-result.ts";

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

/** A result's evidence and details, made once per result: the cells and "Every row" both open it. */
export const resultDetail = perResult(makeResultDetail);

function makeResultDetail(r: RowResult): string {
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

/** Every pair of the concurrency surface: the rows that sent it, whether one was refused for it alone, why it went unsent. */
function surfaceSection(report: Report): string {
  const s = report.surface;
  if (!s) return "";
  const rows = (ids: string[]) =>
    ids
      .slice(0, 3)
      .map((id) => `<a href="#${anchor(id)}"><code>${esc(id)}</code></a>`)
      .join(", ") + (ids.length > 3 ? ` (+${ids.length - 3})` : "");
  // Sent, not refused on its own: the rows that sent it and did not pass say why (the target answered otherwise).
  const notRefused = (failed?: Record<string, string>) =>
    failed
      ? `no: ${Object.entries(failed)
          .slice(0, 3)
          .map(([id, status]) => `${rows([id])} ${esc(status)}`)
          .join(", ")}`
      : "no";
  const line = (e: (typeof s.entries)[number]) =>
    `<tr><td>${esc(e.service)}</td><td>${esc(e.operation)}</td><td><code>${esc(e.parameter)}</code></td><td>${esc(e.kind)}</td>` +
    `<td>${e.sent ? rows(e.rows) : esc(NOT_SENT_TEXT[e.notSentBecause ?? "NO_ROW"])}</td><td>${e.refusedAlone ? rows(e.refusedBy ?? []) : e.sent ? notRefused(e.notRefusedIn) : ""}</td></tr>`;
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
