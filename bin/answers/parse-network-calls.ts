// The "networkCallRecords" recordings: the Java SDK's session-records
// ({"Method", "Uri", "Headers", "Response": {"StatusCode", "Body", headers…}})
// and the C++ SDK's legacy ones ({"Method", "Url", "Headers", "Response":
// {"STATUS_CODE", "BODY", "REASON_PHRASE", headers…}}). Both recorders keep
// only a few request headers (User-Agent, the client request ID, the
// version): never the concurrency ones.
import { bodyText, lowerHeaders, type Exchange } from "./exchange.ts";

interface NetworkCall {
  Method: string;
  Uri?: string;
  Url?: string;
  Headers?: unknown;
  Response?: Record<string, unknown>;
}

const NOT_HEADERS = new Set(["statuscode", "status_code", "body", "reason_phrase"]);

function parse(text: string): Exchange[] {
  const calls = (JSON.parse(text) as { networkCallRecords?: NetworkCall[] }).networkCallRecords ?? [];
  return calls.map((c, index) => {
    const response = c.Response ?? {};
    const headers = lowerHeaders(response);
    for (const name of NOT_HEADERS) delete headers[name];
    return {
      index,
      method: c.Method.toUpperCase(),
      url: c.Uri ?? c.Url ?? "",
      requestHeaders: lowerHeaders(c.Headers),
      status: Number(response.StatusCode ?? response.STATUS_CODE),
      responseHeaders: headers,
      responseBody: bodyText(response.Body ?? response.BODY),
      requestHeadersRecorded: false,
    };
  });
}

/** The Java SDK's session-records. */
export const parseJava = parse;
/** The C++ SDK's legacy recordings (sdk/storage/…/test/ut/recordings, before the test proxy). */
export const parseCpp = parse;
