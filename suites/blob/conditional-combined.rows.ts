// C Conditional requests in detail: combinations of headers and the rules
// (`blob/conditional-rules/`). Cases are data; the values are section C's,
// taken from a history (this client read, another writer changed the blob a
// second later), never made-up constants.
import { expectRawStatus, expectSent, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { claimAt } from "../../fixtures/harness/locations.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { blobSource, expectUnchanged, lastSent } from "./blob-kit.ts";
import { cellsOf, claimOf, type CondHeader, type OpClaim } from "./conditional-claims.ts";
import { headerValue, history, type History } from "./conditional-kit.ts";

const SPEC = "Specifying Conditional Headers for Blob Service Operations";

/** A header's value in a case: section C's holding or failing value, a list of ETags, or the header twice. */
export type Value = "hold" | "fail" | "list:old,current" | "list:old,older" | "twice";

/**
 * How the mutant generated for a case breaks it (selftest/mutants/conditional-combined.ts):
 * a header ignored, the 304/412 refusals swapped, or a made-up answer.
 */
export type Break = { strip: CondHeader } | "swap-304-412" | { answer: 400 | 412 };

export interface ReadCase {
  slug: string;
  headers: Partial<Record<CondHeader, Value>>;
  status: 200 | 304 | 412 | 400;
  break: Break;
}

// Get Blob / Get Blob Properties (API 2013-08-15+): proceed only if
// IM ∧ IUS ∧ (INM ∨ IMS); the first group fails with 412, the second with 304.
export const READ_CASES: ReadCase[] = [
  {
    slug: "im-hold-ius-fail",
    headers: { "if-match": "hold", "if-unmodified-since": "fail" },
    status: 412,
    break: { strip: "if-unmodified-since" },
  },
  { slug: "im-fail-ius-hold", headers: { "if-match": "fail", "if-unmodified-since": "hold" }, status: 412, break: { strip: "if-match" } },
  {
    slug: "inm-hold-ims-fail",
    headers: { "if-none-match": "hold", "if-modified-since": "fail" },
    status: 200,
    break: { strip: "if-none-match" },
  },
  {
    slug: "inm-fail-ims-hold",
    headers: { "if-none-match": "fail", "if-modified-since": "hold" },
    status: 200,
    break: { strip: "if-modified-since" },
  },
  { slug: "inm-fail-ims-fail", headers: { "if-none-match": "fail", "if-modified-since": "fail" }, status: 304, break: "swap-304-412" },
  { slug: "im-hold-inm-fail", headers: { "if-match": "hold", "if-none-match": "fail" }, status: 304, break: { strip: "if-none-match" } },
  { slug: "im-list-old-current", headers: { "if-match": "list:old,current" }, status: 200, break: { answer: 400 } },
  { slug: "im-list-old-older", headers: { "if-match": "list:old,older" }, status: 412, break: { answer: 400 } },
  { slug: "inm-list-old-current", headers: { "if-none-match": "list:old,current" }, status: 304, break: { answer: 400 } },
  { slug: "two-ims", headers: { "if-modified-since": "twice" }, status: 400, break: { answer: 412 } },
  { slug: "im-fail-inm-fail", headers: { "if-match": "fail", "if-none-match": "fail" }, status: 412, break: "swap-304-412" },
];

export interface WriteCase {
  slug: string;
  headers: Partial<Record<CondHeader, Value>>;
  /** As documented: the status (success means the write is applied). */
  documented: "success" | 412 | 400;
  /** If the target evaluates every header (and every ETag of a list) instead. */
  bothEvaluated: "success" | 412;
}

// Writes accept only If-Match + If-Unmodified-Since (If-Match decides) and
// If-None-Match + If-Modified-Since (If-None-Match decides); any other pair, or
// a list of ETags → 400 MultipleConditionHeadersNotSupported. `disputed`.
export const WRITE_CASES: WriteCase[] = [
  { slug: "im-hold-ius-fail", headers: { "if-match": "hold", "if-unmodified-since": "fail" }, documented: "success", bothEvaluated: 412 },
  { slug: "im-fail-ius-hold", headers: { "if-match": "fail", "if-unmodified-since": "hold" }, documented: 412, bothEvaluated: 412 },
  {
    slug: "inm-hold-ims-fail",
    headers: { "if-none-match": "hold", "if-modified-since": "fail" },
    documented: "success",
    bothEvaluated: 412,
  },
  { slug: "inm-fail-ims-hold", headers: { "if-none-match": "fail", "if-modified-since": "hold" }, documented: 412, bothEvaluated: 412 },
  { slug: "im-hold-inm-hold", headers: { "if-match": "hold", "if-none-match": "hold" }, documented: 400, bothEvaluated: "success" },
  { slug: "im-hold-ims-hold", headers: { "if-match": "hold", "if-modified-since": "hold" }, documented: 400, bothEvaluated: "success" },
  { slug: "im-list-old-current", headers: { "if-match": "list:old,current" }, documented: 400, bothEvaluated: "success" },
];

export const READ_ROWS = ["blob/blob-ops/get-blob", "blob/blob-ops/get-blob-properties"];
export const WRITE_ROWS = ["blob/blob-ops/put-blob", "blob/blob-ops/set-blob-metadata"];

function headersOf(h: History, headers: Partial<Record<CondHeader, Value>>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [header, v] of Object.entries(headers) as [CondHeader, Value][]) {
    if (v === "hold" || v === "fail") out[header] = headerValue(header, v === "fail", h.before, h.after);
    else if (v === "list:old,current") out[header] = `${h.before.etag}, ${h.after.etag}`;
    else if (v === "list:old,older") out[header] = `${h.before.etag}, ${h.older}`;
    else out[header] = [h.before.lastModified!, h.after.lastModified!];
  }
  return out;
}

