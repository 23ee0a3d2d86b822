// X-A Append blobs: the append-position and maximum-size conditions on
// Append Block, Append Block From URL and Append Blob Seal, and the seal's
// rules. The conditions are sent raw; every refusal is read back unchanged
// (length, block count, content, ETag, sealed flag).
import type { ContainerClient } from "@azure/storage-blob";
import { expectEqual, expectRawStatus, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { inStrand } from "../../fixtures/wire/evidence.ts";
import { defineMatrix, defineTable, type MatrixPlace } from "../../fixtures/harness/registry.ts";
import { answer, claimOn, SUCCESS, type ClaimedAnswer } from "../../fixtures/harness/claims.ts";
import type { AcceptedAnswer } from "../../model/answers.ts";
import { expectUnchanged } from "./blob-kit.ts";
import { APPENDPOS, MAX, MAXSIZE, POS, type AppendClaim } from "./append-claims.ts";
import { contentDigest, expectOk, readableUrl, refOf, restRow, sendRaw, viewOf, type BlobRef, type BlobView } from "./rest-kit.ts";

const FIRST = "first block;";
const BLOCK = "appended block;";
const APPEND_PAGE = "Append Block; Avoiding duplicate or delayed appends";
const SEAL_PAGE = "Append Blob Seal";

interface AppendBlob {
  c: ContainerClient;
  ref: BlobRef;
  /** The content written so far, as this row wrote it. */
  content: string;
}

async function newAppendBlob(t: RowContext): Promise<AppendBlob> {
  const c = await t.newContainer();
  const name = t.name("b");
  const b = c.getAppendBlobClient(name);
  await b.create();
  await b.appendBlock(FIRST, FIRST.length);
  return { c, ref: refOf(c, name), content: FIRST };
}

const append = (t: RowContext, what: string, a: AppendBlob, body: string, headers: Record<string, string> = {}) =>
  sendRaw(t, what, a.ref, { method: "PUT", query: { comp: "appendblock" }, headers, body });
const seal = (t: RowContext, what: string, a: AppendBlob, headers: Record<string, string> = {}) =>
  sendRaw(t, what, a.ref, { method: "PUT", query: { comp: "seal" }, headers });
const refused = (what: string, res: RawResponse, code: string) => expectRawStatus(what, res, { status: 412, code });

/** The blob now holds `content`: its length and its bytes. */
function expectContent(what: string, view: BlobView, content: string): void {
  expectEqual(`${what}: length`, view.length, Buffer.byteLength(content));
  expectTrue(`${what}: the content is not the blocks appended, in order, each once`, view.content === contentDigest(content));
}

const withoutValidators = ({ etag: _, lastModified: __, ...rest }: BlobView) => rest;

/** Another writer appends, after this client read the length. */
async function otherWriterAppends(t: RowContext, a: AppendBlob): Promise<void> {
  t.step("another writer appends");
  const other = t.clients.blob().getContainerClient(a.ref.container).getAppendBlobClient(a.ref.blob);
  await other.appendBlock("other writer;", 13);
  a.content += "other writer;";
}

/** A source blob beside the destination, and a URL the target can read it by (X-U). */
async function source(t: RowContext, a: AppendBlob, content: string): Promise<string> {
  const src = a.c.getBlockBlobClient(t.name("b"));
  await src.upload(content, content.length);
  return readableUrl(t, src);
}

/** X-A's claims, each beside its row (claimed): the matrix places and the generated mutants (selftest/mutants/append-conditions.ts) read them. */
export const APPEND_CLAIMS: AppendClaim[] = [];
/** The requests of the append operations, on a placeholder blob (the request classifier names them). */
const APPEND_REQUEST: Record<
  AppendClaim["operation"],
  { method: string; path: string; query: Record<string, string>; headers?: Record<string, string> }
> = {
  "Append Block": { method: "PUT", path: "/c/b", query: { comp: "appendblock" } },
  "Append Blob Seal": { method: "PUT", path: "/c/b", query: { comp: "seal" } },
  "Append Block From URL": {
    method: "PUT",
    path: "/c/b",
    query: { comp: "appendblock" },
    headers: { "x-ms-copy-source": "https://a.blob.core.windows.net/c/s" },
  },
};

/** What an append claim says Azure answers, as data (fixtures/harness/claims.ts): a failing value refused with its code, a holding one let through. */
function appendAnswers(claim: Omit<AppendClaim, "row">): ClaimedAnswer[] {
  const [fails, holds] = claim.header === APPENDPOS ? ["other", "length"] : ["fails", "holds"];
  const on = (value: string, answers: AcceptedAnswer[]) =>
    claimOn("blob", APPEND_REQUEST[claim.operation], { params: { [claim.header]: value }, lease: "available" }, answers);
  return [...(claim.failing ? [on(fails, [answer(412, claim.code)])] : []), ...(claim.holding ? [on(holds, SUCCESS)] : [])];
}

/** A row that sends an append condition: its claim is recorded under its ID, and its answers are the row's. */
function claimed(claim: Omit<AppendClaim, "row">, row: RowDef): RowDef {
  APPEND_CLAIMS.push({ row: row.id, ...claim });
  return { ...row, answers: [...(row.answers ?? []), ...appendAnswers(claim)] };
}

const rows = [
  claimed(
    { operation: "Append Block", ...POS, failing: false, holding: true },
    restRow(
      "blob/append/appendpos/holds",
      "Append Block with appendpos equal to the length → 201, x-ms-blob-append-offset = the length, a new ETag; the block appended",
      APPEND_PAGE,
      async (t) => {
        const a = await newAppendBlob(t);
        const before = await viewOf(t, a.ref, "read the blob (this client)");
        const what = "Append Block with appendpos = the length";
        const res = await append(t, what, a, BLOCK, { [APPENDPOS]: String(before.length) });
        expectOk(what, res, 201);
        expectEqual(`${what}: x-ms-blob-append-offset`, res.headers["x-ms-blob-append-offset"], String(before.length));
        expectTrue(`${what}: no new ETag in the answer`, !!res.headers["etag"] && res.headers["etag"] !== before.etag);
        const after = await viewOf(t, a.ref);
        expectTrue(`${what}: the ETag read back is not the answer's`, after.etag === res.headers["etag"]);
        expectContent(`${what}: the blob read back`, after, a.content + BLOCK);
      },
    ),
  ),
  claimed(
    { operation: "Append Block", ...POS, failing: true, holding: false },
    restRow(
      "blob/append/appendpos/fails",
      "Append Block with a stale appendpos (read before another writer appended) or one past the end → 412 AppendPositionConditionNotMet, the blob unchanged",
      APPEND_PAGE,
      async (t) => {
        const a = await newAppendBlob(t);
        const read = await viewOf(t, a.ref, "read the blob (this client)");
        await otherWriterAppends(t, a);
        const base = await viewOf(t, a.ref);
        for (const [label, value] of [
          ["the length read before the other writer appended", read.length!],
          ["one past the end", base.length! + 1],
        ] as const) {
          const what = `Append Block with appendpos = ${label}`;
          refused(what, await append(t, what, a, BLOCK, { [APPENDPOS]: String(value) }), "AppendPositionConditionNotMet");
          expectUnchanged(`${what}: the blob read back`, base, await viewOf(t, a.ref));
        }
      },
    ),
  ),
  claimed(
    { operation: "Append Block", ...POS, failing: true, holding: true },
    restRow(
      "blob/append/appendpos/retry-once",
      "A retried append (same body, same appendpos) after a success → 412 AppendPositionConditionNotMet; the data is in the blob once",
      APPEND_PAGE,
      async (t) => {
        const a = await newAppendBlob(t);
        const before = await viewOf(t, a.ref, "read the blob (this client)");
        const headers = { [APPENDPOS]: String(before.length) };
        expectOk(
          "Append Block with appendpos = the length",
          await append(t, "Append Block with appendpos = the length", a, BLOCK, headers),
          201,
        );
        const what = "the same Append Block again (a client retrying after a lost response)";
        refused(what, await append(t, what, a, BLOCK, headers), "AppendPositionConditionNotMet");
        expectContent(`${what}: the blob read back`, await viewOf(t, a.ref), a.content + BLOCK);
      },
    ),
  ),
  claimed(
    { operation: "Append Block", ...POS, failing: true, holding: true },
    restRow(
      "blob/append/appendpos/race",
      "Four clients append at once with the same appendpos: exactly one gets 201, the others 412 AppendPositionConditionNotMet; the blob grew by the winner's block only",
      APPEND_PAGE,
      async (t) => {
        const a = await newAppendBlob(t);
        const before = await viewOf(t, a.ref, "read the blob (every client)");
        const bodies = [0, 1, 2, 3].map((i) => `writer ${i} block;`);
        const answers = await Promise.all(
          bodies.map((body, i) =>
            inStrand(() =>
              append(t, `writer ${i}: Append Block with appendpos = the length`, a, body, { [APPENDPOS]: String(before.length) }),
            ),
          ),
        );
        const winners = answers.flatMap((r, i) => (r.status === 201 ? [i] : []));
        expectEqual("appends answered 201", winners.length, 1);
        for (const [i, r] of answers.entries())
          if (i !== winners[0]) refused(`writer ${i}, who lost the race`, r, "AppendPositionConditionNotMet");
        expectContent("the blob after the race", await viewOf(t, a.ref), a.content + bodies[winners[0]]);
      },
    ),
  ),
  claimed(
    { operation: "Append Block", ...MAX, failing: true, holding: false },
    restRow(
      "blob/append/maxsize/fails",
      "An append that would take the length past maxsize → 412 MaxBlobSizeConditionNotMet, the blob unchanged",
      APPEND_PAGE,
      async (t) => {
        const a = await newAppendBlob(t);
        const base = await viewOf(t, a.ref, "read the blob (this client)");
        const what = "Append Block with maxsize one byte short of the new length";
        refused(
          what,
          await append(t, what, a, BLOCK, { [MAXSIZE]: String(base.length! + BLOCK.length - 1) }),
          "MaxBlobSizeConditionNotMet",
        );
        expectUnchanged(`${what}: the blob read back`, base, await viewOf(t, a.ref));
      },
    ),
  ),
  claimed(
    { operation: "Append Block", ...MAX, failing: true, holding: true },
    restRow(
      "blob/append/maxsize/boundary",
      "An append to exactly maxsize → 201; on a blob already longer than maxsize a one-byte append → 412 MaxBlobSizeConditionNotMet, unchanged",
      APPEND_PAGE,
      async (t) => {
        const a = await newAppendBlob(t);
        const before = await viewOf(t, a.ref, "read the blob (this client)");
        const exact = "Append Block bringing the length to exactly maxsize";
        expectOk(exact, await append(t, exact, a, BLOCK, { [MAXSIZE]: String(before.length! + BLOCK.length) }), 201);
        a.content += BLOCK;
        const base = await viewOf(t, a.ref);
        expectContent(`${exact}: the blob read back`, base, a.content);
        const what = "a one-byte Append Block on a blob longer than maxsize";
        refused(what, await append(t, what, a, "x", { [MAXSIZE]: String(base.length! - 1) }), "MaxBlobSizeConditionNotMet");
        expectUnchanged(`${what}: the blob read back`, base, await viewOf(t, a.ref));
      },
    ),
  ),
  restRow(
    "blob/append/appendpos/stale-if-match",
    "appendpos holds and If-Match is stale → 412 ConditionNotMet, unchanged; both failing → 412 ConditionNotMet or AppendPositionConditionNotMet (recorded), unchanged",
    "Append Block (conditional headers beside appendpos)",
    async (t) => {
      const a = await newAppendBlob(t);
      const read = await viewOf(t, a.ref, "read the blob (this client)");
      t.step("another writer sets metadata (new ETag, same length)");
      await t.clients.blob().getContainerClient(a.ref.container).getBlobClient(a.ref.blob).setMetadata({ state: "other writer" });
      const base = await viewOf(t, a.ref);
      const stale = "Append Block with a holding appendpos and a stale If-Match";
      refused(stale, await append(t, stale, a, BLOCK, { [APPENDPOS]: String(base.length), "if-match": read.etag! }), "ConditionNotMet");
      expectUnchanged(`${stale}: the blob read back`, base, await viewOf(t, a.ref));
      const both = "Append Block with a failing appendpos and a stale If-Match";
      const res = await append(t, both, a, BLOCK, { [APPENDPOS]: String(base.length! + 1), "if-match": read.etag! });
      expectRawStatus(both, res, { status: 412, code: ["ConditionNotMet", "AppendPositionConditionNotMet"] });
      t.note("both failing: code", res.errorCode);
      expectUnchanged(`${both}: the blob read back`, base, await viewOf(t, a.ref));
    },
    { level: "disputed" },
  ),
  restRow(
    "blob/append/seal/refuses-append",
    "After Append Blob Seal (200, x-ms-blob-sealed: true) Append Block → 409 BlobIsSealed, the blob unchanged",
    `${SEAL_PAGE}; Append Block`,
    async (t) => {
      const a = await newAppendBlob(t);
      expectOk("Append Blob Seal", await seal(t, "Append Blob Seal", a), 200);
      const base = await viewOf(t, a.ref);
      expectTrue("Get Blob after the seal: no x-ms-blob-sealed: true", base.sealed === true);
      const what = "Append Block on the sealed blob";
      expectRawStatus(what, await append(t, what, a, BLOCK), { status: 409, code: "BlobIsSealed" });
      expectUnchanged(`${what}: the blob read back`, base, await viewOf(t, a.ref));
    },
  ),
  restRow(
    "blob/append/seal/idempotent",
    "Sealing a sealed blob → 200; it stays sealed, its content and length unchanged",
    SEAL_PAGE,
    async (t) => {
      const a = await newAppendBlob(t);
      expectOk("Append Blob Seal", await seal(t, "Append Blob Seal", a), 200);
      const first = await viewOf(t, a.ref);
      expectOk("Append Blob Seal on the sealed blob", await seal(t, "Append Blob Seal on the sealed blob", a), 200);
      const again = await viewOf(t, a.ref);
      // Whether a seal moves the validators is the disputed seal/etag row's question; here: content, length, blocks, sealed.
      t.note("second seal kept the ETag", again.etag === first.etag);
      expectUnchanged("the blob after the second seal", withoutValidators(first), withoutValidators(again));
      expectTrue("the blob after the second seal is not sealed", again.sealed === true);
    },
  ),
  restRow(
    "blob/append/seal/etag",
    "Append Blob Seal keeps the ETag and Last-Modified, or gives a new ETag (Last-Modified not earlier) that its answer and every later read agree on (recorded)",
    SEAL_PAGE,
    async (t) => {
      const a = await newAppendBlob(t);
      const before = await viewOf(t, a.ref, "read the blob (this client)");
      const res = await seal(t, "Append Blob Seal", a);
      expectOk("Append Blob Seal", res, 200);
      const answered = res.headers["etag"];
      expectTrue("Append Blob Seal: no ETag in the answer", !!answered);
      const reads = [await viewOf(t, a.ref, "read back"), await viewOf(t, a.ref, "read back again")];
      for (const r of reads) expectTrue("a read after the seal: its ETag is not the one the seal answered", r.etag === answered);
      const kept = answered === before.etag;
      t.note("seal", kept ? "ETag and Last-Modified unchanged" : "a new ETag");
      if (kept) expectTrue("the seal kept the ETag but moved Last-Modified", reads[0].lastModified === before.lastModified);
      else
        expectTrue(
          "the seal's new ETag came with an earlier Last-Modified",
          Date.parse(reads[0].lastModified!) >= Date.parse(before.lastModified!),
        );
    },
    { level: "disputed" },
  ),
  claimed(
    { operation: "Append Blob Seal", ...POS, failing: true, holding: true },
    restRow(
      "blob/append/seal/appendpos",
      "Seal with an appendpos other than the length → 412 AppendPositionConditionNotMet, not sealed (a later append succeeds); with the length → 200, sealed",
      `${SEAL_PAGE}; REST API definition (x-ms-blob-condition-appendpos on Seal)`,
      async (t) => {
        const a = await newAppendBlob(t);
        const base = await viewOf(t, a.ref, "read the blob (this client)");
        const what = "Append Blob Seal with appendpos one past the end";
        refused(what, await seal(t, what, a, { [APPENDPOS]: String(base.length! + 1) }), "AppendPositionConditionNotMet");
        const after = await viewOf(t, a.ref);
        expectUnchanged(`${what}: the blob read back`, base, after);
        expectTrue(`${what}: the blob reads back sealed`, after.sealed === false);
        expectOk(`Append Block after the refused seal`, await append(t, "Append Block after the refused seal", a, BLOCK), 201);
        a.content += BLOCK;
        const length = (await viewOf(t, a.ref)).length;
        expectOk(
          "Append Blob Seal with appendpos = the length",
          await seal(t, "Append Blob Seal with appendpos = the length", a, { [APPENDPOS]: String(length) }),
          200,
        );
        const sealed = await viewOf(t, a.ref);
        expectTrue("after the permitted seal: not sealed", sealed.sealed === true);
        expectContent("after the permitted seal", sealed, a.content);
      },
    ),
  ),
  claimed(
    { operation: "Append Block From URL", ...POS, failing: true, holding: true },
    restRow(
      "blob/append/from-url/appendpos",
      "Append Block From URL with a stale appendpos → 412 AppendPositionConditionNotMet, nothing appended; with the length → 201, the source's bytes appended",
      "Append Block From URL",
      async (t) => {
        const a = await newAppendBlob(t);
        const url = await source(t, a, "source bytes;");
        const read = await viewOf(t, a.ref, "read the blob (this client)");
        await otherWriterAppends(t, a);
        const base = await viewOf(t, a.ref);
        const what = "Append Block From URL with a stale appendpos";
        refused(
          what,
          await sendRaw(t, what, a.ref, {
            method: "PUT",
            query: { comp: "appendblock" },
            headers: { "x-ms-copy-source": url, [APPENDPOS]: String(read.length) },
          }),
          "AppendPositionConditionNotMet",
        );
        expectUnchanged(`${what}: the blob read back`, base, await viewOf(t, a.ref));
        const ok = "Append Block From URL with appendpos = the length";
        expectOk(
          ok,
          await sendRaw(t, ok, a.ref, {
            method: "PUT",
            query: { comp: "appendblock" },
            headers: { "x-ms-copy-source": url, [APPENDPOS]: String(base.length) },
          }),
          201,
        );
        expectContent(`${ok}: the blob read back`, await viewOf(t, a.ref), a.content + "source bytes;");
      },
      { surface: [{ operation: "Append Block From URL", parameter: "x-ms-blob-condition-appendpos" }] },
    ),
  ),
  claimed(
    { operation: "Append Block From URL", ...MAX, failing: true, holding: false },
    restRow(
      "blob/append/from-url/maxsize",
      "Append Block From URL that would pass maxsize → 412 MaxBlobSizeConditionNotMet, nothing appended",
      "Append Block From URL",
      async (t) => {
        const a = await newAppendBlob(t);
        const url = await source(t, a, "source bytes;");
        const base = await viewOf(t, a.ref, "read the blob (this client)");
        const what = "Append Block From URL with maxsize one byte short of the new length";
        refused(
          what,
          await sendRaw(t, what, a.ref, {
            method: "PUT",
            query: { comp: "appendblock" },
            headers: { "x-ms-copy-source": url, [MAXSIZE]: String(base.length! + 12) },
          }),
          "MaxBlobSizeConditionNotMet",
        );
        expectUnchanged(`${what}: the blob read back`, base, await viewOf(t, a.ref));
      },
      { surface: [{ operation: "Append Block From URL", parameter: "x-ms-blob-condition-maxsize" }] },
    ),
  ),
];

/**
 * A row's places in the X-A table, from its claim: the cell of its operation and
 * condition (the first failing claim of the two states the cell), a finer row
 * inside it for each claim.
 */
function appendPlaces(id: string): MatrixPlace[] {
  const c = APPEND_CLAIMS.find((x) => x.row === id);
  if (!c) return [];
  const at = { section: "X-A-append-conditions", row: c.operation, column: c.header };
  const same = APPEND_CLAIMS.filter((x) => x.operation === c.operation && x.header === c.header);
  const main = same.find((x) => x.failing) ?? same[0];
  return [...(main === c ? [{ ...at, claim: `412 ${c.code}` }] : []), { ...at, sub: id.slice(id.lastIndexOf("/") + 1) }];
}

defineTable(
  { table: "X-A Append blobs", service: "blob" },
  rows.map((r) => ({ ...r, matrix: appendPlaces(r.id) })),
);

// One cell per operation and condition; each row about that pair is a badge in it.
const OPERATIONS = [...new Set(APPEND_CLAIMS.map((c) => c.operation))];
defineMatrix({
  key: "X-A-append-conditions",
  title: "Append operations × condition",
  source:
    "REST: Append Block, Append Block From URL, Append Blob Seal; a failing value is refused with 412 and the blob reads back unchanged, a holding one proceeds",
  order: 190,
  beyond: true,
  columns: [APPENDPOS, MAXSIZE].map((h) => ({ key: h, header: h })),
  rowOrder: OPERATIONS,
});
