// The mutant proxy's plumbing (proxy.ts): messages read whole, headers
// flattened, a request forwarded to the target over a keep-alive agent, an
// answer sent back (Content-Length and Date as the answer has them), a
// request snapshot (to see whether a mutant changed it) and a changed request
// signed again.
import http from "node:http";
import { IDLE_SOCKET_MS } from "../fixtures/wire/agents.ts";
import { DEV_ACCOUNT, DEV_KEY, type Service } from "../fixtures/wire/target.ts";
import { sharedKeyLiteSignature, sharedKeySignature, stringToSign } from "../fixtures/wire/shared-key.ts";
import type { ProxyRequest, ProxyResponse } from "./mutants/types.ts";

// Idle sockets are closed well before the upstream's own keep-alive timeout
// (Node's 5 s), as the suite's are (fixtures/wire/agents.ts): reusing one the
// upstream is closing would break the request off (an ECONNRESET the proxy
// answers 502) for no fault of the target.
const upstreamAgent = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: IDLE_SOCKET_MS });

export function flatten(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

export function readBody(stream: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}

export function snapshot(req: ProxyRequest): string {
  return JSON.stringify([req.method, req.url, Object.entries(req.headers).sort(), req.body.toString("base64")]);
}

/**
 * Shared Key signs the method, the resource and most headers (conditionals
 * included), so a request the mutant rewrote is signed again with the
 * emulator's well-known key. Table's Shared Key Lite signs only date + path.
 */
export function resign(service: Service, req: ProxyRequest, key = DEV_KEY): void {
  const auth = req.headers["authorization"];
  if (!auth) return;
  const account = /^SharedKey(?:Lite)? ([^:]+):/.exec(auth)?.[1] ?? DEV_ACCOUNT;
  const url = new URL(req.url, "http://x");
  if (auth.startsWith("SharedKeyLite ")) {
    req.headers["authorization"] = `SharedKeyLite ${account}:${sharedKeyLiteSignature(key, url, req.headers, account)}`;
  } else if (auth.startsWith("SharedKey ")) {
    req.headers["authorization"] =
      `SharedKey ${account}:${sharedKeySignature(key, stringToSign(service, req.method, url, req.headers, account))}`;
  }
}

/** Forwards `req` to the target at `host`:`port` and reads its answer whole. */
export function forward(host: string, port: number | undefined, req: ProxyRequest): Promise<ProxyResponse> {
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers, host: `${host}:${port}` };
    const up = http.request({ host, port, method: req.method, path: req.url, headers, agent: upstreamAgent }, (res) => {
      readBody(res).then((body) => resolve({ status: res.statusCode ?? 502, headers: flatten(res.headers), body }), reject);
    });
    up.on("error", reject);
    up.end(req.body);
  });
}

/** Sends `out` as the answer to a `method` request; `bodyChanged`: a rewrite changed its body. */
export function send(method: string, res: http.ServerResponse, out: ProxyResponse, bodyChanged: boolean): void {
  const headers = { ...out.headers };
  delete headers["transfer-encoding"];
  delete headers["connection"];
  delete headers["keep-alive"];
  const noBody = method === "HEAD" || out.status === 204 || out.status === 304 || (out.status >= 100 && out.status < 200);
  if (method === "HEAD") {
    // Content-Length of a HEAD answer is the resource's size: keep it, unless a rewrite changed the body.
    if (bodyChanged) headers["content-length"] = String(out.body.length);
  } else if (noBody) {
    delete headers["content-length"];
  } else {
    headers["content-length"] = String(out.body.length);
  }
  // Node adds a Date to every answer unless told not to: an answer without one (a mutant dropped it) goes without.
  if (!("date" in headers)) res.sendDate = false;
  res.writeHead(out.status, headers);
  res.end(noBody ? undefined : out.body);
}
