// The blob operations of a proxied request, and the answers mutants give in
// a target's stead. (A helper module: it has no mutants of its own.)
import { recordOf } from "../../suites/blob/operations.ts";
import { operation, segments, type ProxyRequest, type ProxyResponse } from "./types.ts";

/** The T2 operations, by their records' slugs (suites/blob/operations.ts). */
const T2 = [
  "put-blob",
  "get-blob",
  "get-blob-properties",
  "set-blob-properties",
  "get-blob-metadata",
  "set-blob-metadata",
  "lease-blob",
  "snapshot-blob",
  "copy-blob",
  "abort-copy-blob",
  "delete-blob",
  "put-block",
  "put-block-list",
  "get-block-list",
  "put-page",
  "get-page-ranges",
] as const;
export type BlobOp = (typeof T2)[number];

/** Which T2 operation a blob-service request is, if any: its record's slug, by the one request classifier. */
export function blobOp(req: ProxyRequest): BlobOp | undefined {
  if (req.service !== "blob") return undefined;
  const slug = recordOf(operation(req))?.slug;
  return slug && (T2 as readonly string[]).includes(slug) ? (slug as BlobOp) : undefined;
}

export const isOp = (req: ProxyRequest, ...ops: BlobOp[]) => ops.includes(blobOp(req)!);
export const ok = (res: ProxyResponse) => res.status >= 200 && res.status < 300;
/** container/blob of a request (snapshots and other query parameters left out). */
export const blobKey = (req: ProxyRequest) => segments(req).join("/");

export function errorResponse(req: ProxyRequest, status: number, code: string): ProxyResponse {
  const body =
    status === 304 || req.method === "HEAD"
      ? ""
      : `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`;
  return {
    status,
    headers: {
      "content-type": "application/xml",
      "x-ms-error-code": code,
      "x-ms-version": req.headers["x-ms-version"] ?? "",
      date: new Date().toUTCString(),
    },
    body: Buffer.from(body),
  };
}

export const abortAnswer = (req: ProxyRequest, extra: Record<string, string> = {}): ProxyResponse => ({
  status: 204,
  headers: { "x-ms-version": req.headers["x-ms-version"] ?? "", date: new Date().toUTCString(), ...extra },
  body: Buffer.alloc(0),
});

/** The status each blob operation answers when it succeeds. */
export const SUCCESS: Record<BlobOp, number> = {
  "put-blob": 201,
  "get-blob": 200,
  "get-blob-properties": 200,
  "set-blob-properties": 200,
  "get-blob-metadata": 200,
  "set-blob-metadata": 200,
  "delete-blob": 202,
  "put-block": 201,
  "put-block-list": 201,
  "get-block-list": 200,
  "put-page": 201,
  "get-page-ranges": 200,
  "snapshot-blob": 201,
  "copy-blob": 202,
  "abort-copy-blob": 204,
  "lease-blob": 200,
};
