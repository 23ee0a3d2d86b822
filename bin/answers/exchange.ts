// One recorded exchange, as every recording format comes down to: the
// request and the answer, header names in lower case.

export interface Exchange {
  /** Its place in the recording's own list of exchanges (0-based). */
  index: number;
  method: string;
  url: string;
  requestHeaders: Record<string, string>;
  requestBody?: string;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody?: string;
  /**
   * False where the format keeps none of the request's concurrency headers
   * (nock, the C++ SDK's and the Java SDK's legacy recordings): what the
   * request carried in its headers cannot be known.
   */
  requestHeadersRecorded: boolean;
}

/** A recording's header map with lower-case names; a list of values (a header sent twice, a YAML list) joined by ", ". */
export function lowerHeaders(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers || typeof headers !== "object") return out;
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    if (value === null || value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.map(String).join(", ") : String(value);
  }
  return out;
}

/** A recorded body as text: a string, a list of lines (the .NET recorder's), bytes, or parsed JSON. */
export function bodyText(body: unknown): string | undefined {
  if (body === null || body === undefined) return undefined;
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString("utf8");
  if (Array.isArray(body) && body.every((b) => typeof b === "string")) return body.join("");
  return JSON.stringify(body);
}
