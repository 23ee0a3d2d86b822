// A recording's exchanges → the records of those that bear on concurrency
// (RecordedAnswer, model/answers.ts), each with the parameters it carried
// valued against the state the exchanges before it established.
import { operationOf } from "../../fixtures/wire/operations.ts";
import type { AnswerService, AnswerSource, RecordedAnswer, RecordedState } from "../../model/answers.ts";
import { kindOf, surfaceOperationOf } from "../../model/surface.ts";
import type { Exchange } from "./exchange.ts";
import { resourceOf, shapeOf, targetOf } from "./target.ts";
import { appendedBytes, queueOf, seconds, Tracker } from "./tracker.ts";
import { valueOf } from "./values.ts";

export type Origin = Omit<AnswerSource, "date" | "index">;

/** What a recording gave: its records, and how many exchanges it showed that bear on concurrency but could not be placed. */
export interface Extracted {
  records: RecordedAnswer[];
  /** Kept but for the request headers the format does not record (outside the queue, whose parameters are in the URL). */
  headerless: number;
  /** Not answered by Azure (an emulator's or another host). */
  notAzure: number;
}

/** x-ms-error-code, else the XML error's <Code>, else the JSON error's (tables) odata.error.code. */
export function errorCode(x: Exchange): string | undefined {
  const header = x.responseHeaders["x-ms-error-code"];
  if (header) return header;
  const body = x.responseBody ?? "";
  const xml = /<Code>([^<]+)<\/Code>/.exec(body)?.[1];
  if (xml) return xml;
  try {
    const json = JSON.parse(body) as { "odata.error"?: { code?: string }; error?: { code?: string } };
    return json["odata.error"]?.code ?? json.error?.code;
  } catch {
    return undefined;
  }
}

const REFUSALS = [304, 409, 412];
/** Error codes about a lease or a condition: LeaseIdMissing, ConditionNotMet, UpdateConditionNotSatisfied, AppendPositionConditionNotMet… */
const CONCURRENCY_CODE = /Lease|Condition/;

/** The recording's date: its first answer's Date, YYYY-MM-DD. */
function recordingDate(exchanges: Exchange[]): string | undefined {
  for (const x of exchanges) {
    const s = seconds(x.responseHeaders["date"]);
    if (s !== undefined) return new Date(s * 1000).toISOString().slice(0, 10);
  }
  return undefined;
}

const sorted = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

export function answersOf(exchanges: Exchange[], origin: Origin): Extracted {
  const tracker = new Tracker();
  const date = recordingDate(exchanges);
  const out: Extracted = { records: [], headerless: 0, notAzure: 0 };
  for (const x of exchanges) {
    const t = targetOf(x.url);
    if (!t) {
      out.notAzure++;
      continue;
    }
    const header = (name: string) => x.requestHeaders[name.toLowerCase()];
    const operation = surfaceOperationOf(
      operationOf({ service: t.service, method: x.method, path: t.path, query: t.query, header }),
      header,
    );
    const key = resourceOf(t, x);
    const now = seconds(x.responseHeaders["date"] ?? x.requestHeaders["x-ms-date"]);
    const addressed = tracker.at(key, now);
    const copySource = header("x-ms-copy-source");
    const sourceTarget = copySource ? targetOf(copySource) : undefined;
    const copied = sourceTarget ? tracker.at(resourceOf(sourceTarget, { ...x, method: "GET" }), now) : undefined;
    const version = header("x-ms-version") ?? x.responseHeaders["x-ms-version"];
    const popreceipt = t.query.get("popreceipt") ?? undefined;
    const receiptStanding = (r: string) => tracker.receiptStanding(queueOf(key), r);
    const context = { addressed, source: copied, status: x.status, version, appended: appendedBytes(x, operation), receiptStanding };

    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(x.requestHeaders)) if (kindOf(name)) params[name] = valueOf(name, value, context);
    for (const [name, value] of t.query) if (kindOf(name)) params[name] = valueOf(name, value, context);

    const state: RecordedState = {};
    if (addressed.lease !== undefined) state.lease = addressed.lease;
    if (addressed.lease === "leased" && addressed.leaseDuration) state.leaseDuration = addressed.leaseDuration;
    if (addressed.exists !== undefined) state.exists = addressed.exists;

    const code = errorCode(x);
    const keep =
      Object.keys(params).length > 0 ||
      REFUSALS.includes(x.status) ||
      (!!code && CONCURRENCY_CODE.test(code)) ||
      (state.lease !== undefined && state.lease !== "available");
    // Without the request's headers, only the queue's parameters (all in the URL) are known to be all there were.
    if (keep && !x.requestHeadersRecorded && t.service !== "queue") out.headerless++;
    else if (keep) {
      const shape = shapeOf(t, x);
      out.records.push({
        service: t.service as AnswerService,
        operation,
        params: sorted(params),
        state,
        ...(shape ? { shape } : {}),
        status: x.status,
        ...(code ? { code } : {}),
        ...(version ? { version } : {}),
        source: { ...origin, ...(date ? { date } : {}), index: x.index },
      });
    }
    tracker.observe(x, operation, key, now, popreceipt);
  }
  return out;
}
