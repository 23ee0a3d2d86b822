// The suite never fails a recorded Azure answer. Generated from the corpus
// (catalogue/azure-answers.jsonl): for every row whose claim a recorded
// refusal of Azure's backs, the proxy turns the embedded Azurite's refusal of
// a request of that claim's shape (its operation, carrying its parameters)
// into the answer Azure was recorded giving (status and error code, in
// Azure's own error format), and the row must PASS. A claim with several
// recorded refusals (a disputed code, two service versions) is replayed once
// per answer. The file rows meet the file double (Azurite has no Files).
// Where the target cannot produce the refusal (it lacks the operation, or
// deviates there: the row's pin for its version), the row is listed as not
// producible with the reason its run gives, never silently left out.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "chai";
import pLimit from "p-limit";
import { runHeadless } from "./headless.ts";
import { loadAllSuites, registeredRows, serviceOfRow } from "../fixtures/harness/registry.ts";
import { startFileDouble } from "./file-double/server.ts";
import { ROOT } from "../fixtures/paths.ts";
import { answerAgrees, parseAnswers, recordsOf, type ClaimedAnswer, type RecordedAnswer } from "../model/answers.ts";
import type { RowResult } from "../model/result.ts";
import { surfaceOperationOf } from "../model/surface.ts";
import { sharedAzurite } from "./azurite-fixture.ts";
import { errorAnswer, operation, query, type Mutant, type ProxyRequest, type ProxyResponse } from "./mutants/types.ts";
import { startProxy } from "./proxy.ts";

interface Replay {
  claim: ClaimedAnswer;
  status: number;
  code?: string;
  /** Where Azure answered so: the first record's source. */
  source: string;
}

const RECORDS = parseAnswers(readFileSync(join(ROOT, "catalogue", "azure-answers.jsonl"), "utf8"));

/** Each row's recorded refusals, by claim: one replay per distinct answer. */
function replaysOf(claims: ClaimedAnswer[], records: RecordedAnswer[]): Replay[][] {
  return claims.map((claim) => {
    const seen = new Map<string, Replay>();
    for (const r of recordsOf(claim, records)) {
      if (r.status < 300 || !answerAgrees(claim, r)) continue;
      const key = `${r.status} ${r.code ?? ""}`;
      if (!seen.has(key))
        seen.set(key, {
          claim,
          status: r.status,
          code: r.code,
          source: `${r.source.sdk}: ${r.source.path.split("/").at(-1)}#${r.source.index}`,
        });
    }
    return [...seen.values()];
  });
}

/** The runs of a row: the k-th carries the k-th recorded answer of each claim that has one. */
function runsOf(perClaim: Replay[][]): Replay[][] {
  const most = Math.max(0, ...perClaim.map((r) => r.length));
  return Array.from({ length: most }, (_, k) => perClaim.flatMap((r) => (r[k] ? [r[k]] : [])));
}

/** A request of a claim's shape, as far as the wire shows it: its operation, carrying each parameter the claim names. */
function ofClaim(claim: ClaimedAnswer, req: ProxyRequest): boolean {
  const q = query(req);
  const name = surfaceOperationOf(operation(req), (h) => req.headers[h.toLowerCase()]);
  return (
    req.service === claim.service &&
    name === claim.operation &&
    Object.keys(claim.params).every((p) => req.headers[p] !== undefined || q.has(p))
  );
}

const refusal = (res: ProxyResponse) => res.status === 304 || (res.status >= 400 && res.status < 500);

/**
 * The target answers each refused request of a replay's shape as Azure was
 * recorded answering it; `given` counts them. Only a refusal the claim itself
 * accepts is rewritten: the wire does not show the state, and a request of
 * the same operation and parameters in another state (an ID on an unleased
 * share, where the claim is about a leased one) draws another refusal, which
 * stays as the target gave it.
 */
