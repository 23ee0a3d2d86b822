// A row's result as the engine hands it to judge/applyPin, for the unit tests
// of expectations and version-aware pins: `observed`, and the signature a FAIL
// with this message has.
import { signatureOf, type RowResult, type Status } from "../../fixtures/harness/engine.ts";

export function result(id: string, observed: Status, message?: string): RowResult {
  return {
    id,
    title: "t",
    table: "T",
    service: "blob",
    level: "doc",
    source: "s",
    status: observed,
    observed,
    message,
    signature: observed === "FAIL" && message ? signatureOf(message) : undefined,
    notes: {},
    durationMs: 1,
    evidence: [],
  };
}
