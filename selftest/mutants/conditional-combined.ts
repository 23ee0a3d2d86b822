// Mutants generated from the combination cases and the rules of section C
// (suites/blob/conditional-combined.rows.ts): one per case, breaking it the way
// the case names (a header ignored, 304 and 412 swapped, a made-up answer); for
// the disputed write pairs, a refusal whose write was applied anyway.
import { claimOf, HEADERS, type OpClaim } from "../../suites/blob/conditional-claims.ts";
import {
  READ_CASES,
  READ_ROWS,
  WRITE_CASES,
  WRITE_ROWS,
  type ReadCase,
  type WriteCase,
} from "../../suites/blob/conditional-combined.rows.ts";
import { errorResponse } from "./blob-kit.ts";
import { isClaimOp } from "./conditional.ts";
import type { Mutant, ProxyRequest } from "./types.ts";

const slugOf = (row: string) => row.slice(row.lastIndexOf("/") + 1);
/** The request is the case's: the row's operation carrying every header of the case. */
const isCase = (claim: OpClaim, c: ReadCase | WriteCase, req: ProxyRequest) =>
  isClaimOp(claim, req) && Object.keys(c.headers).every((h) => req.headers[h] !== undefined);

function breaksRead(row: string, c: ReadCase): Mutant {
  const claim = claimOf(row);
  const b = c.break;
  const base = { name: `cond-${slugOf(row)}-combined-${c.slug}-broken`, kills: [`${row}/conditional/combined/${c.slug}`] };
  if (b === "swap-304-412") {
    return {
      ...base,
      description: `${claim.operation} with ${Object.keys(c.headers).join(" and ")}: 304 and 412 swapped`,
      onResponse(req, res) {
        if (isCase(claim, c, req) && (res.status === 304 || res.status === 412))
          Object.assign(res, errorResponse(req, res.status === 304 ? 412 : 304, "ConditionNotMet"));
      },
    };
  }
  if ("strip" in b) {
    return {
      ...base,
      description: `${claim.operation} ignores ${b.strip} when it comes with ${Object.keys(c.headers)
        .filter((h) => h !== b.strip)
        .join(" and ")}`,
      onRequest(req) {
        if (isCase(claim, c, req)) delete req.headers[b.strip];
      },
    };
  }
  return {
    ...base,
    description: `${claim.operation} answers ${b.answer} to ${Object.entries(c.headers)
      .map(([h, v]) => `${h} (${v})`)
      .join(" and ")}`,
    onRequest(req) {
      if (isCase(claim, c, req))
        return errorResponse(req, b.answer, b.answer === 400 ? "MultipleConditionHeadersNotSupported" : "ConditionNotMet");
    },
  };
}

function refusedButApplied(row: string, c: WriteCase): Mutant {
  const claim = claimOf(row);
  return {
    name: `cond-${slugOf(row)}-combined-${c.slug}-refused-but-applied`,
    description: `${claim.operation} with ${Object.keys(c.headers).join(" and ")} answers 412 but applies the write`,
    kills: [`${row}/conditional/combined/${c.slug}`],
    onRequest(req, state) {
      if (!isCase(claim, c, req)) return;
      for (const h of HEADERS) delete req.headers[h];
      state.set(`applied:${req.url}`, true);
    },
    onResponse(req, res, state) {
      if (state.get(`applied:${req.url}`) && res.status < 300) Object.assign(res, errorResponse(req, 412, "ConditionNotMet"));
    },
  };
}

const PROPS = claimOf("blob/blob-ops/get-blob-properties");
const META = claimOf("blob/blob-ops/set-blob-metadata");

export const MUTANTS: Mutant[] = [
  ...READ_ROWS.flatMap((row) => READ_CASES.map((c) => breaksRead(row, c))),
  ...WRITE_ROWS.flatMap((row) => WRITE_CASES.map((c) => refusedButApplied(row, c))),
  {
    name: "cond-rules-unquoted-etag-never-matches",
    description: "Set Blob Metadata treats an unquoted ETag in If-Match as never matching (412)",
    kills: ["blob/conditional-rules/unquoted-etag"],
    onRequest(req) {
      const im = req.headers["if-match"];
      if (isClaimOp(META, req) && im !== undefined && !im.startsWith('"')) return errorResponse(req, 412, "ConditionNotMet");
    },
  },
  {
    name: "cond-rules-ims-equal-counts-as-modified",
    description: "If-Modified-Since equal to Last-Modified counts as modified (Get Blob Properties answers 200, not 304)",
    kills: ["blob/conditional-rules/date-granularity"],
    onRequest(req) {
      if (isClaimOp(PROPS, req)) delete req.headers["if-modified-since"];
    },
  },
  {
    name: "cond-rules-ius-equal-counts-as-modified",
    description: "If-Unmodified-Since equal to Last-Modified fails (Set Blob Metadata answers 412)",
    kills: ["blob/conditional-rules/date-granularity"],
    onRequest(req) {
      if (isClaimOp(META, req) && req.headers["if-unmodified-since"] !== undefined) return errorResponse(req, 412, "ConditionNotMet");
    },
  },
];
