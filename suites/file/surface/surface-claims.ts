// S The whole concurrency surface, file side: every (REST operation,
// concurrency parameter) pair catalogue/surface.tsv lists for the file
// service, with the rule of catalogue S it must honour. A pair that a row of
// section F already sends both holding and failing names that row
// (`coveredBy`); every other pair gets its own row,
// `file/surface/<operation>/<parameter>` (surface.rows.ts), and every pair a
// family of mutants of the file double (selftest/file-double/surface-mutants.ts).

/** The rule a pair honours (catalogue S), which decides its cases (surface-rules.ts). */
export type Rule =
  /** x-ms-lease-id on a file operation: the holder's ID succeeds, another → 412, a write without one → 412 LeaseIdMissing. */
  | "file-lease-id"
  /** x-ms-lease-id on a share operation: a share lease locks the share's writes; the container's codes; an ID on an unleased share → 412. */
  | "share-lease-id"
  /** x-ms-source-lease-id on a rename: the leased source needs its ID. */
  | "source-lease-id"
  /** x-ms-lease-id on a lease action: another ID → 409 LeaseIdMismatchWithLeaseOperation. */
  | "lease-action-id"
  /** x-ms-lease-id on Lease File break: any authorized request may break, so another ID draws 202 or 409 (disputed). */
  | "break-lease-id"
  /** x-ms-proposed-lease-id: on acquire another's ID → 409 LeaseAlreadyPresent; on change a malformed one → 400. */
  | "proposed-lease-id"
  /** x-ms-lease-duration on Lease Share acquire: 15–60 or -1, otherwise 400. */
  | "lease-duration"
  /** x-ms-lease-break-period on Lease Share break: 0–60, otherwise 400. */
  | "break-period"
  /** Put Range From URL's source CRC64 conditions: a failing one → 412, the destination unchanged. */
  | "crc64-match"
  | "crc64-none-match";

export interface SurfaceClaim {
  /** The REST operation, exactly as catalogue/surface.tsv names it. */
  op: string;
  /** The parameter, lower case as in catalogue/surface.tsv. */
  parameter: string;
  rule: Rule;
  /** Rows of section F that already send the pair holding and failing (then it gets no row of its own). */
  coveredBy?: string[];
  /** Why the pair's claim is `disputed` (catalogue S), where it is. */
  disputed?: string;
}

const NFS_ONLY =
  "NFS shares only (2025-05-05 / 2025-07-05); the lease claims rest on the reference page alone: live SDK tests sent a lease ID to an unleased target and got 201";

const W = (slug: string) => [`file/lease/${slug}/without-id`, `file/lease/${slug}/wrong-id`];

