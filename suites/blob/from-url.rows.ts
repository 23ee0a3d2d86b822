// X-U Conditions on the From-URL operations: one row per cell of the two
// tables (operation × source/destination × header). The source is a blob of
// the same account named by a URL with a read SAS; the resource a header is
// about (the source, or the existing destination) is changed by another
// writer a second after this client read it, and section C's failing and
// holding values follow from that history.
import type { BlobClient } from "@azure/storage-blob";
import { expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext } from "../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { defineMatrix, defineTable } from "../../fixtures/harness/registry.ts";
import { isUnsupportedAnswer, preconditionFailed } from "../../fixtures/wire/signals.ts";
import { expectUnchanged, newBlockBlob } from "./blob-kit.ts";
import { HEADER_LABEL } from "./conditional-claims.ts";
import { blobState, headerValue, newBlobOf, secondLater, type BlobKind } from "./conditional-kit.ts";
import { FROM_URL_CELLS, FROM_URL_OPS, type FromUrlCell } from "./from-url-claims.ts";
import { answer, conditionClaims } from "../../fixtures/harness/claims.ts";
import { SOURCE_CONTENT, type Subject } from "./operations.ts";
import { surfacePair } from "./operation-pairs.ts";
import { readableUrl, restRow, sendOperation } from "./rest-kit.ts";

const CONDITIONAL = "Specifying Conditional Headers for Blob Service Operations";
const show = (r: RawResponse) => `${r.status}${r.errorCode ? " " + r.errorCode : ""}`;
const kindOf = (cell: FromUrlCell) => cell.record.resource as BlobKind;

const send = (t: RowContext, what: string, cell: FromUrlCell, s: Subject, headers: Record<string, string> = {}) =>
  sendOperation(t, what, cell.record, s, headers);

/** A 2xx: 201, or for Copy Blob From URL 202 (its x-ms-copy-status: success is in the effect). */
const succeeded = (res: RawResponse) => res.status >= 200 && res.status < 300;

async function runCell(t: RowContext, cell: FromUrlCell): Promise<void> {
  const { record } = cell;
  const c = await t.newContainer();
  const src = await newBlockBlob(t, SOURCE_CONTENT, c);
  const sourceUrl = await readableUrl(t, src);
  // Whether the target can read the source at all: an unconditioned request to a scratch destination.
  const scratch = await newBlobOf(t, kindOf(cell), c);
  const probe = await send(t, `${record.operation} without conditions (can the target read the source?)`, cell, {
    container: c.containerName,
    blob: scratch.name,
    sourceUrl,
  });
  if (!succeeded(probe)) {
    // A 501 is an answer about the operation (UNSUPPORTED, by the engine), not about the source.
    if (isUnsupportedAnswer(probe.status, probe.errorCode)) expectTrue(`${record.operation} without conditions: got ${show(probe)}`, false);
    preconditionFailed(`${record.operation} without conditions was refused (${show(probe)}): the target cannot read the source by its URL`);
  }

  const dest = await newBlobOf(t, kindOf(cell), c);
  const subject: Subject = { container: c.containerName, blob: dest.name, sourceUrl };
  const validated: BlobClient = cell.side === "source" ? src : dest;
  const kind = cell.side === "source" ? "block-blob" : kindOf(cell);
  t.step(`read the ${cell.side} (this client)`);
  const before = await blobState(validated, c, kind);
  await secondLater(t, async () => (await validated.getProperties()).date, before.lastModified);
  t.step(`another writer changes the ${cell.side}`);
  await t.clients.blob().getContainerClient(c.containerName).getBlobClient(validated.name).setMetadata({ state: "other writer" });
  const after = await blobState(validated, c, kind);
  const base = await blobState(dest, c, kindOf(cell));

  const failing = `${record.operation} with a failing ${cell.wireHeader}`;
  const refused = await send(t, failing, cell, subject, { [cell.wireHeader]: headerValue(cell.header, true, before, after) });
  const { status, code } = cell.refusal;
  const wanted = `${status.join(" or ")} ${code.join(" or ")}`;
  expectTrue(
    `${failing}: expected ${wanted}, got ${show(refused)}`,
    status.includes(refused.status) && code.includes(refused.errorCode ?? ""),
    { expected: wanted, got: show(refused) },
  );
  if (cell.disputed) t.note("refusal", show(refused));
  t.step("read back after the refusal");
  expectUnchanged(`${record.operation} after the refused request`, base, await blobState(dest, c, kindOf(cell)));

  const holding = `${record.operation} with a holding ${cell.wireHeader}`;
  const permitted = await send(t, holding, cell, subject, { [cell.wireHeader]: headerValue(cell.header, false, before, after) });
  // These operations write at once: 201, and Copy Blob From URL 202 with x-ms-copy-status: success (catalogue X-U); the write is done when the answer comes.
  const done = record.operation === "Copy Blob From URL" ? 202 : 201;
  expectTrue(`${holding}: expected ${done}, got ${show(permitted)}`, permitted.status === done, {
    expected: String(done),
    got: show(permitted),
  });
  if (record.operation === "Copy Blob From URL") {
    const copied = permitted.headers["x-ms-copy-status"] ?? "none";
    expectTrue(`${holding}: x-ms-copy-status ${copied}, expected success (a synchronous copy)`, copied === "success", {
      expected: "x-ms-copy-status success",
      got: copied,
    });
  }
  t.step("read back after the permitted request");
  expectTrue(`${holding}: not applied (${record.effect!.what})`, record.effect!.holds(await blobState(dest, c, kindOf(cell))), {
    expected: "applied",
    got: "not applied",
  });
}

