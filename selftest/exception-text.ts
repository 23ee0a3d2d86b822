// An exception's text in a row's verdict is the suite's defect, whatever the
// target answered: a row reports the operation and what its answer lacked
// (fixtures/harness/verdict-of-error.ts, assert.ts expectDate/expectPresent), and the
// suite's own bug is ERROR. Self-tests that run rows check their results
// with this (odd-answers, mutation, half-featured and faulty targets).
import type { Status } from "../model/result.ts";

/** Texts only an exception (or a value it left behind) puts in a message. */
const EXCEPTION_TEXT =
  /\b(TypeError|RangeError|SyntaxError|ReferenceError)\b|Cannot read propert|is not a function|Invalid time value|Invalid Date|Stream drains|\bundefined\b|\bNaN\b|\[object Object\]/;

/** The rows whose verdict is the suite's own error or carries an exception's text: "id: status message". */
export function exceptionVerdicts(results: { id: string; status: Status; message?: string }[]): string[] {
  return results
    .filter((r) => r.status === "ERROR" || EXCEPTION_TEXT.test(r.message ?? ""))
    .map((r) => `${r.id}: ${r.status} ${r.message ?? ""}`.slice(0, 400));
}
