// X-S Page-blob sequence numbers: the generated cells (Put Page update or
// clear × if-le, if-lt, if-eq, each at both boundary values) and the rows on
// the optimistic flow and the sequence-number actions of Set Blob Properties.
import { expectEqual, expectRawStatus, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext } from "../../fixtures/harness/engine.ts";
import { defineMatrix, defineTable } from "../../fixtures/harness/registry.ts";
import { expectUnchanged } from "./blob-kit.ts";
import { N, SEQUENCE_CELLS, SEQUENCE_CONDITIONS, type SequenceCell } from "./page-sequence-claims.ts";
import { contentDigest, expectOk, refOf, restRow, sendRaw, viewOf, type BlobRef } from "./rest-kit.ts";
import { answer, claimOn, SUCCESS } from "../../fixtures/harness/claims.ts";

const PUT_PAGE = "Put Page (x-ms-if-sequence-number-le/-lt/-eq)";
const SET_PROPERTIES = "Set Blob Properties (x-ms-sequence-number-action)";
const OLD = "p".repeat(512);
const NEW = "q".repeat(512);
const ZEROS = "\0".repeat(512);
const SEQUENCE = "x-ms-blob-sequence-number";

/** A 1 KiB page blob whose first page is written and whose sequence number is N. */
async function pageBlob(t: RowContext): Promise<BlobRef> {
  const c = await t.newContainer();
  const name = t.name("b");
  const b = c.getPageBlobClient(name);
  await b.create(1024);
  await b.uploadPages(OLD, 0, 512);
  const ref = refOf(c, name);
  expectOk(`Set Blob Properties: sequence number ${N}`, await setSequence(t, ref, "update", N));
  return ref;
}

const setSequence = (t: RowContext, ref: BlobRef, action: string, value?: number) =>
  sendRaw(t, `Set Blob Properties, x-ms-sequence-number-action: ${action}${value === undefined ? "" : " " + value}`, ref, {
    method: "PUT",
    query: { comp: "properties" },
    headers: { "x-ms-sequence-number-action": action, ...(value === undefined ? {} : { [SEQUENCE]: String(value) }) },
  });

/** Put Page, update (the second page) or clear (the first). */
function pageWrite(t: RowContext, what: string, ref: BlobRef, write: "update" | "clear", headers: Record<string, string>) {
  return sendRaw(t, what, ref, {
    method: "PUT",
    query: { comp: "page" },
    headers: { "x-ms-page-write": write, "x-ms-range": write === "update" ? "bytes=512-1023" : "bytes=0-511", ...headers },
    ...(write === "update" ? { body: NEW } : {}),
  });
}

const written = (write: "update" | "clear") => contentDigest(write === "update" ? OLD + NEW : ZEROS + ZEROS);

async function runCell(t: RowContext, cell: SequenceCell): Promise<void> {
  const { write, condition } = cell;
  const ref = await pageBlob(t);
  const base = await viewOf(t, ref, "read the blob (this client)");
  expectEqual("the sequence number set", base.sequenceNumber, String(N));
  const failing = `${write.operation} (${write.write}) with ${condition.header}: ${condition.fails} (number ${N})`;
  expectRawStatus(failing, await pageWrite(t, failing, ref, write.write, { [condition.header]: String(condition.fails) }), {
    status: 412,
    code: "SequenceNumberConditionNotMet",
  });
  expectUnchanged(`${failing}: the blob read back`, base, await viewOf(t, ref));
  const holding = `${write.operation} (${write.write}) with ${condition.header}: ${condition.holds} (number ${N})`;
  const res = await pageWrite(t, holding, ref, write.write, { [condition.header]: String(condition.holds) });
  expectOk(holding, res, 201);
  expectEqual(`${holding}: ${SEQUENCE}`, res.headers[SEQUENCE], String(N));
  const after = await viewOf(t, ref);
  expectTrue(
    `${holding}: the pages read back are not the ones ${write.write === "update" ? "written" : "cleared"}`,
    after.content === written(write.write),
  );
}