async function send(
  t: RowContext,
  claim: OpClaim,
  h: History,
  what: string,
  headers: Record<string, string | string[]>,
): Promise<RawResponse> {
  t.step(what);
  const req = claim.request(h.subject);
  const res = await t.raw("blob", { ...req, headers: { ...(req.headers ?? {}), ...headers } });
  for (const name of Object.keys(headers)) expectSent(what, lastSent(), name);
  return res;
}

const describeCase = (headers: Partial<Record<CondHeader, Value>>) =>
  Object.entries(headers)
    .map(([k, v]) => `${k} ${v}`)
    .join(" + ");

async function readCase(t: RowContext, claim: OpClaim, c: ReadCase): Promise<void> {
  const h = await history(t, cellsOf(claim)[0], { older: true });
  const what = `${claim.operation} with ${describeCase(c.headers)}`;
  const res = await send(t, claim, h, what, headersOf(h, c.headers));
  expectRawStatus(what, res, { status: c.status });
  if (c.status === 200) expectTrue(`${what}: the ETag answered is not the current one`, res.headers["etag"] === h.after.etag);
}

async function writeCase(t: RowContext, claim: OpClaim, c: WriteCase): Promise<void> {
  const h = await history(t, cellsOf(claim)[0]);
  const base = await h.read();
  const what = `${claim.operation} with ${describeCase(c.headers)}`;
  const res = await send(t, claim, h, what, headersOf(h, c.headers));
  t.step("read back");
  const after = await h.read();
  const answered: "success" | number = res.status >= 200 && res.status < 300 ? "success" : res.status;
  const choice = answered === c.documented ? "as documented" : answered === c.bothEvaluated ? "both evaluated" : undefined;
  t.note("choice", choice ?? `neither: ${res.status} ${res.errorCode ?? ""}`.trim());
  expectTrue(
    `${what}: answered ${res.status} ${res.errorCode ?? ""}, neither as documented (${c.documented}) nor with both evaluated (${c.bothEvaluated})`,
    choice !== undefined,
  );
  if (answered === "success")
    expectTrue(`${what}: answered ${res.status} but not applied (${claim.effect!.what})`, claim.effect!.holds(after), {
      expected: "applied",
      got: "not applied",
    });
  else expectUnchanged(`${claim.operation} after the refused request`, base, after);
  if (answered === 400) expectRawStatus(what, res, { status: 400, code: "MultipleConditionHeadersNotSupported" });
}

const rows: RowDef[] = [
  ...READ_ROWS.flatMap((row) =>
    READ_CASES.map((c): RowDef => ({
      id: `${row}/conditional/combined/${c.slug}`,
      claim: claimAt(import.meta.url, `slug: "${c.slug}"`),
      title: `${claimOf(row).operation} with ${describeCase(c.headers)}: ${c.status}`,
      level: "rest",
      source: blobSource(`${claimOf(row).operation}; ${SPEC} (API 2013-08-15 and later)`),
      service: "blob",
      waitSeconds: 1,
      run: (t) => readCase(t, claimOf(row), c),
    })),
  ),
  ...WRITE_ROWS.flatMap((row) =>
    WRITE_CASES.map((c): RowDef => ({
      id: `${row}/conditional/combined/${c.slug}`,
      claim: claimAt(import.meta.url, `slug: "${c.slug}"`),
      title: `${claimOf(row).operation} with ${describeCase(c.headers)}: ${c.documented} as documented, or ${c.bothEvaluated} with both headers evaluated; state agrees with the answer`,
      level: "disputed",
      source: blobSource(`${claimOf(row).operation}; ${SPEC} (MultipleConditionHeadersNotSupported)`),
      service: "blob",
      waitSeconds: 1,
      run: (t) => writeCase(t, claimOf(row), c),
    })),
  ),
];

