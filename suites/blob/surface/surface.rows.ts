// S The whole concurrency surface, blob side: a row per (operation,
// parameter) pair no row of another section sends both holding and failing,
// `blob/surface/<operation>/<parameter>`. Each sends the record's request raw
// with a failing value of the parameter, reads the subject back unchanged
// (a write), then a holding value, and checks the permitted request's effect
// (a write) or answer (a read); the refusal's code last (`rest`).
import { expectRawStatus, expectSent, expectTrue } from "../../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../../fixtures/harness/engine.ts";
import { defineTable } from "../../../fixtures/harness/registry.ts";
import type { RawResponse } from "../../../fixtures/wire/raw.ts";
import { notAvailable } from "../../../fixtures/wire/signals.ts";
import { expectUnchanged, lastSent } from "../blob-kit.ts";
import { expectOk } from "../rest-kit.ts";
import { answersOfCell, cellsOf, stateOf, subjectOf, valuesOf, type SurfaceCell } from "./surface-kit.ts";
import { SURFACE_OPS, surfaceOpAt, type SurfaceSubject } from "./surface-ops.ts";

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

async function runCell(t: RowContext, cell: SurfaceCell): Promise<void> {
  const { op, parameter, refusal } = cell;
  if (op.slug === "rename-container") await renameAvailable(t);
  const s = await subjectOf(t, cell);
  t.step("read the subject");
  const before = await stateOf(t, op, s);
  const { failing, holding } = valuesOf(cell, before);
  const what = `${op.operation} with a failing ${parameter}`;
  const refused = await send(t, what, cell, s, failing);
  if (cell.disputed)
    t.note(`${what} (disputed: refused ${refusal.status}, or ignored)`, `${refused.status} ${refused.errorCode ?? ""}`.trim());
  const ignored = !!cell.disputed && refused.status >= 200 && refused.status < 300;
  if (!ignored) expectRawStatus(what, refused, { status: refusal.status });
  if (op.kind === "write" && !ignored) {
    t.step("read back after the refused request");
    expectUnchanged(`${op.operation} after the refused request`, before, await stateOf(t, op, s));
  }
  const held = `${op.operation} with a holding ${parameter}`;
  const permitted = await send(t, held, cell, s, holding);
  expectOk(held, permitted);
  if (op.kind === "write") t.step("read back after the permitted request");
  const after = op.kind === "write" ? await stateOf(t, op, s) : before;
  expectTrue(`${held}: not ${op.kind === "write" ? "applied" : "answered"} (${op.effect.what})`, op.effect.holds(after, permitted), {
    expected: op.effect.what,
    got: "not so",
  });
  if (!refusal.code.length || ignored) return;
  // Its own step, so a wrong code is not reported as the read-back's failure.
  t.step(`${what}: its error code`);
  expectRawStatus(`${what}: error code`, refused, refusal);
}

function cellRow(cell: SurfaceCell): RowDef {
  const { op, parameter, refusal } = cell;
  const answer = `${refusal.status}${refusal.code.length ? ` ${refusal.code.join(" or ")}` : ""}`;
  return {
    id: cell.id,
    claim: surfaceOpAt(op),
    title: `${op.operation}: a failing ${parameter} is refused ${answer}${cell.disputed ? " or ignored (disputed)" : ""}${op.kind === "write" ? ", the subject unchanged" : ""}; a holding one succeeds`,
    level: cell.disputed ? "disputed" : "rest",
    source: `REST: ${op.operation}; ${SOURCE}${cell.disputed ? `; disputed: ${cell.disputed}` : ""}`,
    service: "blob",
    surface: [{ operation: op.operation, parameter }],
    answers: answersOfCell(cell),
    run: (t) => runCell(t, cell),
  };
}

export const SURFACE_CELLS: SurfaceCell[] = SURFACE_OPS.flatMap(cellsOf);

defineTable({ table: "S The whole concurrency surface", service: "blob" }, SURFACE_CELLS.map(cellRow));