const cells = SEQUENCE_CELLS.map((cell) =>
  restRow(
    cell.id,
    `${cell.write.operation} (${cell.write.write}) with ${cell.condition.header}: the number ${cell.condition.sign} the value proceeds (201), otherwise 412 SequenceNumberConditionNotMet, unchanged`,
    PUT_PAGE,
    (t) => runCell(t, cell),
    {
      claim: cell.at,
      matrix: [
        {
          section: "X-S-page-sequence",
          row: `${cell.write.operation} (x-ms-page-write: ${cell.write.write})`,
          column: cell.condition.slug,
          claim: "412 SequenceNumberConditionNotMet",
        },
      ],
      answers: (["fails", "holds"] as const).map((v) =>
        claimOn(
          "blob",
          { method: "PUT", path: "/c/b", query: { comp: "page" }, headers: { "x-ms-page-write": cell.write.write } },
          { params: { [cell.condition.header]: v }, lease: "available" },
          v === "fails" ? [answer(412, "SequenceNumberConditionNotMet")] : SUCCESS,
        ),
      ),
    },
  ),
);

/** A Set Blob Properties action: the number it leaves, in its answer and read back, and whether the ETag moved. */
async function action(t: RowContext, ref: BlobRef, name: string, value: number | undefined, expected: number) {
  const before = await viewOf(t, ref, "read the blob");
  const what = `Set Blob Properties, ${name}${value === undefined ? "" : " " + value} on number ${before.sequenceNumber ?? "none"}`;
  const res = await setSequence(t, ref, name, value);
  expectOk(what, res, 200);
  expectEqual(`${what}: ${SEQUENCE} answered`, res.headers[SEQUENCE], String(expected));
  const after = await viewOf(t, ref);
  expectEqual(`${what}: ${SEQUENCE} read back`, after.sequenceNumber, String(expected));
  return { what, changed: after.etag !== before.etag };
}

/**
 * update or max without x-ms-blob-sequence-number (X-S, disputed): refused
 * with 400 and the blob unchanged, or 200 with the number unchanged.
 */
async function actionWithoutNumber(t: RowContext, name: "update" | "max"): Promise<void> {
  const ref = await pageBlob(t);
  const base = await viewOf(t, ref, "read the blob");
  const what = `Set Blob Properties, ${name} without a number`;
  const res = await setSequence(t, ref, name, undefined);
  const answer = `${res.status}${res.errorCode ? " " + res.errorCode : ""}`;
  expectTrue(`${what}: expected 400 or 200, got ${answer}`, res.status === 400 || res.status === 200, {
    expected: "400 or 200",
    got: answer,
  });
  t.note("disputed", res.status === 400 ? `refused: ${answer}` : "accepted (200), the number unchanged");
  const after = await viewOf(t, ref);
  if (res.status === 400) return expectUnchanged(`${what}: the blob read back`, base, after);
  if (res.headers[SEQUENCE] !== undefined) expectEqual(`${what}: ${SEQUENCE} answered`, res.headers[SEQUENCE], String(N));
  expectEqual(`${what}: ${SEQUENCE} read back`, after.sequenceNumber, String(N));
}

const withoutNumberTitle = (name: string) =>
  `Set Blob Properties, ${name} without a number: 400 (the blob unchanged) or 200 with the number unchanged; either way the number reads back N, and the report shows which`;
const WITHOUT_NUMBER_SOURCE = `${SET_PROPERTIES}; disputed: the header table calls the number required, the remarks update it "only if" one comes`;

/** An action the page refuses (400): the number and ETag read back unchanged. */
async function refusedAction(t: RowContext, name: string, value: number | undefined): Promise<void> {
  const ref = await pageBlob(t);
  const base = await viewOf(t, ref, "read the blob");
  const what = `Set Blob Properties, ${name}${value === undefined ? " without a number" : " with a number"}`;
  expectRawStatus(what, await setSequence(t, ref, name, value), { status: 400 });
  expectUnchanged(`${what}: the blob read back`, base, await viewOf(t, ref));
}

