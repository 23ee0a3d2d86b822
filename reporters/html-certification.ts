// The HTML report's certification summary (html.ts): the target, the run and
// its selection, the operations the target lacks or faults on, and per
// catalogue table the `doc` rows that pass and every status's count.
import { BEYOND_ARTICLE_NOTE, isBeyondArticle, sectionRank } from "../model/matrix.ts";
import { STATUSES, type Report, type RowResult, type Status } from "../model/result.ts";
import { faultingOperations, undecidedReasons, unsupportedOperations, type LackingOperation } from "../model/lacking.ts";
import { anchor, badge, cls, esc } from "./html-kit.ts";

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

export function certification(report: Report): string {
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
