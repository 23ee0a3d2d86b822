// X-A, the append conditions: the headers, the code a failing value gets, and
// the shape of a claim (the operation and header a row is about, and whether
// it sends a failing value, a holding one or both). Each claim is stated
// beside its row (append.rows.ts, APPEND_CLAIMS);
// selftest/mutants/append-conditions.ts generates a mutant per claim.

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

export const POS = { header: APPENDPOS, code: "AppendPositionConditionNotMet" } as const;
export const MAX = { header: MAXSIZE, code: "MaxBlobSizeConditionNotMet" } as const;
