// The .NET SDK's SessionRecords and the test proxy's recordings (every SDK's
// recordings in Azure/azure-sdk-assets): {"Entries": [{"RequestUri",
// "RequestMethod", "RequestHeaders", "RequestBody", "StatusCode",
// "ResponseHeaders", "ResponseBody"}]}, every request header kept.
import { bodyText, lowerHeaders, type Exchange } from "./exchange.ts";

interface Entry {
  RequestUri: string;
  RequestMethod: string;
  RequestHeaders?: unknown;
  RequestBody?: unknown;
  StatusCode: number;
  ResponseHeaders?: unknown;
  ResponseBody?: unknown;
}

export function parseEntries(text: string): Exchange[] {
  const entries = (JSON.parse(text) as { Entries?: Entry[] }).Entries ?? [];
  return entries.map((e, index) => ({
    index,
    method: e.RequestMethod.toUpperCase(),
    url: e.RequestUri,
    requestHeaders: lowerHeaders(e.RequestHeaders),
    requestBody: bodyText(e.RequestBody),
    status: Number(e.StatusCode),
    responseHeaders: lowerHeaders(e.ResponseHeaders),
    responseBody: bodyText(e.ResponseBody),
    requestHeadersRecorded: true,
  }));
}