export const CLAIMS: SurfaceClaim[] = [
  { op: "Create File", parameter: "x-ms-lease-id", rule: "file-lease-id", coveredBy: W("create") },
  { op: "Put Range", parameter: "x-ms-lease-id", rule: "file-lease-id", coveredBy: W("put-range") },
  { op: "Set File Metadata", parameter: "x-ms-lease-id", rule: "file-lease-id", coveredBy: W("set-metadata") },
  { op: "Set File Properties", parameter: "x-ms-lease-id", rule: "file-lease-id", coveredBy: W("set-properties") },
  { op: "Delete File", parameter: "x-ms-lease-id", rule: "file-lease-id", coveredBy: W("delete") },
  { op: "Put Range From URL", parameter: "x-ms-lease-id", rule: "file-lease-id" },
  { op: "Get File", parameter: "x-ms-lease-id", rule: "file-lease-id" },
  { op: "Get File Properties", parameter: "x-ms-lease-id", rule: "file-lease-id" },
  { op: "List Ranges", parameter: "x-ms-lease-id", rule: "file-lease-id" },
  { op: "Copy File", parameter: "x-ms-lease-id", rule: "file-lease-id" },
  { op: "Abort Copy File", parameter: "x-ms-lease-id", rule: "file-lease-id" },
  { op: "Create Hard Link", parameter: "x-ms-lease-id", rule: "file-lease-id", disputed: NFS_ONLY },
  { op: "Create Symbolic Link", parameter: "x-ms-lease-id", rule: "file-lease-id", disputed: NFS_ONLY },
  { op: "Delete Share", parameter: "x-ms-lease-id", rule: "share-lease-id" },
  { op: "Get Share Properties", parameter: "x-ms-lease-id", rule: "share-lease-id" },
  { op: "Set Share Properties", parameter: "x-ms-lease-id", rule: "share-lease-id" },
  { op: "Set Share Metadata", parameter: "x-ms-lease-id", rule: "share-lease-id" },
  { op: "Get Share ACL", parameter: "x-ms-lease-id", rule: "share-lease-id" },
  { op: "Set Share ACL", parameter: "x-ms-lease-id", rule: "share-lease-id" },
  { op: "Get Share Stats", parameter: "x-ms-lease-id", rule: "share-lease-id" },
  { op: "Rename File", parameter: "x-ms-source-lease-id", rule: "source-lease-id" },
  {
    op: "Lease File (acquire)",
    parameter: "x-ms-lease-duration",
    rule: "lease-duration",
    coveredBy: ["file/lease/acquire/finite-refused"],
  },
  {
    op: "Lease File (acquire)",
    parameter: "x-ms-proposed-lease-id",
    rule: "proposed-lease-id",
    coveredBy: ["file/lease/acquire/infinite"],
  },
  { op: "Lease File (change)", parameter: "x-ms-lease-id", rule: "lease-action-id" },
  { op: "Lease File (change)", parameter: "x-ms-proposed-lease-id", rule: "proposed-lease-id" },
  { op: "Lease File (release)", parameter: "x-ms-lease-id", rule: "lease-action-id" },
  { op: "Lease File (break)", parameter: "x-ms-lease-id", rule: "break-lease-id" },
  { op: "Lease Share (acquire)", parameter: "x-ms-lease-duration", rule: "lease-duration" },
  { op: "Lease Share (acquire)", parameter: "x-ms-proposed-lease-id", rule: "proposed-lease-id" },
  { op: "Lease Share (renew)", parameter: "x-ms-lease-id", rule: "lease-action-id" },
  { op: "Lease Share (change)", parameter: "x-ms-lease-id", rule: "lease-action-id" },
  { op: "Lease Share (change)", parameter: "x-ms-proposed-lease-id", rule: "proposed-lease-id" },
  { op: "Lease Share (release)", parameter: "x-ms-lease-id", rule: "lease-action-id" },
  { op: "Lease Share (break)", parameter: "x-ms-lease-id", rule: "lease-action-id" },
  { op: "Lease Share (break)", parameter: "x-ms-lease-break-period", rule: "break-period" },
  { op: "Put Range From URL", parameter: "x-ms-source-if-match-crc64", rule: "crc64-match" },
  { op: "Put Range From URL", parameter: "x-ms-source-if-none-match-crc64", rule: "crc64-none-match" },
];

/** The operation in row IDs: lower-case words joined by '-', the variant appended (`lease-share-acquire`). */
export const opSlug = (op: string) => op.toLowerCase().replace(/[()]/g, "").split(/\s+/).filter(Boolean).join("-");

/** The row a pair has of its own (none when a row of section F covers it). */
export const surfaceRowId = (c: SurfaceClaim) => `file/surface/${opSlug(c.op)}/${c.parameter}`;

/** The rows that check a pair: its own, or those of section F that cover it. */
export const rowsOf = (c: SurfaceClaim): string[] => c.coveredBy ?? [surfaceRowId(c)];

/** The text of a pair's line in CLAIMS (its rows' claim). */
export const claimText = (c: SurfaceClaim) => `op: "${c.op}", parameter: "${c.parameter}"`;

/** The pairs a row covers (RowDef.surface), as catalogue/surface.tsv names them. */
export const surfaceOf = (rowId: string) =>
  CLAIMS.filter((c) => rowsOf(c).includes(rowId)).map((c) => ({ operation: c.op, parameter: c.parameter }));

/** What refuses a failing value of a pair (the double's mutants answer it to a holding one). */
export function failingRefusal(c: SurfaceClaim): { status: number; code: string } {
  const lease = c.op.startsWith("Lease ");
  switch (c.rule) {
    case "file-lease-id":
    case "source-lease-id":
      return { status: 412, code: "LeaseIdMismatchWithFileOperation" };
    case "share-lease-id":
      return { status: 412, code: "LeaseIdMismatchWithContainerOperation" };
    case "lease-action-id":
    case "break-lease-id":
      return { status: 409, code: "LeaseIdMismatchWithLeaseOperation" };
    case "proposed-lease-id":
      return lease && c.op.endsWith("(acquire)")
        ? { status: 409, code: "LeaseAlreadyPresent" }
        : { status: 400, code: "InvalidHeaderValue" };
    case "lease-duration":
    case "break-period":
      return { status: 400, code: "InvalidHeaderValue" };
    case "crc64-match":
    case "crc64-none-match":
      return { status: 412, code: "Crc64ConditionNotMet" };
  }
}

/** This module, where the pairs' lines are (their rows' claims). */
export const CLAIMS_URL = import.meta.url;
