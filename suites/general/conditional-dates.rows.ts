// G general/conditional-empty-date: a recipient ignores If-Modified-Since /
// If-Unmodified-Since whose value is not a valid HTTP-date (RFC 9110 13.1.3,
// 13.1.4); Azure ignores an empty If-Unmodified-Since (live, per Azurite
// issue #2550). An empty value on a blob write (Put Blob) and a read (Get
// Blob) leaves the request unconditional: the write is applied, the read
// answers 200. A malformed non-empty date is disputed: ignored, or refused
// with 400 InvalidHeaderValue and not applied; the report shows which.
import { eachVariation, expectEqual, expectSent, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { lastSent } from "../blob/blob-kit.ts";

const HEADERS = ["if-modified-since", "if-unmodified-since"] as const;
const NAME = { "if-modified-since": "If-Modified-Since", "if-unmodified-since": "If-Unmodified-Since" } as const;
const MALFORMED = "not a date";

/** A blob holding `text`, and raw Put Blob / Get Blob on it. */
async function blob(t: RowContext) {
  const c = await t.newContainer();
  const path = `/${c.containerName}/${t.name("b")}`;
  const put = (body: string, headers: Record<string, string> = {}) =>
    t.raw("blob", { method: "PUT", path, headers: { "x-ms-blob-type": "BlockBlob", ...headers }, body });
  const get = (headers: Record<string, string> = {}) => t.raw("blob", { method: "GET", path, headers });
  return { put, get, content: async () => (await get()).body };
}

const answer = (res: RawResponse) => `${res.status}${res.errorCode ? " " + res.errorCode : ""}`;

/** A request carrying `value` in `header`: sent (the evidence shows the header on the wire), then judged. */
async function sent(t: RowContext, what: string, header: string, send: () => Promise<RawResponse>): Promise<RawResponse> {
  t.step(what);
  const res = await send();
  expectSent(what, lastSent(), header);
  return res;
}

async function emptyDates(t: RowContext): Promise<void> {
  const b = await blob(t);
  expectTrue("Put Blob (setup): not created", (await b.put("original")).status === 201, { expected: "201", got: "another answer" });
  const variations = HEADERS.flatMap((h) => [
    {
      label: `Put Blob with an empty ${NAME[h]}`,
      run: async () => {
        const what = `Put Blob with an empty ${NAME[h]}`;
        const res = await sent(t, what, h, () => b.put(`written with an empty ${h}`, { [h]: "" }));
        expectTrue(`${what}: expected 201 (the header ignored), got ${answer(res)}`, res.status === 201, {
          expected: "201",
          got: answer(res),
        });
        expectEqual(`${what}: the content read back`, await b.content(), `written with an empty ${h}`);
      },
    },
    {
      label: `Get Blob with an empty ${NAME[h]}`,
      run: async () => {
        const what = `Get Blob with an empty ${NAME[h]}`;
        const res = await sent(t, what, h, () => b.get({ [h]: "" }));
        expectTrue(
          `${what}: expected 200 (the header ignored), got ${answer(res)}`,
          res.status === 200 && res.body.startsWith("written with"),
          { expected: "200 with the content", got: answer(res) },
        );
      },
    },
  ]);
  // Disputed: a malformed non-empty date is ignored, or refused with 400 InvalidHeaderValue and not applied.
  const malformed = HEADERS.flatMap((h) => [
    {
      label: `Put Blob with ${NAME[h]}: ${MALFORMED}`,
      run: async () => {
        const what = `Put Blob with ${NAME[h]}: ${MALFORMED}`;
        const before = await b.content();
        const res = await sent(t, what, h, () => b.put(`written with a malformed ${h}`, { [h]: MALFORMED }));
        const ignored = res.status === 201;
        expectTrue(
          `${what}: expected 201 (ignored) or 400 InvalidHeaderValue, got ${answer(res)}`,
          ignored || (res.status === 400 && res.errorCode === "InvalidHeaderValue"),
          { expected: "201 or 400 InvalidHeaderValue", got: answer(res) },
        );
        t.note(`malformed ${h} on Put Blob`, ignored ? "ignored (201)" : "refused (400 InvalidHeaderValue)");
        expectEqual(`${what}: the content read back`, await b.content(), ignored ? `written with a malformed ${h}` : before);
      },
    },
    {
      label: `Get Blob with ${NAME[h]}: ${MALFORMED}`,
      run: async () => {
        const what = `Get Blob with ${NAME[h]}: ${MALFORMED}`;
        const res = await sent(t, what, h, () => b.get({ [h]: MALFORMED }));
        const ignored = res.status === 200;
        expectTrue(
          `${what}: expected 200 (ignored) or 400 InvalidHeaderValue, got ${answer(res)}`,
          ignored || (res.status === 400 && res.errorCode === "InvalidHeaderValue"),
          { expected: "200 or 400 InvalidHeaderValue", got: answer(res) },
        );
        t.note(`malformed ${h} on Get Blob`, ignored ? "ignored (200)" : "refused (400 InvalidHeaderValue)");
      },
    },
  ]);
  await eachVariation([...variations, ...malformed]);
}

const rows: RowDef[] = [
  {
    id: "general/conditional-empty-date",
    title:
      "An empty If-Modified-Since or If-Unmodified-Since is ignored: Put Blob is applied (201) and Get Blob answers 200, as if unconditional; a malformed date is ignored or refused with 400 InvalidHeaderValue (disputed, the report shows which)",
    level: "rest",
    source:
      "RFC 9110 13.1.3, 13.1.4 (a date that is not a valid HTTP-date is ignored); REST: Specifying Conditional Headers for Blob Service Operations; Azurite issue #2550 (Azure ignores an empty If-Unmodified-Since)",
    service: "blob",
    run: emptyDates,
  },
];

defineTable({ table: "G General behaviour", service: "blob" }, rows);