const refusalText = (cell: FromUrlCell) => `${cell.refusal.status.join("/")} ${cell.refusal.code.join(" or ")}`;

const rows = FROM_URL_CELLS.map((cell) =>
  restRow(
    cell.id,
    `${cell.record.operation}: a failing ${cell.wireHeader} → ${refusalText(cell)}, the destination unchanged; a holding one succeeds`,
    `${cell.record.operation}; ${CONDITIONAL}`,
    (t) => runCell(t, cell),
    {
      ...(cell.disputed ? { level: "disputed" as const } : {}),
      waitSeconds: 1,
      claim: cell.at,
      surface: [surfacePair(cell.record, cell.wireHeader)],
      matrix: [{ section: `X-U-${cell.side}`, row: cell.record.operation, column: cell.header, claim: refusalText(cell) }],
      answers: conditionClaims(
        "blob",
        cell.record.request({ container: "c", blob: "b", sourceUrl: "https://a.blob.core.windows.net/c/s" }),
        cell.wireHeader,
        cell.refusal.status.flatMap((status) => cell.refusal.code.map((code) => answer(status, code))),
        cell.side === "destination" ? { lease: "available" } : {},
      ),
    },
  ),
);

defineTable({ table: "X-U Conditions on the From-URL operations", service: "blob" }, rows);

for (const side of ["source", "destination"] as const) {
  defineMatrix({
    key: `X-U-${side}`,
    title: `From-URL operations × ${side} condition`,
    source: `REST: Put Blob From URL, Put Block From URL, Append Block From URL, Put Page From URL, Copy Blob From URL; ${CONDITIONAL}. A failing value is refused as the cell says and nothing is written; a holding one succeeds. Two codes: the catalogue documents both (disputed), the row records which`,
    order: side === "source" ? 196 : 197,
    beyond: true,
    columns: (["if-match", "if-unmodified-since", "if-none-match", "if-modified-since"] as const).map((h) => ({
      key: h,
      header: `${side === "source" ? "x-ms-source-" : ""}${h} (${HEADER_LABEL[h]})`,
    })),
    rowOrder: FROM_URL_OPS.filter(({ opSlug }) => FROM_URL_CELLS.some((c) => c.opSlug === opSlug && c.side === side)).map(
      ({ record }) => record.operation,
    ),
  });
}
