// S The whole concurrency surface, blob side: a row per (operation,
// parameter) pair no row of another section sends both holding and failing,
// `blob/surface/<operation>/<parameter>`. Each sends the record's request raw
// with a failing value of the parameter, reads the subject back unchanged
// (a write), then a holding value, and checks the permitted request's effect
// (a write) or answer (a read); the refusal's code last (`rest`). A blob's
// lease ID cell also shows the rest of L's rule (surface-kit.ts
// carriesWholeLeaseRule): on a finite lease too, without any ID, and an ID on
// an unleased blob.
import { eachVariation, expectRawStatus, expectSent, expectTrue } from "../../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../../fixtures/harness/engine.ts";
import { defineTable } from "../../../fixtures/harness/registry.ts";
import type { RawResponse } from "../../../fixtures/wire/raw.ts";
import { notAvailable } from "../../../fixtures/wire/signals.ts";
import { expectUnchanged, lastSent } from "../blob-kit.ts";
import { expectOk } from "../rest-kit.ts";
import {
  answersOfCell,
  carriesWholeLeaseRule,
  cellsOf,
  FINITE_LEASE,
  MISSING,
  NOT_PRESENT,
  stateOf,
  subjectOf,
  valuesOf,
  type SurfaceCell,
} from "./surface-kit.ts";
import { SURFACE_OPS, surfaceOpAt, type SurfaceState, type SurfaceSubject } from "./surface-ops.ts";

const SOURCE = "Section S: every operation honours every concurrency parameter it takes";

async function send(t: RowContext, what: string, cell: SurfaceCell, s: SurfaceSubject, value: string): Promise<RawResponse> {
  t.step(what);
  const req = cell.op.request(s);
  const res = await t.raw("blob", { ...req, headers: { ...(req.headers ?? {}), [cell.parameter]: value } });
  expectSent(what, lastSent(), cell.parameter);
  return res;
}

/**
 * Rename Container is an account feature (catalogue S, Live corrections): an
 * account without it answers 400 InvalidQueryParameterValue to comp=rename.
 * Asked of a container of the row's own, unleased, before the cell's requests.
 */
async function renameAvailable(t: RowContext): Promise<void> {
  const c = await t.newContainer();
  t.step("Rename Container of an unleased container (is the feature there?)");
  const res = await t.raw("blob", {
    method: "PUT",
    path: `/${t.name("c")}`,
    query: { restype: "container", comp: "rename" },
    headers: { "x-ms-source-container-name": c.containerName },
  });
  if (res.status === 400 && res.errorCode === "InvalidQueryParameterValue")
    notAvailable("the account has no Rename Container (400 InvalidQueryParameterValue to comp=rename): an account feature");
  expectOk("Rename Container of an unleased container", res);
}

/**
 * One subject's requests: a failing value (read back unchanged, on a write);
 * on a whole-rule lease ID cell, then none at all; then a holding value and
 * its effect; the failing value's code last. `lease`: the subject's lease
 * (named in the steps when it is not the infinite one every cell holds).
 */
async function runCell(t: RowContext, cell: SurfaceCell, lease: number = -1): Promise<void> {
  const { op, parameter, refusal } = cell;
  if (op.slug === "rename-container") await renameAvailable(t);
  const s = await subjectOf(t, cell, lease);
  const on = lease === -1 ? "" : ` (${lease} s lease)`;
  t.step(`read the subject${on}`);
  const before = await stateOf(t, op, s);
  const { failing, holding } = valuesOf(cell, before);
  const what = `${op.operation} with a failing ${parameter}${on}`;
  const refused = await send(t, what, cell, s, failing);
  if (cell.disputed)
    t.note(`${what} (disputed: refused ${refusal.status}, or ignored)`, `${refused.status} ${refused.errorCode ?? ""}`.trim());
  const ignored = !!cell.disputed && refused.status >= 200 && refused.status < 300;
  if (!ignored) {
    expectRawStatus(what, refused, { status: refusal.status });
    await expectNotApplied(t, cell, s, before, `the refused request${on}`);
  }
  if (carriesWholeLeaseRule(cell)) await withoutId(t, cell, s, before, on);
  const held = `${op.operation} with a holding ${parameter}${on}`;
  const permitted = await send(t, held, cell, s, holding);
  expectOk(held, permitted);
  if (op.kind === "write") t.step(`read back after the permitted request${on}`);
  expectEffect(held, cell, op.kind === "write" ? await stateOf(t, op, s) : before, permitted);
  if (!refusal.code.length || ignored) return;
  // Its own step, so a wrong code is not reported as the read-back's failure.
  t.step(`${what}: its error code`);
  expectRawStatus(`${what}: error code`, refused, refusal);
}