function replay(row: string, run: Replay[], given: { count: number }): Mutant {
  return {
    name: `live-replay ${row}`,
    description: run.map((r) => `${r.claim.operation} answered ${r.status} ${r.code ?? ""}`).join("; "),
    kills: [],
    onResponse(req, res) {
      if (!refusal(res)) return;
      const answered = { status: res.status, code: res.headers["x-ms-error-code"] } as RecordedAnswer;
      const r = run.find((x) => ofClaim(x.claim, req) && answerAgrees(x.claim, answered));
      if (!r) return;
      given.count++;
      const recorded = errorAnswer(req, r.status, r.code ?? "");
      if (!r.code) delete recorded.headers["x-ms-error-code"];
      Object.assign(res, {
        status: recorded.status,
        body: r.status === 304 ? Buffer.alloc(0) : recorded.body,
        headers: { ...recorded.headers, "x-ms-request-id": res.headers["x-ms-request-id"] ?? "" },
      });
    },
  };
}

await loadAllSuites();
const ROWS = registeredRows()
  .map(({ row }) => ({ id: row.id, runs: runsOf(replaysOf(row.answers ?? [], RECORDS)) }))
  .filter((r) => r.runs.length);
const RUNS = ROWS.flatMap((r) => r.runs.map((run, k) => ({ id: r.id, k, run })));

/** Statuses that say the embedded Azurite cannot produce the claim's refusal: a pinned deviation, an operation it lacks, a feature it has not. */
const NOT_PRODUCIBLE = new Set(["EXPECTED_FAIL", "UNSUPPORTED", "NOT_AVAILABLE", "PRECONDITION_FAILED"]);

const limit = pLimit(6);
let runs: Map<string, Promise<{ result?: RowResult; rewritten: number }>> | undefined;
const start = () =>
  (runs ??= new Map(
    RUNS.map(({ id, k, run }) => [
      `${id}#${k}`,
      limit(async () => {
        // The file rows meet the file double (selftest/file-double/), which follows the REST reference: Azurite has no Files.
        const onFiles = serviceOfRow(id) === "file";
        const double = onFiles ? await startFileDouble() : undefined;
        const upstream = double ? { file: double.port } : (await sharedAzurite()).ports;
        const given = { count: 0 };
        const proxy = await startProxy({ upstream, mutant: replay(id, run, given) });
        try {
          const result = await runHeadless({
            connectionString: proxy.connectionString,
            expectations: onFiles ? "none" : "azurite",
            select: (x) => x === id,
          });
          return { result: result.results.find((r) => r.id === id), rewritten: given.count };
        } finally {
          await proxy.stop();
          await double?.stop();
        }
      }),
    ]),
  ));

describe("a recorded Azure answer never fails a row (generated from catalogue/azure-answers.jsonl)", function () {
  it("the recorded refusals the corpus holds for the rows' claims are replayed", function () {
    expect(ROWS.length, "rows with a recorded refusal of their claims").to.be.at.least(50);
  });
  for (const { id, k, run } of RUNS) {
    const what = run.map((r) =>
      `${r.claim.operation} ${Object.keys(r.claim.params).join(", ") || "(no parameter)"} → ${r.status} ${r.code ?? ""}`.trim(),
    );
    it(`${id}${k ? ` (${k + 1})` : ""}: ${what.join("; ")} (${run[0].source}) passes, or the embedded Azurite cannot produce it`, async function () {
      const { result, rewritten } = await start().get(`${id}#${k}`)!;
      expect(result, "the row ran").to.not.equal(undefined);
      // Passing with Azure's answer where Azurite's own deviates (its pin then reads UNEXPECTED_PASS) is the point.
      if (result!.observed !== "PASS" && NOT_PRODUCIBLE.has(result!.status)) {
        this.test!.title += ` [not producible: ${result!.status}${result!.expectation?.reason ? `, ${result!.expectation.reason.slice(0, 80)}` : ""}]`;
        return;
      }
      expect(rewritten, "answers the replay gave as recorded").to.be.greaterThan(0);
      expect(result!.observed === "PASS" ? "PASS" : `${result!.observed}: ${result!.message ?? ""}`).to.equal("PASS");
    });
  }
});
