// Several runs side by side (wpt.fyi style): one column per run (target kind,
// server version, date), one row per ID, each cell linking to that run's
// evidence. The diff view keeps the IDs whose verdict differs between runs; a
// regression is a row that passed in one run and fails, or is UNSUPPORTED, in the next (the rows'
// own verdicts, before expectations), which is what an upgrade gate fails on.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { serverVersions } from "../model/versions.ts";
import { anchor as htmlAnchor, esc, MARK } from "./html-kit.ts";
import { anchor as mdAnchor, hasEvidence } from "./markdown.ts";
import { STATUS_MARK, type Report, type RowResult, type Status } from "../model/result.ts";

export interface CompareRun {
  report: Report;
  /** Path of its conformance.json (evidence links are relative to its directory); none: no links. */
  path?: string;
}

export interface Column {
  kind: string;
  /** `Server` headers the run saw, e.g. `Azurite-Blob/3.35.0` (one per distinct value). */
  server: string;
  version?: string;
  date: string;
  label: string;
}

export interface CompareRow {
  id: string;
  title: string;
  table: string;
  cells: (RowResult | undefined)[];
  changed: boolean;
}

export interface Regression {
  id: string;
  from: string;
  to: string;
  message?: string;
}

export interface Comparison {
  columns: Column[];
  rows: CompareRow[];
  regressions: Regression[];
}

export function columnOf(report: Report): Column {
  const t = report.run.target;
  const servers = [...new Set(Object.values(t.server ?? {}).filter((s): s is string => !!s))];
  const versions = t.versions ?? serverVersions(t.server ?? {});
  const version = t.azuriteVersion ?? [...new Set(Object.values(versions))][0];
  const date = report.run.startedAt.slice(0, 16).replace("T", " ");
  const server = servers.join(", ") || "no Server header";
  return { kind: t.kind, server, version, date, label: `${t.kind} · ${version ?? server} · ${date}` };
}

const verdictKey = (r: RowResult | undefined) => (r ? `${r.status}/${r.observed}` : "not run");

export function compareRuns(runs: CompareRun[]): Comparison {
  const columns = runs.map((r) => columnOf(r.report));
  const byRun = runs.map((r) => new Map(r.report.results.map((x) => [x.id, x])));
  const ids: string[] = [];
  const seen = new Set<string>();
  for (const r of runs) for (const x of r.report.results) if (!seen.has(x.id)) (seen.add(x.id), ids.push(x.id));
  const regressions: Regression[] = [];
  const rows = ids.map((id) => {
    const cells = byRun.map((m) => m.get(id));
    const first = cells.find(Boolean)!;
    for (let i = 1; i < cells.length; i++) {
      const [a, b] = [cells[i - 1], cells[i]];
      if (a?.observed === "PASS" && (b?.observed === "FAIL" || b?.observed === "UNSUPPORTED"))
        regressions.push({ id, from: columns[i - 1].label, to: columns[i].label, message: b.message });
    }
    return { id, title: first.title, table: first.table, cells, changed: new Set(cells.map(verdictKey)).size > 1 };
  });
  return { columns, rows, regressions };
}

