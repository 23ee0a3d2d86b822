// The GitHub Action's report step (action.yml), after the run: the job summary
// ($GITHUB_STEP_SUMMARY: the exit status, the doc claims that hold, the
// summary of conformance.md and the rows that fail the run) and the outputs
// ($GITHUB_OUTPUT: counts, exit status, report paths). When a result changed
// (exit 1) it also writes the expectation files as `expectations-update` would
// rewrite them from this run into <report-dir>/proposed-expectations/, to be
// reviewed and committed; the files the run used are left alone.
// Environment: REPORT_DIR, EXIT_CODE, RUN_STDERR (a file with the run's
// stderr), ARTIFACT_NAME, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT.
import { spawnSync } from "node:child_process";
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT } from "../fixtures/paths.ts";
import { failsRun, type Report } from "../model/result.ts";
import { faultingOperations, undecidedReasons, unsupportedOperations, type LackingOperation } from "../model/lacking.ts";
import { docClaims } from "../reporters/badge.ts";
import { runMain } from "./cli-kit.ts";

const MEANING: Record<string, string> = {
  "0": "every result as expected",
  "1": "a result changed against the expectations (a FAIL, an UNEXPECTED_PASS, or an operation the target does not implement and the expectations do not pin)",
  "2": "bad input: nothing was run",
  "3": "internal error: a bug in the suite, please report it",
  "4": "incomplete: no result changed, but the target gave no answer that decides some rows (INCONCLUSIVE)",
  "130": "interrupted",
};
/** Rows listed in the summary at most (GitHub keeps 1 MiB of it). */
const MAX_ROWS = 100;

const esc = (s: string) => s.replace(/\|/g, "\\|").replace(/\r?\n/g, " ");

/** conformance.md up to its matrices: the target line, the status counts, what the target lacks. */
export function markdownSummary(md: string): string {
  const end = md.indexOf("\n## ");
  return (end < 0 ? md : md.slice(0, end))
    .split("\n")
    .filter((l) => !l.startsWith("# "))
    .join("\n")
    .trim();
}

export function renderStepSummary(opts: {
  exitCode: string;
  report?: Report;
  markdown?: string;
  stderr: string;
  artifact: string;
  proposed?: string;
}): string {
  const { exitCode, report } = opts;
  const said = opts.stderr.trim().split("\n").filter(Boolean).at(-1);
  const out = [
    `## Azure Storage concurrency conformance: exit ${exitCode}`,
    "",
    `Exit ${exitCode}: ${MEANING[exitCode] ?? "the run ended abnormally"}.`,
    "",
  ];
  if (!report) {
    if (said) out.push("```", said, "```", "");
    return out.join("\n");
  }
  const doc = docClaims(report);
  out.push(`**${doc.passed}/${doc.total} doc claims** hold on this target (only PASS counts; \`badge.json\` in the reports).`, "");
  if (opts.markdown) out.push(markdownSummary(opts.markdown), "");
  const operations = (heading: string, list: LackingOperation[]) => {
    if (!list.length) return;
    out.push(`### ${heading} (${list.length})`, "", "| Operation | Answer | Rows | Pinned |", "|---|---|---|---|");
    for (const l of list)
      out.push(
        `| ${esc(l.operation)} | ${l.status}${l.code ? " " + l.code : ""} | ${l.rows.length} | ${l.pinned ? esc(`as "${l.pinned.key}": ${l.pinned.reason}`) : "no: fails the run"} |`,
      );
    out.push("");
  };
  operations("Operations the target does not implement", unsupportedOperations(report.results, report.run.operationPins));
  operations("Operations the target answers with a server error on every try", faultingOperations(report.results, report.run.faultPins));
  const undecided = undecidedReasons(report.results);
  if (undecided.length) {
    out.push(
      `### Rows no answer decided (${undecided.reduce((a, u) => a + u.rows.length, 0)}): the run is incomplete`,
      "",
      "| Why | Rows |",
      "|---|---|",
    );
    for (const u of undecided)
      out.push(
        `| ${esc(u.reason)} | ${u.rows
          .slice(0, 20)
          .map((id) => `\`${id}\``)
          .join(", ")}${u.rows.length > 20 ? ` and ${u.rows.length - 20} more` : ""} |`,
      );
    out.push("");
  }
  // UNSUPPORTED rows are listed by the operation they lack, above.
  const failing = report.results.filter((r) => failsRun(r) && r.status !== "UNSUPPORTED");
  if (failing.length) {
    out.push(`### Rows that fail the run (${failing.length})`, "", "| Row | Status | Why |", "|---|---|---|");
    for (const r of failing.slice(0, MAX_ROWS)) out.push(`| \`${r.id}\` | ${r.status} | ${esc((r.message ?? "").slice(0, 300))} |`);
    if (failing.length > MAX_ROWS) out.push("", `… and ${failing.length - MAX_ROWS} more: see conformance.md.`);
    out.push("");
  } else out.push("No row fails the run.", "");
  out.push(`Reports (conformance.html, conformance.md, conformance.json, junit.xml, badge.json): artifact \`${opts.artifact}\`.`);
  if (opts.proposed)
    out.push(`Expectation files rewritten from this run, to review and commit: \`proposed-expectations/\` in the artifact.`);
  return out.join("\n") + "\n";
}