const rows = [
  ...cells,
  restRow(
    "blob/page-sequence/optimistic-flow",
    "A reads N, B increments it, A's Put Page with if-eq N → 412 SequenceNumberConditionNotMet and B's state stays; A reads N + 1 again and its if-eq N + 1 → 201",
    PUT_PAGE,
    async (t) => {
      const ref = await pageBlob(t);
      const a = await viewOf(t, ref, "A reads the number");
      t.step("B increments the number");
      expectOk("B: Set Blob Properties, increment", await setSequence(t, ref, "increment"));
      const b = await viewOf(t, ref, "read back B's state");
      expectEqual("the number after B's increment", b.sequenceNumber, String(N + 1));
      const stale = `A: Put Page with x-ms-if-sequence-number-eq: ${a.sequenceNumber} (read before B's increment)`;
      expectRawStatus(stale, await pageWrite(t, stale, ref, "update", { "x-ms-if-sequence-number-eq": a.sequenceNumber! }), {
        status: 412,
        code: "SequenceNumberConditionNotMet",
      });
      expectUnchanged(`${stale}: B's state read back`, b, await viewOf(t, ref));
      const again = await viewOf(t, ref, "A reads the number again");
      const fresh = "A: Put Page with x-ms-if-sequence-number-eq: the number read again";
      expectOk(fresh, await pageWrite(t, fresh, ref, "update", { "x-ms-if-sequence-number-eq": again.sequenceNumber! }), 201);
      expectTrue(`${fresh}: the page read back is not A's`, (await viewOf(t, ref)).content === written("update"));
    },
  ),
  restRow(
    "blob/page-sequence/action/increment",
    "Set Blob Properties, increment → 200, a new ETag; the number is N + 1 in the answer and read back",
    SET_PROPERTIES,
    async (t) => {
      const ref = await pageBlob(t);
      const { what, changed } = await action(t, ref, "increment", undefined, N + 1);
      expectTrue(`${what}: the ETag did not change`, changed);
    },
  ),
  restRow(
    "blob/page-sequence/action/update",
    "Set Blob Properties, update with a number V → the number is V, also when V < N; a new ETag",
    SET_PROPERTIES,
    async (t) => {
      const ref = await pageBlob(t);
      for (const v of [N + 4, N - 2]) {
        const { what, changed } = await action(t, ref, "update", v, v);
        expectTrue(`${what}: the ETag did not change`, changed);
      }
    },
  ),
  restRow(
    "blob/page-sequence/action/max",
    "Set Blob Properties, max with V > N → V, a new ETag; with V < N the number stays (the ETag recorded)",
    SET_PROPERTIES,
    async (t) => {
      const ref = await pageBlob(t);
      const up = await action(t, ref, "max", N + 4, N + 4);
      expectTrue(`${up.what}: the ETag did not change`, up.changed);
      const down = await action(t, ref, "max", N - 2, N + 4);
      t.note("max with a lower value changed the ETag", down.changed);
    },
  ),
  restRow(
    "blob/page-sequence/action/increment-with-number",
    "Set Blob Properties, increment with a number → 400; the number and ETag unchanged",
    SET_PROPERTIES,
    (t) => refusedAction(t, "increment", N + 4),
  ),
  restRow(
    "blob/page-sequence/action/update-without-number",
    withoutNumberTitle("update"),
    WITHOUT_NUMBER_SOURCE,
    (t) => actionWithoutNumber(t, "update"),
    { level: "disputed" },
  ),
  restRow(
    "blob/page-sequence/action/max-without-number",
    withoutNumberTitle("max"),
    WITHOUT_NUMBER_SOURCE,
    (t) => actionWithoutNumber(t, "max"),
    { level: "disputed" },
  ),
];

defineTable({ table: "X-S Page-blob sequence numbers", service: "blob" }, rows);

defineMatrix({
  key: "X-S-page-sequence",
  title: "Put Page × sequence-number condition",
  source:
    "REST: Put Page; each cell sends the holding value (201) and the failing one (412 SequenceNumberConditionNotMet, the blob unchanged), N = 5",
  order: 200,
  beyond: true,
  columns: SEQUENCE_CONDITIONS.map((c) => ({ key: c.slug, header: `${c.header} (holds at ${c.holds}, fails at ${c.fails})` })),
});
