// The Python SDKs' vcrpy cassettes (YAML): {interactions: [{request: {method,
// uri, headers: {Name: [value]}, body}, response: {status: {code}, headers,
// body: {string}}}]}, every request header kept.
import { parse } from "yaml";
import { bodyText, lowerHeaders, type Exchange } from "./exchange.ts";

interface Interaction {
  request: { method: string; uri: string; headers?: unknown; body?: unknown };
  response: { status: { code: number }; headers?: unknown; body?: unknown };
}

/** A cassette body: null, a string, bytes (!!binary), or {string: …}. */
const body = (b: unknown) => bodyText(b && typeof b === "object" && "string" in b ? (b as { string: unknown }).string : b);

export function parseVcr(text: string): Exchange[] {
  const doc = parse(text, { customTags: ["binary"] }) as { interactions?: Interaction[] } | null;
  return (doc?.interactions ?? []).map((i, index) => ({
    index,
    method: String(i.request.method).toUpperCase(),
    url: i.request.uri,
    requestHeaders: lowerHeaders(i.request.headers),
    requestBody: body(i.request.body),
    status: Number(i.response.status.code),
    responseHeaders: lowerHeaders(i.response.headers),
    responseBody: body(i.response.body),
    requestHeadersRecorded: true,
  }));
}