/** A refused write, read back unchanged (a read changes nothing: none to read back). `after`: what was refused. */
async function expectNotApplied(t: RowContext, cell: SurfaceCell, s: SurfaceSubject, before: SurfaceState, after: string): Promise<void> {
  if (cell.op.kind !== "write") return;
  t.step(`read back after ${after}`);
  expectUnchanged(`${cell.op.operation} after ${after}`, before, await stateOf(t, cell.op, s));
}

/** A permitted request's effect, in the subject read back (a write) or in its answer (a read). */
function expectEffect(what: string, cell: SurfaceCell, state: SurfaceState, res: RawResponse): void {
  const { op } = cell;
  expectTrue(`${what}: not ${op.kind === "write" ? "applied" : "answered"} (${op.effect.what})`, op.effect.holds(state, res), {
    expected: op.effect.what,
    got: "not so",
  });
}

/** The leased subject's request without any lease ID: a write refused (412 LeaseIdMissing) and read back unchanged, a read let through. */
async function withoutId(t: RowContext, cell: SurfaceCell, s: SurfaceSubject, before: SurfaceState, on: string): Promise<void> {
  const { op } = cell;
  const what = `${op.operation} without a lease ID on the leased blob${on}`;
  t.step(what);
  const res = await t.raw("blob", op.request(s));
  if (op.kind === "read") {
    expectOk(what, res);
    return expectEffect(what, cell, before, res);
  }
  expectRawStatus(what, res, MISSING);
  await expectNotApplied(t, cell, s, before, `the request without a lease ID${on}`);
}

/** An ID on the subject without a lease: refused 412 LeaseNotPresentWithBlobOperation, and read back unchanged (a write). */
async function onUnleased(t: RowContext, cell: SurfaceCell): Promise<void> {
  const { op } = cell;
  const s = await subjectOf(t, cell, "none");
  t.step("read the unleased subject");
  const before = await stateOf(t, op, s);
  const what = `${op.operation} with a lease ID on an unleased blob`;
  expectRawStatus(what, await send(t, what, cell, s, valuesOf(cell, before).failing), NOT_PRESENT);
  await expectNotApplied(t, cell, s, before, "the request with a lease ID on an unleased blob");
}

/** A whole-rule lease ID cell: the infinite lease's requests (every cell's), a finite lease's and the unleased blob's, side by side. */
const runWholeLeaseRule = (t: RowContext, cell: SurfaceCell) =>
  eachVariation(
    [
      { label: "an infinite lease", run: () => runCell(t, cell) },
      { label: `a ${FINITE_LEASE} s lease`, run: () => runCell(t, cell, FINITE_LEASE) },
      { label: "an unleased blob", run: () => onUnleased(t, cell) },
    ],
    { together: true },
  );

function cellRow(cell: SurfaceCell): RowDef {
  const { op, parameter, refusal } = cell;
  const answer = `${refusal.status}${refusal.code.length ? ` ${refusal.code.join(" or ")}` : ""}`;
  return {
    id: cell.id,
    claim: surfaceOpAt(op),
    title: `${op.operation}: a failing ${parameter} is refused ${answer}${cell.disputed ? " or ignored (disputed)" : ""}${op.kind === "write" ? ", the subject unchanged" : ""}; a holding one succeeds${carriesWholeLeaseRule(cell) ? `; no lease ID at all ${op.kind === "write" ? "is refused 412 LeaseIdMissing" : "is let through"}; on an infinite and a ${FINITE_LEASE} s lease; an ID on an unleased blob 412 LeaseNotPresentWithBlobOperation` : ""}`,
    level: cell.disputed ? "disputed" : "rest",
    source: `REST: ${op.operation}; ${SOURCE}${cell.disputed ? `; disputed: ${cell.disputed}` : ""}`,
    service: "blob",
    surface: [{ operation: op.operation, parameter }],
    answers: answersOfCell(cell),
    run: (t) => (carriesWholeLeaseRule(cell) ? runWholeLeaseRule(t, cell) : runCell(t, cell)),
  };
}

export const SURFACE_CELLS: SurfaceCell[] = SURFACE_OPS.flatMap(cellsOf);

defineTable({ table: "S The whole concurrency surface", service: "blob" }, SURFACE_CELLS.map(cellRow));
