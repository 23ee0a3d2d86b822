// The answers the mutant proxy (proxy.ts) gives itself instead of the
// target's: a server error as a crashing target or a gateway gives it, 501
// NotImplemented for a half-featured target, the injected 500
// OperationTimedOut and 503 ServerBusy, 404 outside the path prefix, and 502
// when the target could not be reached.
import { errorAnswer, type ProxyRequest, type ProxyResponse } from "./mutants/types.ts";

function errorXml(code: string, message: string): Buffer {
  return Buffer.from(`<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

/** A server error as a crashing target (a storage code) or a gateway in front of it (none, plain text) answers it. */
export function serverError(req: ProxyRequest, status: number, code: string | undefined): ProxyResponse {
  if (!code)
    return {
      status,
      headers: { "content-type": "text/plain", date: new Date().toUTCString() },
      body: Buffer.from(`${status} (answered by the self-test proxy)`),
    };
  return errorAnswer(req, status, code, "The server encountered an internal error (answered by the self-test proxy).");
}

/** How an emulator answers an operation it does not implement: 501 NotImplemented, in the service's own error format. */
export function notImplemented(req: ProxyRequest): ProxyResponse {
  return errorAnswer(
    req,
    501,
    "NotImplemented",
    "The requested operation is not implemented on the specified resource (answered by the self-test proxy).",
  );
}

/** The injected 500 OperationTimedOut (no Date header). */
export function operationTimedOut(req: ProxyRequest): ProxyResponse {
  return {
    status: 500,
    headers: {
      "content-type": "application/xml",
      "x-ms-error-code": "OperationTimedOut",
      "x-ms-version": req.headers["x-ms-version"] ?? "",
    },
    body: errorXml(
      "OperationTimedOut",
      "The operation could not be completed within the permitted time (injected by the self-test proxy).",
    ),
  };
}

/** The injected 503 ServerBusy with Retry-After (no Date header). */
export function serverBusy(req: ProxyRequest, retryAfterSeconds: number): ProxyResponse {
  return {
    status: 503,
    headers: {
      "content-type": "application/xml",
      "retry-after": String(retryAfterSeconds),
      "x-ms-error-code": "ServerBusy",
      "x-ms-version": req.headers["x-ms-version"] ?? "",
    },
    body: errorXml("ServerBusy", "The server is busy (injected by the self-test proxy)."),
  };
}

/** A request outside the path the account is served below (`below`: "/<prefix>"). */
export function outsidePrefix(below: string): ProxyResponse {
  return {
    status: 404,
    headers: { "content-type": "text/plain", date: new Date().toUTCString() },
    body: Buffer.from(`not below ${below} (answered by the self-test proxy)`),
  };
}

/** The proxy's 502 when the target could not be reached (`text`: the body). */
export function upstreamError(text: string): ProxyResponse {
  return { status: 502, headers: { "content-type": "text/plain" }, body: Buffer.from(text) };
}
