// The mutation report: reports/mutation.json (mutants, killed, survived,
// score, per mutant the killing tests) and the console table.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Status } from "../model/result.ts";
import type { ClaimTable } from "./mutants/types.ts";

export interface TestOutcome {
  id: string;
  status: Status;
  message?: string;
  /** The row ran twice (its first attempt met a transport fault): what the first told. */
  rerun?: string;
}

export interface MutantOutcome {
  name: string;
  description: string;
  /** File under selftest/mutants/ the mutant comes from (its topic). */
  topic: string;
  kills: string[];
  /** The claim cell a generated mutant belongs to. */
  cell?: string;
  /** `equivalent`: every row it names failed exactly as pinned: the target already behaves like it (it never fired, or what it changed the target does too). */
  verdict: "killed" | "survived" | "equivalent";
  /** The named tests that FAILed (or UNEXPECTED_PASSed) under the mutant. */
  killers: TestOutcome[];
  /** Every named test that ran, with its status. */
  ran: TestOutcome[];
  /** Why a survivor could not even be tried (no named test registered, proxy error). */
  problem?: string;
  durationMs: number;
  proxy?: { requests: number; mutatedRequests: number; mutatedResponses: number };
  /** Why this is a second run: the first could not tell (see runMutants). */
  rerunBecause?: string;
  /** Named rows no mutant killed and this run could not tell, run once more alone (retellRows): what each told first, then. */
  retold?: string[];
}

export interface MutationReport {
  generatedAt: string;
  mutants: number;
  killed: number;
  survived: number;
  /** Mutants the target cannot tell from itself (see MutantOutcome.verdict). */
  equivalent: number;
  /** killed / (mutants − equivalent), 0..1. */
  score: number;
  /** Generated mutants by the claim cell they come from. */
  byCell: Record<string, { mutants: string[]; killed: number; equivalent: number; survived: number }>;
  /** Per table of claims that generates mutants: each claim, its row, its mutants with their verdicts. */
  byTable?: {
    table: string;
    kind: string;
    claims: number;
    killed: number;
    claimsNotKilled: string[];
    rows: { claim: string; row: string; mutants: { name: string; verdict: string }[] }[];
  }[];
  /** Wall time of the whole self-test run (or of this mutation run from the CLI), seconds. */
  wallTimeSeconds?: number;
  /** Wall time of the mutant runs alone, seconds. */
  mutationWallTimeSeconds?: number;
  survivors: string[];
  /** Registered rows no proxy mutant kills, with their status on Azurite (holes to consider). */
  rowsNotKilled?: { id: string; status: string }[];
  results: MutantOutcome[];
}

export function buildReport(results: MutantOutcome[], extra: Partial<MutationReport> = {}): MutationReport {
  const count = (v: MutantOutcome["verdict"], rs = results) => rs.filter((r) => r.verdict === v).length;
  const killed = count("killed");
  const equivalent = count("equivalent");
  const byCell: MutationReport["byCell"] = {};
  for (const cell of new Set(results.flatMap((r) => (r.cell ? [r.cell] : [])))) {
    const rs = results.filter((r) => r.cell === cell);
    byCell[cell] = {
      mutants: rs.map((r) => r.name),
      killed: count("killed", rs),
      equivalent: count("equivalent", rs),
      survived: count("survived", rs),
    };
  }
  const tried = results.length - equivalent;
  return {
    generatedAt: new Date().toISOString(),
    mutants: results.length,
    killed,
    survived: count("survived"),
    equivalent,
    score: tried ? Math.round((killed / tried) * 1000) / 1000 : 0,
    byCell,
    survivors: results.filter((r) => r.verdict === "survived").map((r) => r.name),
    ...extra,
    results,
  };
}

/** Each claim table with the verdicts of its mutants; a claim counts as killed when one of its mutants is (or is equivalent: the target already deviates so). */
export function byTable(tables: ClaimTable[], results: MutantOutcome[]): NonNullable<MutationReport["byTable"]> {
  const verdict = new Map(results.map((r) => [r.name, r.verdict]));
  return tables.map((t) => {
    const rows = t.claims.map((c) => ({
      claim: c.claim,
      row: c.row,
      mutants: c.mutants.map((name) => ({ name, verdict: verdict.get(name) ?? "not run" })),
    }));
    const caught = (r: (typeof rows)[number]) => r.mutants.some((m) => m.verdict === "killed" || m.verdict === "equivalent");
    return {
      table: t.table,
      kind: t.kind,
      claims: rows.length,
      killed: rows.filter(caught).length,
      claimsNotKilled: rows.filter((r) => !caught(r)).map((r) => r.claim),
      rows,
    };
  });
}

/** One line per claim table: claims, those with a killed generated mutant, mutants. */
export function formatTables(tables: NonNullable<MutationReport["byTable"]>): string {
  const w = Math.max(5, ...tables.map((t) => `${t.table} (${t.kind})`.length));
  return [
    `${"claim table (column)".padEnd(w)}  claims  killed  mutants`,
    ...tables.map(
      (t) =>
        `${`${t.table} (${t.kind})`.padEnd(w)}  ${String(t.claims).padStart(6)}  ${String(t.killed).padStart(6)}  ${String(t.rows.reduce((n, r) => n + r.mutants.length, 0)).padStart(7)}`,
    ),
  ].join("\n");
}

export function writeJson(path: string, data: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(data, null, 2) + "\n");
}

export function writeReport(path: string, report: MutationReport): void {
  writeJson(path, report);
}

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n - 1) + "…" : s);

/** A plain-text table: mutant, killed/survived, killing test(s) and their message. */
export function formatTable(results: MutantOutcome[]): string {
  const rows = results.map((r) => {
    const how =
      r.verdict === "killed"
        ? r.killers.map((k) => `${k.id} ${k.status}: ${clip(k.message ?? "", 110)}`).join("\n")
        : (r.problem ?? `named tests: ${r.ran.map((t) => `${t.id} ${t.status}`).join(", ") || "(none ran)"}`);
    return [r.name, r.verdict === "survived" ? "SURVIVED" : r.verdict, how];
  });
  const w0 = Math.max(6, ...rows.map((r) => r[0].length));
  const w1 = 10;
  const lines = [
    `${"mutant".padEnd(w0)}  ${"verdict".padEnd(w1)}  killing test(s) and message`,
    `${"-".repeat(w0)}  ${"-".repeat(w1)}  ${"-".repeat(40)}`,
  ];
  for (const [name, verdict, how] of rows) {
    const [first, ...rest] = how.split("\n");
    lines.push(`${name.padEnd(w0)}  ${verdict.padEnd(w1)}  ${first}`);
    for (const l of rest) lines.push(`${"".padEnd(w0)}  ${"".padEnd(w1)}  ${l}`);
  }
  const { killed, equivalent, score, byCell } = buildReport(results);
  const cells = Object.keys(byCell).length;
  lines.push(
    "",
    `${killed}/${results.length - equivalent} mutants killed (score ${score.toFixed(3)})${equivalent ? `, ${equivalent} equivalent on this target` : ""}${cells ? `; ${cells} claim cells with generated mutants` : ""}`,
  );
  return lines.join("\n");
}