/** The rules: one read and one write each (Get Blob Properties, Set Blob Metadata). */
const PROPS = claimOf("blob/blob-ops/get-blob-properties");
const META = claimOf("blob/blob-ops/set-blob-metadata");
const unquote = (etag: string) => etag.replace(/^"(.*)"$/, "$1");

rows.push(
  {
    id: "blob/conditional-rules/unquoted-etag",
    title: "An ETag sent without its quotes is evaluated like the quoted one, holding and failing (since 2011-08-18)",
    level: "rest",
    source: blobSource(`${SPEC} (quoted and unquoted ETags)`),
    service: "blob",
    waitSeconds: 1,
    async run(t) {
      const h = await history(t, cellsOf(META)[0]);
      const base = await h.read();
      const refused = await send(t, META, h, "Set Blob Metadata with the old ETag unquoted in If-Match", {
        "if-match": unquote(h.before.etag!),
      });
      expectRawStatus("Set Blob Metadata with the old ETag unquoted in If-Match", refused, { status: 412 });
      expectUnchanged("Set Blob Metadata after the refused request", base, await h.read());
      const permitted = await send(t, META, h, "Set Blob Metadata with the current ETag unquoted in If-Match", {
        "if-match": unquote(h.after.etag!),
      });
      expectRawStatus("Set Blob Metadata with the current ETag unquoted in If-Match", permitted, { status: 200 });
      expectTrue(
        `Set Blob Metadata with the current ETag unquoted: not applied (${META.effect!.what})`,
        META.effect!.holds(await h.read()),
        { expected: "applied", got: "not applied" },
      );
      const read = await send(t, PROPS, h, "Get Blob Properties with the old ETag unquoted in If-None-Match", {
        "if-none-match": unquote(h.before.etag!),
      });
      expectRawStatus("Get Blob Properties with the old ETag unquoted in If-None-Match", read, { status: 200 });
    },
  },
  {
    id: "blob/conditional-rules/date-granularity",
    title: "If-Modified-Since equal to Last-Modified fails (not modified since); If-Unmodified-Since equal to it holds",
    level: "rest",
    source: blobSource(`${SPEC} (dates, one-second granularity)`),
    service: "blob",
    waitSeconds: 1,
    async run(t) {
      const h = await history(t, cellsOf(PROPS)[0]);
      const lm = h.after.lastModified!;
      const ims = await send(t, PROPS, h, "Get Blob Properties with If-Modified-Since = Last-Modified", { "if-modified-since": lm });
      expectRawStatus("Get Blob Properties with If-Modified-Since = Last-Modified", ims, { status: 304 });
      const ius = await send(t, PROPS, h, "Get Blob Properties with If-Unmodified-Since = Last-Modified", { "if-unmodified-since": lm });
      expectRawStatus("Get Blob Properties with If-Unmodified-Since = Last-Modified", ius, { status: 200 });
      const base = await h.read();
      const refused = await send(t, META, h, "Set Blob Metadata with If-Modified-Since = Last-Modified", { "if-modified-since": lm });
      expectRawStatus("Set Blob Metadata with If-Modified-Since = Last-Modified", refused, { status: 412 });
      expectUnchanged("Set Blob Metadata after the refused request", base, await h.read());
      const permitted = await send(t, META, h, "Set Blob Metadata with If-Unmodified-Since = Last-Modified", { "if-unmodified-since": lm });
      expectRawStatus("Set Blob Metadata with If-Unmodified-Since = Last-Modified", permitted, { status: 200 });
      expectTrue(
        `Set Blob Metadata with If-Unmodified-Since = Last-Modified: not applied (${META.effect!.what})`,
        META.effect!.holds(await h.read()),
        { expected: "applied", got: "not applied" },
      );
    },
  },
);

defineTable({ table: "C Conditional requests (combinations and rules)", service: "blob" }, rows);