/**
 * Copies the expectation file the run used (with its topic files) into
 * <reportDir>/proposed-expectations/ and rewrites the copy from the run's
 * report with the expectations updater. Returns the directory, or undefined
 * when the run used none.
 */
export function proposeExpectations(report: Report, reportDir: string): string | undefined {
  const used = report.run.expectations;
  if (!used || used === "none") return undefined;
  const main = resolve(ROOT, used);
  const out = join(reportDir, "proposed-expectations");
  mkdirSync(out, { recursive: true });
  const stem = basename(main, ".json");
  const from = dirname(main);
  if (existsSync(from))
    for (const f of readdirSync(from))
      if (f === `${stem}.json` || (f.startsWith(`${stem}.`) && f.endsWith(".json"))) copyFileSync(join(from, f), join(out, f));
  const updater = fileURLToPath(new URL(`./expectations-update${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`, import.meta.url));
  const loader = import.meta.url.endsWith(".ts") ? ["--import", import.meta.resolve("tsx")] : [];
  const r = spawnSync(
    process.execPath,
    [...loader, updater, "--expectations", join(out, `${stem}.json`), "--report", join(reportDir, "conformance.json"), "--force"],
    { encoding: "utf8" },
  );
  process.stdout.write(r.stdout ?? "");
  process.stderr.write(r.stderr ?? "");
  return r.status === 0 ? out : undefined;
}

function main(): number {
  const env = process.env;
  const reportDir = resolve(env.REPORT_DIR || "reports");
  const exitCode = (env.EXIT_CODE ?? "").trim() || "unknown";
  const stderr = env.RUN_STDERR && existsSync(env.RUN_STDERR) ? readFileSync(env.RUN_STDERR, "utf8") : "";
  const jsonPath = join(reportDir, "conformance.json");
  const report =
    ["0", "1", "4"].includes(exitCode) && existsSync(jsonPath) ? (JSON.parse(readFileSync(jsonPath, "utf8")) as Report) : undefined;
  const mdPath = join(reportDir, "conformance.md");
  const markdown = report && existsSync(mdPath) ? readFileSync(mdPath, "utf8") : undefined;
  const proposed = report && exitCode === "1" ? proposeExpectations(report, reportDir) : undefined;

  const summary = renderStepSummary({ exitCode, report, markdown, stderr, artifact: env.ARTIFACT_NAME || "conformance-reports", proposed });
  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, summary);
  else process.stdout.write(summary);

  const outputs: Record<string, string | number | undefined> = {
    "exit-code": exitCode,
    "report-dir": reportDir,
    passed: report?.summary.passed,
    failed: report?.summary.failed,
    skipped: report?.summary.skipped,
    total: report?.summary.total,
    "doc-passed": report ? docClaims(report).passed : undefined,
    "doc-total": report ? docClaims(report).total : undefined,
    badge: existsSync(join(reportDir, "badge.json")) && report ? join(reportDir, "badge.json") : undefined,
    "proposed-expectations": proposed,
  };
  const lines = Object.entries(outputs)
    .map(([k, v]) => `${k}=${v ?? ""}\n`)
    .join("");
  if (env.GITHUB_OUTPUT) appendFileSync(env.GITHUB_OUTPUT, lines);
  else process.stdout.write(lines);
  return 0;
}

await runMain(import.meta.url, main);
