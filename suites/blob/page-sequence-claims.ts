// X-S, the page-blob sequence-number conditions as data: the two page writes
// and the three conditions, each with its holding and failing value around
// N (the number each cell sets first). page-sequence.rows.ts generates a row
// per cell; selftest/mutants/page-sequence.ts a mutant family per cell.
import { claimAt, type ClaimRef } from "../../fixtures/harness/locations.ts";

export const S = "blob/page-sequence/";
/** The sequence number every cell sets before it writes. */
export const N = 5;

export const PAGE_WRITES = [
  { slug: "put-page", operation: "Put Page", write: "update" },
  { slug: "clear-pages", operation: "Put Page", write: "clear" },
] as const;

export const SEQUENCE_CONDITIONS = [
  { slug: "if-le", header: "x-ms-if-sequence-number-le", sign: "≤", holds: N, fails: N - 1 },
  { slug: "if-lt", header: "x-ms-if-sequence-number-lt", sign: "<", holds: N + 1, fails: N },
  { slug: "if-eq", header: "x-ms-if-sequence-number-eq", sign: "=", holds: N, fails: N + 1 },
] as const;

export type PageWrite = (typeof PAGE_WRITES)[number];
export type SequenceCondition = (typeof SEQUENCE_CONDITIONS)[number];

export interface SequenceCell {
  id: string;
  /** Its condition's line in SEQUENCE_CONDITIONS. */
  at: ClaimRef;
  write: PageWrite;
  condition: SequenceCondition;
}

export const SEQUENCE_CELLS: SequenceCell[] = PAGE_WRITES.flatMap((write) =>
  SEQUENCE_CONDITIONS.map((condition) => ({
    id: `${S}${write.slug}/${condition.slug}`,
    at: claimAt(import.meta.url, `slug: "${condition.slug}"`),
    write,
    condition,
  })),
);
