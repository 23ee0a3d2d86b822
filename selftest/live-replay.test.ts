// The suite never fails a recorded Azure answer: for every row whose claim a
// live recording shows as a refusal (suites/live-answers.ts), the proxy
// turns the embedded Azurite's refusal of that request into the answer the
// recording shows (status and error code, in Azure's XML error format), and
// the row must PASS (observed, without Azurite's pins). A live answer the
// proxy cannot produce (the operation is one Azurite lacks, or Azurite
// applies the request instead of refusing it, so no refusal is there to
// rewrite) is listed in NOT_PRODUCIBLE with the reason; the list is checked
// too, so a cell that becomes producible must leave it.
import { expect } from "chai";
import pLimit from "p-limit";
import { runHeadless } from "./headless.ts";
import { liveAnswers, loadAllSuites, registeredRows, type RecordedRefusal } from "../fixtures/harness/registry.ts";
import type { RowResult } from "../model/result.ts";
import { sharedAzurite } from "./azurite-fixture.ts";
import { errorAnswer, operation, type Mutant, type ProxyRequest, type ProxyResponse } from "./mutants/types.ts";
import { startProxy } from "./proxy.ts";

const LACKS = "the embedded Azurite answers this operation 501 (pinned)";
/** Live answers the proxy cannot produce in front of the embedded Azurite, each with why. */
const NOT_PRODUCIBLE: Record<string, string> = {
  "blob/append/from-url/appendpos": LACKS,
  "blob/append/from-url/maxsize": LACKS,
  "blob/from-url/put-blob/source-if-match": LACKS,
  "blob/from-url/put-blob/destination-if-match": LACKS,
  ...Object.fromEntries(
    ["if-match", "if-unmodified-since", "if-none-match", "if-modified-since"].flatMap((h) => [
      [`blob/from-url/append-block/source-${h}`, LACKS],
      [`blob/from-url/append-block/destination-${h}`, LACKS],
    ]),
  ),
  "blob/from-url/put-page/source-if-unmodified-since": LACKS,
  "blob/from-url/put-page/source-if-modified-since": LACKS,
  ...Object.fromEntries(
    ["if-unmodified-since", "if-none-match", "if-modified-since"].map((h) => [`blob/from-url/put-page/destination-${h}`, LACKS]),
  ),
  "blob/tags/if-tags/set-blob-tags": "Azurite applies Set Blob Tags whatever x-ms-if-tags says (pinned): no refusal to rewrite",
  "blob/append/seal/appendpos": "Azurite seals whatever x-ms-blob-condition-appendpos says (pinned): no refusal to rewrite",
};

const matches = (r: RecordedRefusal, req: ProxyRequest) =>
  [r.operation, ...(r.also ?? [])].some((op) => operation(req) === op || operation(req).startsWith(`${op} (`));
const rewritable = (r: RecordedRefusal, res: ProxyResponse) =>
  r.rewrites
    ? r.rewrites.status.includes(res.status) && (!r.rewrites.code || r.rewrites.code.includes(res.headers["x-ms-error-code"] ?? ""))
    : res.status === 304 || (res.status >= 400 && res.status < 500);

/** The target answers a refused request of the recorded kind as the recording shows; `given` counts those answers. */
function replay(id: string, r: RecordedRefusal, given: { count: number }): Mutant {
  return {
    name: `live-replay ${id}`,
    description: `${r.operation}${r.header ? ` with a failing ${r.header}` : ""} refused ${r.status} ${r.code}, as recorded live`,
    kills: [],
    onResponse(req, res) {
      if (!matches(r, req) || (r.header && !(r.header in req.headers)) || !rewritable(r, res)) return;
      given.count++;
      const recorded = errorAnswer(req, r.status, r.code);
      Object.assign(res, {
        status: recorded.status,
        body: recorded.body,
        headers: { ...recorded.headers, "x-ms-request-id": res.headers["x-ms-request-id"] ?? "" },
      });
    },
  };
}

await loadAllSuites();
const refusals = [...liveAnswers()].filter((e): e is [string, { source: string; refused: RecordedRefusal }] => !!e[1].refused);
const limit = pLimit(6);
let runs: Map<string, Promise<{ result?: RowResult; rewritten: number }>> | undefined;
function start() {
  runs ??= new Map(
    refusals
      .filter(([id]) => !(id in NOT_PRODUCIBLE))
      .map(([id, a]) => [
        id,
        limit(async () => {
          const azurite = await sharedAzurite();
          const given = { count: 0 };
          const proxy = await startProxy({ upstream: azurite.ports, mutant: replay(id, a.refused, given) });
          try {
            const run = await runHeadless({ connectionString: proxy.connectionString, select: (x) => x === id });
            return { result: run.results.find((r) => r.id === id), rewritten: given.count };
          } finally {
            await proxy.stop();
          }
        }),
      ]),
  );
  return runs;
}

describe("a recorded Azure answer never fails a row", function () {
  it("every row of the live answers is registered, and every one the proxy cannot produce is a live refusal", function () {
    const registered = new Set(registeredRows().map((r) => r.row.id));
    expect(
      [...liveAnswers().keys()].filter((id) => !registered.has(id)),
      "live answers of no registered row",
    ).to.deep.equal([]);
    const ids = new Set(refusals.map(([id]) => id));
    expect(
      Object.keys(NOT_PRODUCIBLE).filter((id) => !ids.has(id)),
      "NOT_PRODUCIBLE names no live refusal",
    ).to.deep.equal([]);
    expect(refusals.length - Object.keys(NOT_PRODUCIBLE).length, "live refusals the proxy produces").to.be.at.least(20);
  });
  for (const [id, a] of refusals.filter(([x]) => !(x in NOT_PRODUCIBLE))) {
    it(`${id}: ${a.refused.operation}${a.refused.header ? ` with a failing ${a.refused.header}` : ""} answered ${a.refused.status} ${a.refused.code} (${a.source}) passes`, async function () {
      const { result, rewritten } = await start().get(id)!;
      expect(result, "the row ran").to.not.equal(undefined);
      expect(rewritten, "answers the replay gave as recorded").to.be.greaterThan(0);
      expect(`${result!.observed}${result!.message ? `: ${result!.message}` : ""}`).to.equal("PASS");
    });
  }
});
