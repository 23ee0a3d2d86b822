// Answers the suite cannot read, in the shapes young emulators give them:
// each header a row may need dropped from every answer, error codes left
// out, error bodies in JSON instead of XML, bodies cut short; and answers a
// row does not expect at each kind of its steps: the k-th request to each
// container, queue, table or share refused (its setup, its claim's request,
// its read-back, as k grows), or the k-th read of each answered empty (a
// list with no items, a body with nothing in it). Against each,
// selftest/odd-answers.test.ts requires that no row ends in the suite's own
// exception (ERROR, or an exception's text in a message) and that every
// FAIL and UNSUPPORTED names the REST operation whose answer decided it.
import { errorAnswer, segments, type Mutant, type MutantState, type ProxyRequest, type ProxyResponse } from "./mutants/types.ts";

/** Drops `header` from every answer that has it. */
const dropped = (header: string): Mutant => ({
  name: `odd-no-${header}`,
  description: `every answer without ${header}`,
  kills: [],
  onResponse(_req, res) {
    delete res.headers[header];
  },
});

/** The container, queue, table or share a request is about (none for the account's own requests). */
const resourceOf = (req: ProxyRequest) => {
  const first = segments(req)[0]?.replace(/\(.*$/, "");
  return first && first !== "Tables" ? `${req.service}:${first}` : undefined;
};

/** Counts the requests to a resource that `counts` selects; the k-th is the one the shape changes. */
const nth = (req: ProxyRequest, state: MutantState, tag: string): number => {
  const key = resourceOf(req);
  if (!key) return 0;
  const n = ((state.get(`${tag}:${key}`) as number | undefined) ?? 0) + 1;
  state.set(`${tag}:${key}`, n);
  return n;
};

const ordinal = (k: number) => `${k}${k === 1 ? "st" : k === 2 ? "nd" : k === 3 ? "rd" : "th"}`;

/** The k-th request to each resource refused 412 ConditionNotMet, unforwarded. */
const refusedAt = (k: number): Mutant => ({
  name: `odd-refused-${k}`,
  description: `the ${ordinal(k)} request to each container, queue, table or share refused 412 ConditionNotMet`,
  kills: [],
  onRequest(req, state) {
    if (nth(req, state, "refused") === k) return errorAnswer(req, 412, "ConditionNotMet");
  },
});

/** A body with nothing in it, in its own format: an XML document's root with no children, a JSON list with no items, no bytes. */
function emptied(body: string): string {
  const xml = /^(\uFEFF?\s*<\?xml[^>]*>)?\s*<([\w:]+)([^>]*)>/.exec(body);
  if (xml) return `${xml[1] ?? ""}<${xml[2]}${xml[3]}></${xml[2]}>`;
  if (/^\s*\{/.test(body)) return /"value"\s*:/.test(body) ? '{"value":[]}' : "{}";
  return "";
}

/** The k-th successful read with a body of each resource answered empty. */
const emptyAt = (k: number): Mutant => ({
  name: `odd-empty-${k}`,
  description: `the ${ordinal(k)} read with a body of each container, queue, table or share answered empty (no items, nothing in it)`,
  kills: [],
  onResponse(req, res, state) {
    if (req.method !== "GET" || res.status !== 200 || res.body.length === 0) return;
    if (nth(req, state, "empty") !== k) return;
    res.body = Buffer.from(emptied(res.body.toString("utf8")));
    delete res.headers["content-md5"];
  },
});

/** Every list answered with no items: Get Messages handing out no message, List Blobs and Query Entities finding nothing. */
export const LISTS_EMPTY: Mutant = {
  name: "odd-lists-empty",
  description: "every list answered with no items (Get Messages, Peek Messages, List Blobs, Query Entities, …)",
  kills: [],
  onResponse(req, res) {
    const body = res.body.toString("utf8");
    if (req.method !== "GET" || res.status !== 200 || !/<(QueueMessagesList|EnumerationResults)\b|"value"\s*:\s*\[/.test(body)) return;
    res.body = Buffer.from(emptied(body));
  },
};

/** The answers a row does not expect, at its setup (k = 1), its claim's request and its read-back (larger k). */
export const STEP_SHAPES: Mutant[] = [
  refusedAt(1),
  emptyAt(1),
  refusedAt(2),
  emptyAt(2),
  refusedAt(3),
  emptyAt(4),
  refusedAt(5),
  LISTS_EMPTY,
];

const isXmlError = (res: ProxyResponse) => res.status >= 300 && /^\s*(<\?xml[^>]*>)?\s*<Error>/.test(res.body.toString("utf8"));

export const ODD_ANSWERS: Mutant[] = [
  ...[
    "date",
    "last-modified",
    "etag",
    "x-ms-lease-time",
    "x-ms-lease-state",
    "x-ms-time-next-visible",
    "x-ms-popreceipt",
    "x-ms-blob-sequence-number",
    "content-length",
  ].map(dropped),
  {
    name: "odd-no-error-code",
    description: "error answers name no error code (no x-ms-error-code, no Code in the body)",
    kills: [],
    onResponse(_req, res) {
      if (res.status < 300) return;
      delete res.headers["x-ms-error-code"];
      res.body = Buffer.from(
        res.body
          .toString("utf8")
          .replace(/<Code>[^<]*<\/Code>/, "")
          .replace(/"code"\s*:\s*"[^"]*",?/, ""),
      );
    },
  },
  {
    name: "odd-json-error-body",
    description: "blob and queue errors answered with a JSON body (the code still in x-ms-error-code)",
    kills: [],
    onResponse(_req, res) {
      if (!isXmlError(res)) return;
      const text = res.body.toString("utf8");
      const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1] ?? "";
      const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? "";
      res.body = Buffer.from(JSON.stringify({ error: { code, message } }));
      res.headers["content-type"] = "application/json";
    },
  },
  {
    name: "odd-body-cut-short",
    description: "every answer's body cut to half its length (Content-Length matching what is sent)",
    kills: [],
    onResponse(_req, res) {
      if (res.body.length > 1) res.body = res.body.subarray(0, Math.floor(res.body.length / 2));
    },
  },
  ...STEP_SHAPES,
];
