// X-A, the append conditions as data: each row that sends an append
// condition, the operation and header it is about, the code a failing value
// gets, and whether the row sends a failing value, a holding one or both.
// append.rows.ts runs the rows; selftest/mutants/append-conditions.ts
// generates a mutant per claim from this table.

export const APPENDPOS = "x-ms-blob-condition-appendpos";
export const MAXSIZE = "x-ms-blob-condition-maxsize";
export const A = "blob/append/";

export interface AppendClaim {
  row: string;
  operation: "Append Block" | "Append Blob Seal" | "Append Block From URL";
  header: typeof APPENDPOS | typeof MAXSIZE;
  code: "AppendPositionConditionNotMet" | "MaxBlobSizeConditionNotMet";
  /** The row sends a value that fails (refused, the blob unchanged). */
  failing: boolean;
  /** The row sends a value that holds (the operation proceeds). */
  holding: boolean;
}

const pos = { header: APPENDPOS, code: "AppendPositionConditionNotMet" } as const;
const max = { header: MAXSIZE, code: "MaxBlobSizeConditionNotMet" } as const;

export const APPEND_CLAIMS: AppendClaim[] = [
  { row: "blob/append/appendpos/holds", operation: "Append Block", ...pos, failing: false, holding: true },
  { row: "blob/append/appendpos/fails", operation: "Append Block", ...pos, failing: true, holding: false },
  { row: "blob/append/appendpos/retry-once", operation: "Append Block", ...pos, failing: true, holding: true },
  { row: "blob/append/appendpos/race", operation: "Append Block", ...pos, failing: true, holding: true },
  { row: "blob/append/maxsize/fails", operation: "Append Block", ...max, failing: true, holding: false },
  { row: "blob/append/maxsize/boundary", operation: "Append Block", ...max, failing: true, holding: true },
  { row: "blob/append/seal/appendpos", operation: "Append Blob Seal", ...pos, failing: true, holding: true },
  { row: "blob/append/from-url/appendpos", operation: "Append Block From URL", ...pos, failing: true, holding: true },
  { row: "blob/append/from-url/maxsize", operation: "Append Block From URL", ...max, failing: true, holding: false },
];
