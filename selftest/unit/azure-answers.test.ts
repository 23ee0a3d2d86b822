// Azure's own answers (catalogue S, DESIGN "Azure's own answers"): every
// answer a row claims (RowDef.answers) is set against the recorded live
// exchanges of the same shape (catalogue/azure-answers.jsonl, written by
// `npm run answers` from the SDKs' test recordings). A claim a recording
// contradicts fails here, naming the row, the record and its source.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { assert } from "chai";
import { claimedAnswersWithoutRow, loadAllSuites, registeredRows } from "../../fixtures/harness/registry.ts";
import { ROOT } from "../../fixtures/paths.ts";
import {
  answerAgrees,
  claimsRefusal,
  contradictionsOf,
  parseAnswers,
  parseUncoveredReasons,
  recordMatches,
  recordsOf,
  shapeKey,
  uncoveredKey,
  uncoveredOf,
  type ClaimedAnswer,
  type RecordedAnswer,
} from "../../model/answers.ts";

const RECORDS = parseAnswers(readFileSync(join(ROOT, "catalogue", "azure-answers.jsonl"), "utf8"));

/** Each contradiction in words: the row, the claim's shape, what it accepts, and the record that answered otherwise. */
export function contradictions(rows: { id: string; answers?: ClaimedAnswer[] }[], records: RecordedAnswer[]): string[] {
  return rows.flatMap((row) =>
    contradictionsOf(row.answers ?? [], records).map(({ claim, record }) => {
      const accepts = claim.accepts?.map((a) => `${a.status}${a.codes ? " " + a.codes.join("/") : ""}`).join(" or ") ?? "";
      const refuses = claim.refuses ? `not ${claim.refuses.join(" or ")}` : "";
      const s = record.source;
      return `${row.id}: claims ${[accepts, refuses].filter(Boolean).join(", ")} for ${shapeKey(record)}; Azure answered ${record.status}${record.code ? " " + record.code : ""} (x-ms-version ${record.version ?? "?"}; ${s.sdk}: ${s.repo}/${s.path}@${s.commit.slice(0, 10)}, exchange ${s.index})`;
    }),
  );
}

describe("Azure's own answers: no row claims what a recorded live answer contradicts", function () {
  before(() => loadAllSuites());

  it("the corpus: every record names its source; at least 500 exchanges, from at least four SDKs, of every service", function () {
    const unsourced = RECORDS.filter((r) => !r.source?.repo || !r.source.path || !/^[0-9a-f]{40}$/.test(r.source.commit));
    assert.deepEqual(unsourced.map(shapeKey), []);
    assert.isAtLeast(RECORDS.length, 500);
    assert.isAtLeast(new Set(RECORDS.map((r) => r.source.sdk)).size, 4);
    assert.sameMembers([...new Set(RECORDS.map((r) => r.service))], ["blob", "queue", "table", "file"]);
  });

  it("every ID of suites/claimed-answers.ts is a registered row", function () {
    assert.deepEqual(claimedAnswersWithoutRow(), []);
  });

  it("no claim of any row is contradicted by a recorded answer of its shape", function () {
    const rows = registeredRows().map((r) => r.row);
    assert.isAbove(rows.filter((r) => r.answers?.length).length, 300, "rows that state their claimed answers");
    assert.deepEqual(contradictions(rows, RECORDS), []);
  });

  it("backs at least half of the rows whose claim is a refusal with a recorded refusal of that claim, as the README says", function () {
    const refusing = registeredRows()
      .map((r) => r.row)
      .filter((r) => r.answers?.some(claimsRefusal));
    const backed = refusing.filter((r) =>
      r.answers!.filter(claimsRefusal).some((c) => recordsOf(c, RECORDS).some((rec) => answerAgrees(c, rec))),
    );
    assert.isAtLeast(backed.length / refusing.length, 0.5, `${backed.length} of ${refusing.length}`);
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    assert.include(
      readme,
      `${backed.length} of the ${refusing.length} whose claim is a refusal (${Math.round((100 * backed.length) / refusing.length)} %)`,
    );
  });

  it("every recorded answer no row claims has a line in catalogue/azure-answers-uncovered.tsv saying why, and no line there is stale (npm run answers -- --uncovered)", function () {
    const claims = registeredRows().flatMap(({ row }) => row.answers ?? []);
    const uncovered = uncoveredOf(claims, RECORDS);
    const reasons = parseUncoveredReasons(readFileSync(join(ROOT, "catalogue", "azure-answers-uncovered.tsv"), "utf8"));
    assert.deepEqual(
      uncovered.filter((u) => !reasons.get(uncoveredKey(u))?.trim()).map(uncoveredKey),
      [],
      "recorded answers no row claims, without a reason",
    );
    const keys = new Set(uncovered.map(uncoveredKey));
    assert.deepEqual(
      [...reasons.keys()].filter((k) => !keys.has(k)),
      [],
      "lines for answers a row now claims (or the corpus no longer holds)",
    );
  });

  it("the lint finds a planted contradiction, and a record of another shape (another state, another value) does not match", function () {
    const record = RECORDS.find((r) => r.operation === "Set Blob Metadata" && r.params["if-match"] === "other" && r.status === 412)!;
    assert.isDefined(record, "a recorded refusal of a stale If-Match on Set Blob Metadata");
    const claim: ClaimedAnswer = {
      service: "blob",
      operation: "Set Blob Metadata",
      params: { "if-match": "other" },
      state: { lease: "available" },
      accepts: [{ status: 200 }],
    };
    const found = contradictions([{ id: "blob/planted/contradiction", answers: [claim] }], [record]);
    assert.lengthOf(found, 1);
    assert.match(
      found[0],
      /^blob\/planted\/contradiction: claims 200 for blob \| Set Blob Metadata \| if-match=other .* Azure answered 412 ConditionNotMet/,
    );
    // Another state, another value, another parameter set: no match, so no contradiction.
    assert.isFalse(recordMatches({ ...claim, state: { lease: "leased" } }, record));
    assert.isFalse(recordMatches({ ...claim, params: { "if-match": "current" } }, record));
    assert.isFalse(recordMatches({ ...claim, params: { "if-none-match": "current" } }, record));
    // A record that cannot show a state the claim names never matches it.
    assert.isFalse(recordMatches(claim, { ...record, state: {} }));
  });
});
