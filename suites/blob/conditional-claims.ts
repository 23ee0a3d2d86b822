// C Conditional requests in detail: the T1 and T2 "Accepts conditional
// headers" cells as data. One entry per operation: what the seed says, which
// headers the REST page accepts, its kind, the raw request that performs it and
// the change a permitted write leaves behind. conditional.rows.ts generates the
// rows `<row>/conditional/<header>` from this table, and
// selftest/mutants/conditional.ts a family of mutants per cell.
import type { MatrixPlace } from "../../fixtures/harness/registry.ts";
import { claimAt } from "../../fixtures/harness/locations.ts";
import { op, type BlobOperation } from "./operations.ts";

export { BLOCK_ID, LEASE_ID, NEW_CONTENT, OTHER, SOURCE_CONTENT, type ResourceState, type Subject } from "./operations.ts";

export const HEADERS = ["if-match", "if-none-match", "if-modified-since", "if-unmodified-since"] as const;
export type CondHeader = (typeof HEADERS)[number];
export const HEADER_LABEL: Record<CondHeader, string> = {
  "if-match": "IM",
  "if-none-match": "INM",
  "if-modified-since": "IMS",
  "if-unmodified-since": "IUS",
};

/** An operation's "Accepts conditional headers" claim, beside its record (operations.ts). */
export interface OpClaim extends BlobOperation {
  /** Catalogue row; its cells are `<row>/conditional/<header>` (and `source-<header>`). */
  row: string;
  /** The seed's "Accepts conditional headers". */
  conditional: boolean;
  /** What the REST page says the operation accepts, where it is not all four. */
  accepts?: readonly CondHeader[];
  /** The `rest`-level code of a refusal (ConditionNotMet unless given). */
  code?: string;
  /** Copy Blob: a second set of cells on the source (`x-ms-source-if-*`, code SourceConditionNotMet). */
  source?: { code: string };
  /** Abort Copy Blob: the other writer's change is a copy left pending (else PRECONDITION_FAILED). */
  pendingCopy?: boolean;
  /** Create Container: the request creates a new resource; the validators come from a sibling the client read. */
  creates?: boolean;
  /** The seed's cell text, where it says more than Yes/No. */
  matrixText?: string;
}

const T1 = "blob/container-ops/";
const T2 = "blob/blob-ops/";

export const CLAIMS: OpClaim[] = [
  // T1: Set Container Metadata accepts If-Modified-Since only; Set Container ACL,
  // Delete Container and Lease Container both date headers (REST pages).
  { row: `${T1}create-container`, ...op("create-container"), conditional: false, creates: true },
  { row: `${T1}get-container-properties`, ...op("get-container-properties"), conditional: false },
  { row: `${T1}get-container-metadata`, ...op("get-container-metadata"), conditional: false },
  { row: `${T1}set-container-metadata`, ...op("set-container-metadata"), conditional: true, accepts: ["if-modified-since"] },
  { row: `${T1}get-container-acl`, ...op("get-container-acl"), conditional: false },
  { row: `${T1}set-container-acl`, ...op("set-container-acl"), conditional: true, accepts: ["if-modified-since", "if-unmodified-since"] },
  { row: `${T1}delete-container`, ...op("delete-container"), conditional: true, accepts: ["if-modified-since", "if-unmodified-since"] },
  { row: `${T1}lease-container`, ...op("lease-container"), conditional: true, accepts: ["if-modified-since", "if-unmodified-since"] },
  { row: `${T1}list-blobs`, ...op("list-blobs"), conditional: false },
  // T2: every "yes" operation accepts all four headers.
  { row: `${T2}put-blob`, ...op("put-blob"), conditional: true },
  { row: `${T2}get-blob`, ...op("get-blob"), conditional: true },
  { row: `${T2}get-blob-properties`, ...op("get-blob-properties"), conditional: true },
  { row: `${T2}set-blob-properties`, ...op("set-blob-properties"), conditional: true },
  { row: `${T2}get-blob-metadata`, ...op("get-blob-metadata"), conditional: true },
  { row: `${T2}set-blob-metadata`, ...op("set-blob-metadata"), conditional: true },
  { row: `${T2}lease-blob`, ...op("lease-blob"), conditional: true },
  { row: `${T2}snapshot-blob`, ...op("snapshot-blob"), conditional: true },
  // The asynchronous Copy Blob (no x-ms-requires-sync): Copy Blob From URL answers differently (catalogue, C).
  {
    row: `${T2}copy-blob`,
    ...op("copy-blob"),
    conditional: true,
    code: "TargetConditionNotMet",
    source: { code: "SourceConditionNotMet" },
    matrixText: "Yes (source and destination)",
  },
  { row: `${T2}abort-copy-blob`, ...op("abort-copy-blob"), conditional: false, pendingCopy: true },
  { row: `${T2}delete-blob`, ...op("delete-blob"), conditional: true },
  { row: `${T2}put-block`, ...op("put-block"), conditional: false },
  { row: `${T2}put-block-list`, ...op("put-block-list"), conditional: true },
  { row: `${T2}get-block-list`, ...op("get-block-list"), conditional: false },
  { row: `${T2}put-page`, ...op("put-page"), conditional: true },
  { row: `${T2}get-page-ranges`, ...op("get-page-ranges"), conditional: true },
];

/** One generated cell: an operation and a header, on the resource or (Copy Blob) on its source. */
export interface Cell {
  claim: OpClaim;
  header: CondHeader;
  onSource: boolean;
  id: string;
  /** The header as sent: `if-match` or `x-ms-source-if-match`. */
  wireHeader: string;
  /** The operation evaluates this header. */
  evaluated: boolean;
}

/**
 * The cells of a row: the accepted headers of a "yes" row, all four of a
 * "no" row (catalogue, C: "Required cells"), and Copy Blob's source set.
 */
export function cellsOf(claim: OpClaim): Cell[] {
  const headers = claim.conditional ? (claim.accepts ?? HEADERS) : HEADERS;
  const cell = (header: CondHeader, onSource: boolean): Cell => ({
    claim,
    header,
    onSource,
    id: `${claim.row}/conditional/${onSource ? "source-" : ""}${header}`,
    wireHeader: onSource ? `x-ms-source-${header}` : header,
    evaluated: claim.conditional,
  });
  return [...headers.map((h) => cell(h, false)), ...(claim.source ? HEADERS.map((h) => cell(h, true)) : [])];
}

export const ALL_CELLS: Cell[] = CLAIMS.flatMap(cellsOf);

/** The line of an operation's conditional claim in CLAIMS. */
export const conditionalAt = (claim: OpClaim) => claimAt(import.meta.url, `...op("${claim.slug}")`);

export function claimOf(row: string): OpClaim {
  const c = CLAIMS.find((x) => x.row === row);
  if (!c) throw new Error(`no conditional claim for ${row}`);
  return c;
}

/**
 * The T1/T2 cell "Accepts conditional headers" of a claim (none for a claim
 * outside T1 and T2); its header rows are finer rows inside it (`sub`: their label).
 */
export function conditionalPlace(claim: OpClaim, sub?: string): MatrixPlace[] {
  const section = claim.row.startsWith(T1) ? "T1" : claim.row.startsWith(T2) ? "T2" : undefined;
  if (!section) return [];
  const place = { section, row: claim.operation, column: "conditional" };
  return [sub === undefined ? { ...place, claim: claim.matrixText ?? (claim.conditional ? "Yes" : "No") } : { ...place, sub }];
}

/** A header row's label inside its T1/T2 cell. */
export const headerLabel = (c: Cell) => `${c.onSource ? "src " : ""}${HEADER_LABEL[c.header]}`;
