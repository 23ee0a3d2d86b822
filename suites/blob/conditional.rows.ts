// C Conditional requests in detail: the rows generated from the claim table
// (conditional-claims.ts). Each cell `<row>/conditional/<header>` sends the
// operation raw with a failing value of its header, then a holding one, on a
// resource another writer changed a second after this client read it. The
// `doc` cell `<row>/conditional` holds only when every header beneath it holds
// at `doc` level (status and state; the error code is a `rest` refinement).
import { expectNotEvaluated, expectRawStatus, expectSent, expectTrue } from "../../fixtures/harness/assert.ts";
import { DOC_LEVEL_NOTE, type RowContext, type RowDef, type RowResult } from "../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { judgeFinerRows } from "../../fixtures/harness/finer-rows.ts";
import { blobSource, containerSource, expectUnchanged, lastSent } from "./blob-kit.ts";
import {
  CLAIMS,
  cellsOf,
  conditionalAt,
  conditionalPlace,
  HEADER_LABEL,
  headerLabel,
  type Cell,
  type OpClaim,
} from "./conditional-claims.ts";
import { afterCopySettles, headerValue, history, type History } from "./conditional-kit.ts";
import { answer, conditionClaims, refusesNone, type ClaimedAnswer } from "../../fixtures/harness/claims.ts";
import { failingValues } from "../../model/answers.ts";
import { ACQUIRE } from "./lease-kit.ts";

const SPEC = "Specifying Conditional Headers for Blob Service Operations";
const sourceOf = (claim: OpClaim, detail: string) =>
  claim.row.startsWith("blob/container-ops/")
    ? containerSource(`${claim.operation}; ${detail}`)
    : blobSource(`${claim.operation}; ${detail}`);

/** Reads: If-None-Match and If-Modified-Since fail with 304, If-Match and If-Unmodified-Since with 412. */
const readRefusal = (cell: Cell) => (cell.header === "if-none-match" || cell.header === "if-modified-since" ? 304 : 412);

function send(t: RowContext, h: History, cell: Cell, value: string): Promise<RawResponse> {
  const req = cell.claim.request(h.subject);
  return t.raw("blob", { ...req, headers: { ...(req.headers ?? {}), [cell.wireHeader]: value } });
}

async function sent(t: RowContext, what: string, h: History, cell: Cell, value: string): Promise<RawResponse> {
  t.step(what);
  const res = await send(t, h, cell, value);
  expectSent(what, lastSent(), cell.wireHeader);
  return res;
}

/** A copy may answer 202 while still pending: the permitted copy is judged once it settled. */
const settled = (t: RowContext, h: History, cell: Cell) => (cell.claim.source ? afterCopySettles(t, () => h.read()) : h.read());

async function evaluatedWrite(t: RowContext, cell: Cell, h: History): Promise<void> {
  const op = cell.claim.operation;
  const base = await h.read();
  const what = `${op} with a failing ${cell.wireHeader}`;
  const refused = await sent(t, what, h, cell, headerValue(cell.header, true, h.before, h.after));
  // Writes never answer 304 (catalogue, C: live recordings), whatever the header.
  expectRawStatus(what, refused, { status: 412 });
  t.step("read back after the refused request");
  expectUnchanged(`${op} after the refused request`, base, await h.read());
  const permitted = await sent(t, `${op} with a holding ${cell.wireHeader}`, h, cell, headerValue(cell.header, false, h.before, h.after));
  const got = `${permitted.status} ${permitted.errorCode ?? ""}`.trim();
  expectTrue(`${op} with a holding ${cell.wireHeader}: expected success, got ${got}`, permitted.status >= 200 && permitted.status < 300, {
    expected: "success",
    got,
  });
  t.step("read back after the permitted request");
  expectTrue(
    `${op} with a holding ${cell.wireHeader}: not applied (${cell.claim.effect!.what})`,
    cell.claim.effect!.holds(await settled(t, h, cell)),
    { expected: "applied", got: "not applied" },
  );
  t.docLevelHolds();
  const code = cell.onSource ? cell.claim.source!.code : (cell.claim.code ?? "ConditionNotMet");
  expectRawStatus(`${what}: error code`, refused, { status: 412, code });
}

async function evaluatedRead(t: RowContext, cell: Cell, h: History): Promise<void> {
  const op = cell.claim.operation;
  const what = `${op} with a failing ${cell.wireHeader}`;
  const status = readRefusal(cell);
  const refused = await sent(t, what, h, cell, headerValue(cell.header, true, h.before, h.after));
  expectRawStatus(what, refused, { status });
  if (status === 304) expectTrue(`${what}: the 304 has a body`, refused.body === "");
  const holding = `${op} with a holding ${cell.wireHeader}`;
  const res = await sent(t, holding, h, cell, headerValue(cell.header, false, h.before, h.after));
  expectRawStatus(holding, res, { status: 200 });
  // "200 with the current state": the ETag the other writer left, and what else the read returns.
  expectTrue(`${holding}: the ETag answered is not the current one`, res.headers["etag"] === h.after.etag);
  const reply = cell.claim.reply;
  if (reply) expectTrue(`${holding}: not the current state (${reply.what})`, reply.holds(res, h.after));
  t.docLevelHolds();
  if (status === 412) expectRawStatus(`${what}: error code`, refused, { status, code: "ConditionNotMet" });
}

