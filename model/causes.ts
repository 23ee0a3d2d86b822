// Causes: the few answers that decided most non-PASS rows. On a young
// emulator one missing operation, one error-body format or one missing
// header decides hundreds of cells; grouping the non-PASS rows by the answer
// that decided them (the REST operation, its status and error code, what was
// wrong with it, and the kind of step) says so before any table does. Pure:
// it reads results only (their unsupported operations, server faults,
// failure data and evidence).
import type { Cause, Exchange, FailureSignature, RowResult } from "./result.ts";
import { inconclusiveReason } from "./lacking.ts";

export type { Cause } from "./result.ts";

type Key = Omit<Cause, "rank" | "rows">;

/** The kind of step a failure's step label names. */
function stepKind(step: string | undefined): string {
  // The history a conditional cell stands on (this client reads, another writer changes it) is setup too.
  if (!step || /setup|this client|another writer|prepare/i.test(step)) return "setup";
  if (/read.*back|after the refused|unchanged|still/i.test(step)) return "read-back";
  return "the claim's request";
}

/**
 * The answer a failure is about: in the failure's step (else the row's), the
 * last answer with the status the failure got, else the last request that
 * was not a plain read (the write a read-back judged, the change a setup
 * check relied on), else the last answer.
 */
export function decidingExchange(evidence: Exchange[], failure: FailureSignature | undefined): Exchange | undefined {
  const answered = evidence.filter((x) => x.status !== undefined && !x.poll && !x.retried);
  const step = failure?.step;
  const inStep = step ? answered.filter((x) => x.step === step) : [];
  const pool = [...(inStep.length ? inStep : answered)].reverse();
  const status = Number(/\b([1-5]\d\d)\b/.exec(failure?.got ?? "")?.[1]);
  return pool.find((x) => x.status === status) ?? pool.find((x) => x.method !== "GET" && x.method !== "HEAD") ?? pool[0];
}

/**
 * The reason a row had no verdict, as shared by others: "no pending copy to abort: the target completed the
 * copy at once" and "if-match: the target completed the copy at once" are one reason, so are "versioning is
 * off: Put Blob answered no x-ms-version-id" and "versioning is off".
 */
