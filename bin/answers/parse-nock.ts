// The legacy Node SDK's nock recordings (test/recordings/*.nock.js): each
// exchange a `nock('<origin>').<method>('<path>'[, body]).reply(<status>,
// <body>, {<headers>})` call. Read as text, never run. nock keeps no request
// header, and the recorder wrote each exchange twice (under http: and
// https:); the second copy (same request ID) is dropped.
import type { Exchange } from "./exchange.ts";

const ESCAPES: Record<string, string> = { n: "\n", r: "\r", t: "\t", b: "\b", f: "\f", v: "\v", "0": "\0" };

/** Reads the JavaScript literal at `pos` (string, number, keyword, object, array): its value and where it ends. */
function literal(text: string, pos: number): { value: unknown; end: number } {
  let i = skipSpace(text, pos);
  const c = text[i];
  if (c === "'" || c === '"') {
    let out = "";
    for (i++; text[i] !== c; i++) {
      if (i >= text.length) throw new Error("unterminated string");
      if (text[i] !== "\\") {
        out += text[i];
        continue;
      }
      const e = text[++i];
      if (e === "u") {
        out += String.fromCharCode(parseInt(text.slice(i + 1, i + 5), 16));
        i += 4;
      } else if (e === "x") {
        out += String.fromCharCode(parseInt(text.slice(i + 1, i + 3), 16));
        i += 2;
      } else out += ESCAPES[e] ?? e;
    }
    return { value: out, end: i + 1 };
  }
  if (c === "{" || c === "[") {
    const close = c === "{" ? "}" : "]";
    const obj: Record<string, unknown> = {};
    const arr: unknown[] = [];
    i = skipSpace(text, i + 1);
    while (text[i] !== close) {
      if (c === "{") {
        let key: string;
        if (text[i] === "'" || text[i] === '"') {
          const k = literal(text, i);
          key = String(k.value);
          i = k.end;
        } else {
          const m = /^[\w$-]+/.exec(text.slice(i))!;
          key = m[0];
          i += key.length;
        }
        i = skipSpace(text, i);
        if (text[i] !== ":") throw new Error(`expected ':' at ${i}`);
        const v = literal(text, i + 1);
        obj[key] = v.value;
        i = v.end;
      } else {
        const v = literal(text, i);
        arr.push(v.value);
        i = v.end;
      }
      i = skipSpace(text, i);
      if (text[i] === ",") i = skipSpace(text, i + 1);
    }
    return { value: c === "{" ? obj : arr, end: i + 1 };
  }
  const m = /^(-?\d+(\.\d+)?|true|false|null|undefined)/.exec(text.slice(i));
  if (!m) throw new Error(`unexpected ${JSON.stringify(text.slice(i, i + 20))}`);
  const word = m[0];
  return { value: word === "true" ? true : word === "false" ? false : /^-?\d/.test(word) ? Number(word) : null, end: i + word.length };
}

const skipSpace = (text: string, i: number) => {
  while (i < text.length && /\s/.test(text[i])) i++;
  return i;
};

/** After a literal: the position past the next comma, or undefined at the call's close. */
function nextArgument(text: string, i: number): number | undefined {
  i = skipSpace(text, i);
  return text[i] === "," ? i + 1 : undefined;
}

export function parseNock(text: string): Exchange[] {
  const out: Exchange[] = [];
  const scopes = [...text.matchAll(/\bnock\(\s*/g)].map((m) => m.index! + m[0].length);
  let index = 0;
  scopes.forEach((start, n) => {
    const end = scopes[n + 1] ?? text.length;
    const origin = literal(text, start);
    let i = origin.end;
    const call = /\.(get|put|post|delete|head|merge|patch)\(\s*/g;
    for (;;) {
      call.lastIndex = i;
      const m = call.exec(text);
      if (!m || m.index >= end) break;
      const path = literal(text, m.index + m[0].length);
      const bodyAt = nextArgument(text, path.end);
      const requestBody = bodyAt !== undefined ? literal(text, bodyAt).value : undefined;
      const reply = text.indexOf(".reply(", path.end);
      if (reply < 0 || reply >= end) break;
      const status = literal(text, reply + ".reply(".length);
      let responseBody: unknown;
      let headers: Record<string, unknown> = {};
      let at = nextArgument(text, status.end);
      if (at !== undefined) {
        const b = literal(text, at);
        responseBody = b.value;
        at = nextArgument(text, b.end);
        if (at !== undefined) {
          const h = literal(text, at);
          headers = h.value as Record<string, unknown>;
          i = h.end;
        } else i = b.end;
      } else i = status.end;
      const url = new URL(String(path.value), String(origin.value));
      url.port = "";
      out.push({
        index: index++,
        method: m[1].toUpperCase(),
        url: url.href,
        requestHeaders: {},
        requestBody: typeof requestBody === "string" ? requestBody : undefined,
        status: Number(status.value),
        responseHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v)])),
        responseBody:
          responseBody === undefined || typeof responseBody === "string"
            ? (responseBody as string | undefined)
            : JSON.stringify(responseBody),
        requestHeadersRecorded: false,
      });
    }
  });
  // The recorder's second copy of an exchange: the same request, the same answer (its request ID).
  const key = (e: Exchange) =>
    [e.method, new URL(e.url).pathname + new URL(e.url).search, e.status, e.responseHeaders["x-ms-request-id"]].join(" ");
  return out.filter((e, k) => k === 0 || !e.responseHeaders["x-ms-request-id"] || key(e) !== key(out[k - 1]));
}