/** Where a cell's evidence is, relative to the output directory. */
function evidenceHref(run: CompareRun, r: RowResult, outDir: string, format: "html" | "md"): string | undefined {
  if (!run.path) return undefined;
  const dir = relative(outDir, dirname(run.path)) || ".";
  const rel = (f: string) => `${dir}/${f}`.replace(/^\.\//, "");
  if (format === "md" && hasEvidence(r)) return `${rel("conformance.md")}#${mdAnchor(r.id)}`;
  return `${rel("conformance.html")}#${htmlAnchor(r.id)}`;
}

export interface RenderOptions {
  diff?: boolean;
  outDir: string;
  title?: string;
}

function statusLine(c: Comparison, runs: CompareRun[]): string[] {
  return c.columns.map((col, i) => {
    const s = runs[i].report.summary;
    return `${col.label}: ${s.PASS} PASS, ${s.EXPECTED_FAIL} EXPECTED_FAIL, ${s.failed} failing the run, ${s.skipped} without a verdict`;
  });
}

const mdCell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

export function renderCompareMarkdown(c: Comparison, runs: CompareRun[], opts: RenderOptions): string {
  const rows = opts.diff ? c.rows.filter((r) => r.changed) : c.rows;
  const out = [
    `# ${opts.title ?? (opts.diff ? "Conformance runs compared: what changed" : "Conformance runs side by side")}`,
    "",
    ...c.columns.map(
      (col, i) =>
        `${i + 1}. **${mdCell(col.label)}**: Server \`${mdCell(col.server)}\`, suite ${runs[i].report.run.suite.version}, Node ${runs[i].report.run.node}`,
    ),
    "",
    ...statusLine(c, runs).map((l) => `- ${mdCell(l)}`),
    "",
    `${c.rows.filter((r) => r.changed).length} of ${c.rows.length} IDs differ between the runs${opts.diff ? " (only they are listed)" : ""}.`,
    "",
  ];
  if (c.regressions.length) {
    out.push(`**Regressions** (passed, then failed): ${c.regressions.length}`, "");
    for (const r of c.regressions)
      out.push(`- \`${r.id}\`: ${mdCell(r.from)} → ${mdCell(r.to)}${r.message ? `: ${mdCell(r.message)}` : ""}`);
    out.push("");
  }
  out.push(`| ID | ${c.columns.map((col) => mdCell(col.label)).join(" | ")} |`, `|---|${c.columns.map(() => "---").join("|")}|`);
  for (const row of rows) {
    const cells = row.cells.map((r, i) => {
      if (!r) return "not run";
      const text = `${STATUS_MARK[r.status]} ${r.status}`;
      const href = evidenceHref(runs[i], r, opts.outDir, "md");
      return href ? `[${text}](${href})` : text;
    });
    out.push(`| \`${row.id}\`${row.changed && !opts.diff ? " Δ" : ""} | ${cells.join(" | ")} |`);
  }
  if (!rows.length) out.push(`| (no ID differs) | ${c.columns.map(() => "").join(" | ")} |`);
  return out.join("\n") + "\n";
}

const cls = (s: Status | "NOT_RUN") => `st-${s.toLowerCase().replace(/_/g, "-")}`;

const STYLE = `
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1400px;padding:16px;color:#1b1f24;background:#fff}
h1{font-size:22px;margin:0 0 8px}table{border-collapse:collapse;margin:6px 0 12px}th,td{border:1px solid #d0d7de;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa;position:sticky;top:0}code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}.meta{color:#57606a}
td.cell a,td.cell span{color:inherit;text-decoration:none;white-space:nowrap}tr.changed>td:first-child{border-left:4px solid #bf8700}
.st-pass{background:#d1f5d3}.st-fail{background:#ffc9c9}.st-unexpected-pass{background:#ff9bb0}.st-expected-fail{background:#ffe2b3}
.st-not-available{background:#eaeef2;color:#57606a}.st-precondition-failed{background:#fff5b1}.st-manual{background:#cfe6ff}
.st-inconclusive{background:#e5d4ff}.st-unsupported{background:#ffd8b5;color:#7a2e00}.st-not-run{background:#fff;color:#57606a}.reg{color:#cf222e}
`;

export function renderCompareHtml(c: Comparison, runs: CompareRun[], opts: RenderOptions): string {
  const rows = opts.diff ? c.rows.filter((r) => r.changed) : c.rows;
  const title = opts.title ?? (opts.diff ? "Conformance runs compared: what changed" : "Conformance runs side by side");
  const head = c.columns.map(
    (col, i) =>
      `<th data-col="${i}">${esc(col.kind)}<br><b>${esc(col.version ?? col.server)}</b><br><span class="meta">${esc(col.server)}<br>${esc(col.date)} UTC</span></th>`,
  );
  const body = rows.map((row) => {
    const cells = row.cells.map((r, i) => {
      if (!r) return `<td class="cell st-not-run" data-status="NOT_RUN"><span>· not run</span></td>`;
      const text = `${MARK[r.status]} ${esc(r.status.replace(/_/g, " "))}`;
      const href = evidenceHref(runs[i], r, opts.outDir, "html");
      const tip = esc(r.message ?? r.status);
      const inner = href ? `<a href="${esc(href)}" title="${tip}">${text}</a>` : `<span title="${tip}">${text}</span>`;
      return `<td class="cell ${cls(r.status)}" data-status="${esc(r.status)}">${inner}</td>`;
    });
    return `<tr data-id="${esc(row.id)}"${row.changed ? ` class="changed"` : ""}><td><code>${esc(row.id)}</code>${row.changed ? ` <b title="the verdict differs between the runs">Δ</b>` : ""}</td>${cells.join("")}</tr>`;
  });
  const regressions = c.regressions.length
    ? `<p class="reg"><b>Regressions</b> (passed, then failed): ${c.regressions.length}</p><ul>${c.regressions.map((r) => `<li><code>${esc(r.id)}</code>: ${esc(r.from)} → ${esc(r.to)}${r.message ? `: ${esc(r.message)}` : ""}</li>`).join("")}</ul>`
    : `<p class="meta">No regression (no row passed in one run and failed in the next).</p>`;
  return [
    `<!DOCTYPE html>`,
    `<html lang="en"><head><meta charset="utf-8">`,
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${esc(title)}</title><style>${STYLE}</style></head><body>`,
    `<h1>${esc(title)}</h1>`,
    `<ul class="meta">${statusLine(c, runs)
      .map((l) => `<li>${esc(l)}</li>`)
      .join("")}</ul>`,
    `<p>${c.rows.filter((r) => r.changed).length} of ${c.rows.length} IDs differ between the runs${opts.diff ? " (only they are listed)" : " (marked at the left)"}. Each cell opens that run's evidence.</p>`,
    regressions,
    `<table id="compare"><thead><tr><th>ID</th>${head.join("")}</tr></thead><tbody>`,
    ...body,
    `</tbody></table></body></html>`,
    "",
  ].join("\n");
}

export function writeCompare(runs: CompareRun[], opts: RenderOptions): { comparison: Comparison; files: string[] } {
  const comparison = compareRuns(runs);
  mkdirSync(opts.outDir, { recursive: true });
  const md = join(opts.outDir, "compare.md");
  const html = join(opts.outDir, "compare.html");
  writeFileSync(md, renderCompareMarkdown(comparison, runs, opts));
  writeFileSync(html, renderCompareHtml(comparison, runs, opts));
  return { comparison, files: [md, html] };
}
