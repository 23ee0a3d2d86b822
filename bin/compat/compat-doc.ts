// The Azurite compatibility page (docs/azurite-compatibility.md): per version,
// how it was started and its tallies; then every ID whose verdict differs
// between the versions, with the pin's reason and link. No evidence links:
// the page is committed, the reports are not.
import { compareRuns, type CompareRun } from "../../reporters/compare.ts";
import { headline } from "../../reporters/console.ts";
import { STATUS_MARK, type RowResult } from "../../model/result.ts";
import { showCause } from "../../model/causes.ts";

export interface VersionRun {
  version: string;
  node: string;
  args: string[];
  code: number | null;
  run?: CompareRun;
  /** Why there is no report (install or start failed). */
  error?: string;
  /** Azurite 2.x, the legacy code base: its own expectation file, and a section of its own on the page. */
  legacy?: boolean;
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
const mark = (r: RowResult | undefined) => (r ? `${STATUS_MARK[r.status]} ${r.status}` : "not run");

function why(cells: (RowResult | undefined)[]): string {
  const pinned = cells.find((r) => r?.expectation)?.expectation;
  if (pinned)
    return `${pinned.reason}${pinned.link ? ` ([issue](${pinned.link}))` : ""}${pinned.versions ? ` — pinned for \`${pinned.versions}\`` : ""}`;
  return headline(cells.find((r) => r && r.status !== "PASS" && r.message)?.message ?? "", 240);
}

/** The legacy versions' section: their causes, the answers that decided their non-PASS rows. */
function legacySection(v: VersionRun): string[] {
  const causes = v.run?.report.causes ?? [];
  const all = causes.reduce((n, x) => n + x.rows.length, 0);
  const out = [
    `## Azurite ${v.version}: the legacy code base`,
    "",
    `Azurite 2.x shares no code with 3.x: a second implementation, which keeps the suite honest about what is Azurite 3 and what is Azure. It is started with its \`bin/azurite\` command under \`bin/compat/azurite2-host.cjs\` and judged against its own expectation file, \`expectations/azurite2.json\` (it sends no Server header, so no version range can choose among \`azurite*.json\`'s pins). The answers that decided its ${all} non-PASS rows, most rows first:`,
    "",
    "| # | rows | cause |",
    "|---|---|---|",
  ];
  for (const c of causes.slice(0, 25)) out.push(`| ${c.rank} | ${c.rows.length} | ${cell(showCause(c))} |`);
  if (causes.length > 25)
    out.push(
      `| | ${causes.slice(25).reduce((n, c) => n + c.rows.length, 0)} | ${causes.length - 25} further causes of fewer rows each (its report lists them all) |`,
    );
  return [...out, ""];
}

export function renderCompatDoc(all: VersionRun[], meta: { date: string; command: string; suite: string }): string {
  const versions = all;
  const legacy = all.filter((v) => v.legacy && v.run);
  // The differences and shared deviations are those of 3.x; the legacy code base has a section of its own.
  const ran = all.filter((v) => v.run && !v.legacy);
  const c = compareRuns(ran.map((v) => v.run!));
  const changed = c.rows.filter((r) => r.changed);
  const out: string[] = [
    "# Azurite compatibility",
    "",
    `Generated ${meta.date} by \`${meta.command}\` (suite ${meta.suite}). Each version was installed from the npm registry, started in memory on free ports, and run as an external emulator (by connection string, expectations \`azurite\`, whose pins carry the version ranges they hold for${legacy.length ? "; Azurite 2.x with \`azurite2\`" : ""}).`,
    "",
    "| Azurite | Node | started with | exit | PASS | EXPECTED_FAIL | FAIL | UNEXPECTED_PASS | no verdict |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const v of versions) {
    const s = v.run?.report.summary;
    const flags = v.args.filter((a) => a.startsWith("--") && !/(Host|Port)$/.test(a) && a !== "--location").join(" ");
    out.push(
      s
        ? `| ${v.version} | ${v.node} | \`${flags}\` | ${v.code} | ${s.PASS} | ${s.EXPECTED_FAIL} | ${s.FAIL} | ${s.UNEXPECTED_PASS} | ${s.skipped} |`
        : `| ${v.version} | ${v.node} | \`${flags}\` | ${v.code ?? "–"} | ${cell(v.error ?? "no report")} | | | | |`,
    );
  }
  const skip = versions.filter((v) => v.args.includes("--skipApiVersionCheck")).map((v) => v.version);
  out.push("");
  const notRun = ran[0]?.run?.report.notRun ?? [];
  if (notRun.length)
    out.push(`Not run (left out by the selection in the command above): ${notRun.map((id) => `\`${id}\``).join(", ")}.`, "");
  if (skip.length) {
    out.push(
      `Started with \`--skipApiVersionCheck\`: ${skip.join(", ")}. These versions refuse the API version the suite's SDKs send (x-ms-version 2025-11-05) with 400 InvalidHeaderValue; the flag only lifts that check, so their rows run against their own behaviour.`,
      "",
    );
  }
  out.push(
    `## What differs between the versions`,
    "",
    `${changed.length} of ${c.rows.length} IDs have a different verdict on some version; every other ID has the same verdict on all of them. EXPECTED_FAIL is a deviation pinned in \`expectations/azurite*.json\` for that version's range; PASS outside a pin's range means the version behaves as documented.`,
    "",
    `| ID | ${ran.map((v) => v.version).join(" | ")} | why |`,
    `|---|${ran.map(() => "---").join("|")}|---|`,
  );
  for (const row of changed) out.push(`| \`${row.id}\` | ${row.cells.map(mark).join(" | ")} | ${cell(why(row.cells))} |`);
  const same = c.rows.filter((r) => !r.changed);
  const absent = same.filter((r) => r.cells[0]?.status === "NOT_AVAILABLE").length;
  const common = same.filter((r) => r.cells[0]?.status !== "PASS" && r.cells[0]?.status !== "NOT_AVAILABLE");
  if (common.length) {
    out.push(
      "",
      `## Deviations every version shares`,
      "",
      `Besides these, ${absent} rows are NOT_AVAILABLE on every version (Azurite has no File service).`,
      "",
      `| ID | verdict | why |`,
      `|---|---|---|`,
    );
    for (const row of common) out.push(`| \`${row.id}\` | ${mark(row.cells[0])} | ${cell(why(row.cells))} |`);
  }
  for (const v of legacy) out.push("", ...legacySection(v));
  out.push("", "Regenerate with the command above (a Node ≥ 22 for Azurite 3.36+: see the README's *Azurite versions*).", "");
  return out.join("\n");
}
