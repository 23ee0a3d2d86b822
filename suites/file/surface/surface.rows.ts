// S The whole concurrency surface, file side: a row for every pair of
// catalogue/surface.tsv's file service that no row of section F sends both
// holding and failing, generated from the pairs' table (surface-claims.ts),
// each running the cases its rule gives (surface-rules.ts).
import type { RowContext, RowDef } from "../../../fixtures/harness/engine.ts";
import { claimAt } from "../../../fixtures/harness/locations.ts";
import { defineTable } from "../../../fixtures/harness/registry.ts";
import { claimText, CLAIMS, CLAIMS_URL, surfaceRowId } from "./surface-claims.ts";
import { answersOfPair, mayPermitFailing, runPair, titleOf } from "./surface-rules.ts";

const rows: RowDef[] = CLAIMS.filter((c) => !c.coveredBy).map((c) => ({
  id: surfaceRowId(c),
  claim: claimAt(CLAIMS_URL, claimText(c)),
  title: titleOf(c),
  level: c.disputed || mayPermitFailing(c) ? "disputed" : "rest",
  source: `catalogue S; REST: ${c.op} (${c.parameter})${c.disputed ? `; disputed: ${c.disputed}` : ""}`,
  service: "file",
  surface: [{ operation: c.op, parameter: c.parameter }],
  answers: answersOfPair(c),
  run: (t: RowContext) => runPair(t, c),
}));

defineTable({ table: "S The whole concurrency surface (file)", service: "file" }, rows);
