// X-U, the conditions of the From-URL operations as data: each operation's
// record (operations.ts) and, per side (source, destination) and header, the
// refusal the catalogue gives, live-recorded where it could be, a documented
// choice where not (`disputed`). from-url.rows.ts generates a row per cell;
// selftest/mutants/from-url.ts a mutant family per cell.
import { claimAt, type ClaimRef } from "../../fixtures/harness/locations.ts";
import { HEADERS, type CondHeader } from "./conditional-claims.ts";
import { op, type BlobOperation } from "./operations.ts";

export const U = "blob/from-url/";

export interface Refusal {
  status: number[];
  code: string[];
}

export interface FromUrlCell {
  id: string;
  /** Its operation's line in TABLE. */
  at: ClaimRef;
  record: BlobOperation;
  /** The slug in the ID (`put-blob`, …), not the record's. */
  opSlug: string;
  side: "source" | "destination";
  header: CondHeader;
  /** The header as sent: `x-ms-source-if-match` or `if-match`. */
  wireHeader: string;
  refusal: Refusal;
  /** More than one answer is documented: the row records the target's choice. */
  disputed: boolean;
}

const of = (status: number, code: string): Refusal => ({ status: [status], code: [code] });
const notModified = (h: CondHeader) => h === "if-none-match" || h === "if-modified-since";
/** (S): 412, or 304 for the "not" headers; SourceConditionNotMet or CannotVerifyCopySource. */
const S = (h: CondHeader): Refusal => ({
  status: notModified(h) ? [412, 304] : [412],
  code: ["SourceConditionNotMet", "CannotVerifyCopySource"],
});
/** (D): 412 TargetConditionNotMet or ConditionNotMet; a 304 fails. */
const D: Refusal = { status: [412], code: ["TargetConditionNotMet", "ConditionNotMet"] };
const verify = (h: CondHeader) => of(notModified(h) ? 304 : 412, "CannotVerifyCopySource");
/** Live recordings that differ from one another: either answer, the row records which (`disputed`). */
const either = (...refusals: Refusal[]): { either: Refusal } => ({
  either: { status: [...new Set(refusals.flatMap((r) => r.status))], code: [...new Set(refusals.flatMap((r) => r.code))] },
});

type Column = Record<CondHeader, Refusal | "S" | "D" | { either: Refusal }>;
/** Every source condition refused as a source that cannot be verified (CannotVerifyCopySource). */
const allVerify = (): Partial<Column> => Object.fromEntries(HEADERS.map((h) => [h, verify(h)]));
const row = (m: Partial<Column>, rest: "S" | "D"): Column => Object.fromEntries(HEADERS.map((h) => [h, m[h] ?? rest])) as Column;

/** The catalogue's two tables: `<op>` → record, source cells, destination cells (none for Put Block From URL). */
const TABLE: [string, string, Column, Column | undefined][] = [
  [
    "put-blob",
    "put-blob-from-url",
    row({ "if-match": of(412, "SourceConditionNotMet") }, "S"),
    row({ "if-match": of(412, "TargetConditionNotMet") }, "D"),
  ],
  ["put-block", "put-block-from-url", row({}, "S"), undefined],
  [
    "append-block",
    "append-block-from-url",
    row(allVerify(), "S"),
    row(Object.fromEntries(HEADERS.map((h) => [h, of(412, "ConditionNotMet")])), "D"),
  ],
  // Destination if-match is (D): live recordings differ by service version (TargetConditionNotMet on 2018-11-09 and 2020-04-08, ConditionNotMet on 2021-08-06).
  // Source if-match and if-none-match, (S) in the catalogue (no capture then): recorded since, by Python (2018-11-09) and C++ (2021-04-10), as the other two.
  [
    "put-page",
    "put-page-from-url",
    row(allVerify(), "S"),
    row(
      {
        "if-unmodified-since": of(412, "ConditionNotMet"),
        "if-none-match": of(412, "ConditionNotMet"),
        "if-modified-since": of(412, "ConditionNotMet"),
      },
      "D",
    ),
  ],
  [
    "copy-blob",
    "copy-blob-from-url",
    // Source if-match: the catalogue's capture answered SourceConditionNotMet; C++'s
    // BlockBlobClientTest.SourceBlobAccessConditions (2021-04-10) answered CannotVerifyCopySource.
    row({ ...allVerify(), "if-match": either(of(412, "SourceConditionNotMet"), verify("if-match")) }, "S"),
    row({}, "D"),
  ],
];

export const FROM_URL_CELLS: FromUrlCell[] = TABLE.flatMap(([opSlug, slug, source, destination]) =>
  (["source", "destination"] as const).flatMap((side) => {
    const column = side === "source" ? source : destination;
    if (!column) return [];
    return HEADERS.map((header): FromUrlCell => {
      const given = column[header];
      const refusal = given === "S" ? S(header) : given === "D" ? D : "either" in given ? given.either : given;
      return {
        id: `${U}${opSlug}/${side}-${header}`,
        at: claimAt(import.meta.url, `"${opSlug}",`),
        record: op(slug),
        opSlug,
        side,
        header,
        wireHeader: side === "source" ? `x-ms-source-${header}` : header,
        refusal,
        disputed: given === "S" || given === "D" || "either" in given,
      };
    });
  }),
);

export const FROM_URL_OPS = TABLE.map(([opSlug, slug]) => ({ opSlug, record: op(slug) }));