/** A "no" cell: the failing header goes on the wire and is not evaluated; what the target did shows in the state. */
async function notEvaluated(t: RowContext, cell: Cell, h: History): Promise<void> {
  const op = cell.claim.operation;
  const base = cell.claim.kind === "write" ? await h.read() : undefined;
  const what = `${op} with a failing ${cell.wireHeader}`;
  const res = await sent(t, what, h, cell, headerValue(cell.header, true, h.before, h.after));
  const outcome = expectNotEvaluated(what, res.status);
  t.note(cell.wireHeader, outcome);
  if (base && cell.claim.effect) {
    t.step("read back");
    const after = await h.read();
    if (outcome === "ignored")
      expectTrue(`${what}: answered ${res.status} but not applied (${cell.claim.effect.what})`, cell.claim.effect.holds(after), {
        expected: "applied",
        got: "not applied",
      });
    else expectUnchanged(`${op} after the rejected request`, base, after);
  }
  t.docLevelHolds();
}

async function runCell(t: RowContext, cell: Cell): Promise<void> {
  const h = await history(t, cell);
  if (!cell.evaluated) return notEvaluated(t, cell, h);
  return cell.claim.kind === "read" ? evaluatedRead(t, cell, h) : evaluatedWrite(t, cell, h);
}

/** A placeholder subject: enough for the request classifier to name a record's request. */
const ANY = { container: "c", blob: "b", sourceUrl: "https://a.blob.core.windows.net/c/s", copyId: "0" };

/** What the cell claims Azure answers, as data (fixtures/harness/claims.ts): its failing and holding header, on a fresh resource. */
function answersOf(cell: Cell): ClaimedAnswer[] {
  const { claim } = cell;
  const request = claim.request(ANY);
  const of = cell.onSource
    ? {}
    : {
        lease: "available" as const,
        exists: !claim.creates,
        ...(claim.slug === "lease-container" || claim.slug === "lease-blob" ? { also: ACQUIRE } : {}),
      };
  if (!cell.evaluated)
    return [refusesNone("blob", request, { ...of, params: { [cell.wireHeader]: failingValues(cell.header) } }, [304, 412])];
  const code = cell.onSource ? claim.source!.code : (claim.code ?? "ConditionNotMet");
  const refused = claim.kind === "read" && readRefusal(cell) === 304 ? [answer(304)] : [answer(412, code)];
  return conditionClaims("blob", request, cell.wireHeader, refused, of);
}

function cellRow(cell: Cell): RowDef {
  const { claim } = cell;
  const refusal = !cell.evaluated
    ? "not evaluated (neither 304 nor 412)"
    : claim.kind === "read"
      ? `refused with ${readRefusal(cell)}`
      : "refused with 412, the resource unchanged";
  return {
    id: cell.id,
    claim: conditionalAt(claim),
    title: `${claim.operation}: a failing ${cell.wireHeader} is ${refusal}${cell.evaluated ? "; a holding one succeeds" : ""}`,
    level: "rest",
    source: sourceOf(claim, cell.onSource ? "x-ms-source-if-* headers" : SPEC),
    service: "blob",
    // The one-second gap between the two writers: start at once, beside everything else.
    waitSeconds: 1,
    matrix: conditionalPlace(claim, headerLabel(cell)),
    answers: answersOf(cell),
    run: (t) => runCell(t, cell),
  };
}

const label = (r: RowResult) => r.id.slice(r.id.lastIndexOf("/") + 1);
const holdsAtDoc = (r: RowResult) => r.observed === "PASS" || r.notes[DOC_LEVEL_NOTE] === "holds";

/** The `doc` cell: every header beneath it holds at `doc` level. */
async function everyHeaderHolds(t: RowContext): Promise<void> {
  for (const r of t.derived)
    t.note(
      label(r),
      holdsAtDoc(r) ? (r.observed === "PASS" ? "PASS" : `holds at doc level; rest: ${r.message}`) : `${r.observed}: ${r.message ?? ""}`,
    );
  judgeFinerRows(t, label, holdsAtDoc);
}

/** The `<row>/conditional` cell of T1/T2 for a claim, computed from its header rows. */
export function conditionalCellRow(claim: OpClaim): RowDef {
  const cells = cellsOf(claim);
  return {
    id: `${claim.row}/conditional`,
    claim: conditionalAt(claim),
    title: `${claim.operation} ${claim.conditional ? "evaluates" : "does not evaluate"} conditional headers (${cells.map((c) => (c.onSource ? "source " : "") + HEADER_LABEL[c.header]).join(", ")})`,
    level: "doc",
    source: sourceOf(claim, SPEC),
    service: "blob",
    derivedFrom: cells.map((c) => c.id),
    matrix: conditionalPlace(claim),
    answers: cells.flatMap(answersOf),
    run: everyHeaderHolds,
  };
}

defineTable(
  { table: "C Conditional requests (per header)", service: "blob" },
  CLAIMS.flatMap((c) => cellsOf(c).map(cellRow)),
);
// The seed's cells, in their own tables.
for (const [table, prefix] of [
  ["T1 Container operations", "blob/container-ops/"],
  ["T2 Blob operations", "blob/blob-ops/"],
]) {
  defineTable({ table, service: "blob" }, CLAIMS.filter((c) => c.row.startsWith(prefix)).map(conditionalCellRow));
}