function reasonOf(message: string): string {
  const clauses = message.replace(/\(.*$/s, "").trim().split(": ");
  return clauses.find((c) => /\bthe target\b/.test(c)) ?? clauses[0];
}

const opName = (x: Exchange | undefined) => x?.operation ?? (x ? `${x.method} request` : "");

/** What decided one row, or nothing for a PASS (and a derived row, decided by its finer rows: see causesOf). */
export function causeKeyOf(r: RowResult): Key | undefined {
  switch (r.observed) {
    case "PASS":
      return undefined;
    case "UNSUPPORTED": {
      const u = r.unsupported?.[0];
      return { operation: u?.operation ?? "", status: u?.status, code: u?.code, problem: "not implemented", step: "any" };
    }
    case "NOT_AVAILABLE":
    case "MANUAL":
    case "PRECONDITION_FAILED":
      return { operation: "", problem: reasonOf(r.message ?? r.observed), step: "setup" };
    case "ERROR":
      return { operation: "", problem: "the suite's own error (please report it)", step: "any" };
    case "INCONCLUSIVE": {
      const lost = [...r.evidence].reverse().find((x) => x.transportError || (x.status !== undefined && x.status >= 500));
      return { operation: opName(lost), problem: inconclusiveReason(r.message ?? ""), step: "any" };
    }
  }
  const fault = r.faults?.[0];
  if (fault)
    return { operation: fault.operation, status: fault.status, code: fault.code, problem: "a server error on every try", step: "any" };
  const f = r.failure ?? {};
  const got = /^(.+): (\d{3})(?: (\S+))?$/.exec(f.got ?? "");
  if (got && f.expected === "success")
    return {
      operation: got[1],
      status: Number(got[2]),
      code: got[3],
      problem: Number(got[2]) >= 300 ? "refused where the row needed it to succeed" : "not the success the row needed",
      step: stepKind(f.step),
    };
  if (f.expected === "an answer the SDK can read") {
    const read = [...r.evidence]
      .reverse()
      .find((x) => x.status !== undefined && !x.poll && (x.step === f.step || !f.step) && (x.method === "GET" || x.method === "HEAD"));
    return {
      operation: opName(read),
      status: read?.status,
      code: read?.errorCode,
      problem: "an answer the SDK could not read",
      step: stepKind(f.step),
    };
  }
  const x = decidingExchange(r.evidence, r.failure);
  const problem =
    f.expected !== undefined || f.got !== undefined
      ? `expected ${f.expected ?? "?"}, got ${f.got ?? "?"}`
      : (r.signature ?? r.message ?? "failed").replace(/ \(step "[^"]*": .* answered .*\)$/, "");
  return { operation: opName(x), status: x?.status, code: x?.errorCode, problem, step: stepKind(f.step) };
}

/**
 * What groups a row with others. An operation the target lacks, a request it
 * refused where the row needed success, an answer the SDK could not read:
 * that operation's answer (operation, status, code, step kind). A shape of
 * answer that recurs whatever the operation (no error code where one was
 * expected, a header missing, a malformed or other form of a value, a
 * refusal answered with success, a status in place of another): that shape,
 * the operations listed. Rows no answer decided: the services not served, as
 * one; a feature off, by its reason.
 */
function groupOf(k: Key): string {
  // Services the target does not serve: one fact about the target, however many services.
  if (!k.operation && NOT_SERVED.test(k.problem)) return JSON.stringify(["not served"]);
  if (!k.operation) return JSON.stringify(["reason", k.problem]);
  const m = /^expected (.+), got (.+)$/.exec(k.problem);
  // The same answer whichever step met it (the step is shown, or "any" for several).
  const answer = JSON.stringify(["answer", k.operation, k.status ?? null, k.code ?? null]);
  if (!m || /^(not implemented|refused|not the success|an answer the SDK)/.test(k.problem)) return answer;
  const [, expected, got] = m;
  // A refusal where the row needed success, however the check said it.
  if (expected === "success" && /^[3-5]\d\d\b/.test(got)) return answer;
  // What was missing, not the value wanted ("lease state leased", "a new ETag": the lease state, the ETag).
  if (got === "none") return JSON.stringify(["lacks", missingOf(expected)]);
  // A refusal the claim needed (a failing condition, a wrong or missing lease ID), answered with success
  // instead: the status the refusal needed, whichever error code and whichever success code.
  if (/^(2\d\d|success)$/.test(got) && /^[3-5]\d\d\b/.test(expected)) return JSON.stringify(["not refused", expected.slice(0, 3), k.step]);
  if (got === "another form" || got === "malformed") return JSON.stringify(["form", expected, got]);
  // The status expected, with no error code: the answer carried none the SDK could read.
  if (/^\d{3}$/.test(got) && /^\S+$/.test(expected.slice(got.length + 1)) && expected.startsWith(`${got} `))
    return JSON.stringify(["no code", k.step]);
  // One status in place of another: the same answer whichever step met it.
  return JSON.stringify(["status", k.status ?? null, k.code ?? null, expected.split(" ")[0]]);
}

const NOT_SERVED = /^the target does not serve the (\w+) service$/;

/** Headers a check may find missing, named in what it expected. */
const HEADERS = [
  "lease state",
  "lease status",
  "lease duration",
  "ETag",
  "Last-Modified",
  "Date",
  "x-ms-lease-time",
  "x-ms-lease-id",
  "x-ms-time-next-visible",
  "x-ms-popreceipt",
  "x-ms-copy-status",
  "x-ms-snapshot",
  "x-ms-version-id",
];

/** The header a check expected and found missing ("a new ETag", "the resource's Last-Modified, as read": ETag, Last-Modified); else its words. */
function missingOf(expected: string): string {
  return HEADERS.find((h) => new RegExp(`(^|[^\\w-])${h}\\b`, "i").test(expected)) ?? expected.split(" ").slice(0, 2).join(" ");
}

/** Operations, most rows first: "Put Blob, Get Blob and 3 more". */
function operationsOf(ops: Map<string, number>): string {
  const sorted = [...ops].sort((a, b) => b[1] - a[1]).map(([op]) => op);
  return sorted.length <= 3 ? sorted.join(", ") : `${sorted.slice(0, 3).join(", ")} and ${sorted.length - 3} more`;
}

/**
 * The causes of a run's non-PASS rows, most rows first. A row computed from
 * finer rows (a T1/T2 cell) takes the cause of the first finer row that
 * failed; a row whose cause cannot be told is its own.
 */
export function causesOf(results: RowResult[]): Cause[] {
  const byId = new Map(results.map((r) => [r.id, r]));
  const groups = new Map<
    string,
    { key: Key; problems: Map<string, number>; ops: Map<string, number>; steps: Set<string>; rows: string[] }
  >();
  for (const r of results) {
    if (r.observed === "PASS") continue;
    const finer = r.failure?.failed?.map((label) => byId.get(`${r.id}/${label}`)).find((x) => x && x.observed !== "PASS");
    const key = (finer && causeKeyOf(finer)) ?? causeKeyOf(r);
    if (!key) continue;
    const text = groupOf(key);
    const g = groups.get(text) ?? {
      key,
      problems: new Map<string, number>(),
      ops: new Map<string, number>(),
      steps: new Set<string>(),
      rows: [] as string[],
    };
    g.steps.add(key.step);
    g.problems.set(key.problem, (g.problems.get(key.problem) ?? 0) + 1);
    if (key.operation) g.ops.set(key.operation, (g.ops.get(key.operation) ?? 0) + 1);
    g.rows.push(r.id);
    groups.set(text, g);
  }
  return [...groups.values()]
    .map(({ key, problems, ops, steps, rows }) => ({
      rank: 0,
      ...key,
      ...(steps.size > 1 ? { step: "any" } : {}),
      ...(ops.size > 1 ? { operation: operationsOf(ops), status: undefined, code: undefined } : {}),
      problem: notServed(problems) ?? notRefused(problems) ?? mostCommon(problems, rows.length),
      rows,
    }))
    .sort((a, b) => b.rows.length - a.rows.length || a.operation.localeCompare(b.operation))
    .map((c, i) => ({ ...c, rank: i + 1 }));
}

/** The services a "not served" group stands for, in one problem: "the target does not serve the queue and table services". */
function notServed(problems: Map<string, number>): string | undefined {
  const services = [...problems].sort((a, b) => b[1] - a[1]).map(([p]) => NOT_SERVED.exec(p)?.[1]);
  if (!services.every(Boolean) || services.length < 2) return undefined;
  return `the target does not serve the ${services.slice(0, -1).join(", ")} and ${services.at(-1)} services`;
}

/** A "not refused" group of several checks, in one problem: "expected 412, got success (7 checks: 412 ConditionNotMet, …)". */
function notRefused(problems: Map<string, number>): string | undefined {
  const wanted = [...problems].map(([p, n]) => [/^expected (.+), got (2\d\d|success)$/.exec(p)?.[1], n] as const);
  if (wanted.length < 2 || !wanted.every(([w]) => w)) return undefined;
  const refusals = [...new Set(wanted.sort((a, b) => b[1] - a[1]).map(([w]) => w!))];
  const shown = refusals.length <= 3 ? refusals.join(", ") : `${refusals.slice(0, 3).join(", ")} and ${refusals.length - 3} more`;
  return `expected ${refusals[0].slice(0, 3)}, got success (${refusals.length > 1 ? `refusals expected: ${shown}` : `${problems.size} checks`})`;
}

/** The most common problem of a group, and how many others it stands for. */
function mostCommon(problems: Map<string, number>, rows: number): string {
  const [top, n] = [...problems].sort((a, b) => b[1] - a[1])[0];
  return n === rows ? top : `${top} (and ${problems.size - 1} other check${problems.size > 2 ? "s" : ""} on the same answer)`;
}

/** A cause in one line: `Get Blob Properties answered 405 (no error code): not implemented (setup)`. */
export function showCause(c: Cause): string {
  const answer = c.status !== undefined ? ` answered ${c.status} ${c.code ?? "(no error code)"}` : "";
  const step = c.step !== "any" && !c.problem.endsWith(`(${c.step})`) ? ` (${c.step})` : "";
  return `${c.operation ? `${c.operation}${answer}: ` : ""}${c.problem}${step}`;
}

/** The rank of the cause that decided each non-PASS row. */
export function causeOfRow(causes: Cause[]): Map<string, number> {
  return new Map(causes.flatMap((c) => c.rows.map((id) => [id, c.rank] as const)));
}
