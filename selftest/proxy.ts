// The mutant proxy: one loopback listener per service in front of a correct
// target (the embedded Azurite). Requests and responses are buffered whole so
// a Mutant can rewrite them; transport faults and latency are injected here
// too, and in chaos mode a busy target's random 503s and 500s. The suite
// reaches it through an ordinary emulator connection string.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { DEV_ACCOUNT, DEV_KEY, emulatorConnectionString, type Service } from "../fixtures/wire/target.ts";
import { sharedKeyLiteSignature, sharedKeySignature, stringToSign } from "../fixtures/wire/shared-key.ts";
import type { Mutant, MutantState, ProxyRequest, ProxyResponse } from "./mutants/types.ts";

/**
 * reset: the connection is reset; 503: ServerBusy with Retry-After; stall: held
 * past the client's timeout; 500: OperationTimedOut, not forwarded; 500-applied:
 * forwarded (the target applies it), then answered 500 OperationTimedOut;
 * error: a server error (`status`, `code`), not forwarded, as a target that
 * crashes on the operation answers; slow: forwarded, and its answer held
 * `stallMs` before it is sent.
 */
export type FaultKind = "reset" | "503" | "stall" | "500" | "500-applied" | "error" | "slow";

export interface Fault {
  kind: FaultKind;
  /** Which requests the fault hits (every matching request, retries included). */
  match: (req: ProxyRequest) => boolean;
  /** For "stall": how long the request is held before being forwarded (default 5000 ms). */
  stallMs?: number;
  /** For "503": the Retry-After header, in seconds (default 1). */
  retryAfterSeconds?: number;
  /** For "error": the status (default 500) and the error code (none: a gateway's plain-text answer). */
  status?: number;
  code?: string;
}

export interface ProxyOptions {
  /** Host of the upstream target (default 127.0.0.1). */
  upstreamHost?: string;
  /** Upstream ports per service; one listener is opened for each. */
  upstream: Partial<Record<Service, number>>;
  mutant?: Mutant;
  faults?: Fault[];
  /** Added before forwarding each request. */
  latencyMs?: number;
  /** A busy target: answers a random share of requests itself, without forwarding them. */
  chaos?: Chaos;
  /** A half-featured target: answers the requests this matches itself, 501 NotImplemented (selftest/unsupported-modes.ts). */
  unsupported?: (req: ProxyRequest) => boolean;
  /**
   * Serves the account below this path, as a gateway does
   * (`http://127.0.0.1:<port>/<pathPrefix>/devstoreaccount1`): a request
   * outside it is answered 404, one inside it is forwarded without it
   * (copy sources too), signed again for the path the target sees.
   */
  pathPrefix?: string;
  /** The key a request the proxy changed is signed again with (default: the emulator's well-known one). */
  accountKey?: string;
}

export interface Chaos {
  /** Share of requests answered 503 ServerBusy with Retry-After: 1 (e.g. 0.03). */
  busy: number;
  /** Share answered 500 OperationTimedOut (e.g. 1 / 200). */
  timedOut: number;
  /** Random source in [0, 1) (default Math.random). */
  random?: () => number;
}

/** The chaos self-test's busy target: 3 % ServerBusy, 1 in 200 OperationTimedOut. */
export const BUSY_TARGET: Chaos = { busy: 0.03, timedOut: 1 / 200 };

function chaosFault(chaos: Chaos | undefined): Fault | undefined {
  if (!chaos) return undefined;
  const r = (chaos.random ?? Math.random)();
  if (r < chaos.timedOut) return { kind: "500", match: () => true };
  if (r < chaos.timedOut + chaos.busy) return { kind: "503", retryAfterSeconds: 1, match: () => true };
  return undefined;
}

export interface ProxyStats {
  requests: number;
  /** Requests a fault was applied to, per kind. */
  faults: Record<FaultKind, number>;
  /** Requests the mutant changed or answered itself. */
  mutatedRequests: number;
  /** Responses the mutant changed. */
  mutatedResponses: number;
  /** Requests answered 501 NotImplemented (the `unsupported` option). */
  unsupported: number;
  /** Upstream errors (the proxy answered 502). */
  upstreamErrors: number;
  /** Requests the mutant rewrote that the target then refused as wrongly signed (a proxy defect, not a kill). */
  authFailures: number;
  /** Requests the proxy failed on (a mutant threw; it answered 500), with the first message. */
  mutantErrors: number;
  /** Requests outside the `pathPrefix` the account is served below (answered 404). */
  outsidePrefix: number;
  firstMutantError?: string;
}

export interface MutationProxy {
  connectionString: string;
  ports: Partial<Record<Service, number>>;
  state: MutantState;
  stats: ProxyStats;
  stop(): Promise<void>;
}

/** True for the preflight's Get Service Properties (never a conformance request). */
export function isPreflight(req: ProxyRequest): boolean {
  const u = new URL(req.url, "http://x");
  return u.searchParams.get("restype") === "service" && u.searchParams.get("comp") === "properties";
}

// Idle sockets are closed after 4 s, before the upstream's own keep-alive
// timeout (Node's 5 s): reusing one the upstream is closing would break the
// request off (an ECONNRESET the proxy answers 502) for no fault of the target.
const upstreamAgent = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 4_000 });

function flatten(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

function readBody(stream: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}

function snapshot(req: ProxyRequest): string {
  return JSON.stringify([req.method, req.url, Object.entries(req.headers).sort(), req.body.toString("base64")]);
}

/**
 * Shared Key signs the method, the resource and most headers (conditionals
 * included), so a request the mutant rewrote is signed again with the
 * emulator's well-known key. Table's Shared Key Lite signs only date + path.
 */
function resign(service: Service, req: ProxyRequest, key = DEV_KEY): void {
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

function errorXml(code: string, message: string): Buffer {
  return Buffer.from(`<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

/** A server error as a crashing target (a storage code) or a gateway in front of it (none, plain text) answers it. */
function serverError(req: ProxyRequest, status: number, code: string | undefined): ProxyResponse {
  if (!code)
    return {
      status,
      headers: { "content-type": "text/plain", date: new Date().toUTCString() },
      body: Buffer.from(`${status} (answered by the self-test proxy)`),
    };
  const message = "The server encountered an internal error (answered by the self-test proxy).";
  const table = req.service === "table";
  return {
    status,
    headers: {
      "content-type": table ? "application/json;odata=minimalmetadata" : "application/xml",
      "x-ms-error-code": code,
      "x-ms-version": req.headers["x-ms-version"] ?? "",
      date: new Date().toUTCString(),
    },
    body: table
      ? Buffer.from(JSON.stringify({ "odata.error": { code, message: { lang: "en-US", value: message } } }))
      : errorXml(code, message),
  };
}

/** How an emulator answers an operation it does not implement: 501 NotImplemented, in the service's own error format. */
function notImplemented(req: ProxyRequest): ProxyResponse {
  const message = "The requested operation is not implemented on the specified resource (answered by the self-test proxy).";
  const table = req.service === "table";
  return {
    status: 501,
    headers: {
      "content-type": table ? "application/json;odata=minimalmetadata" : "application/xml",
      "x-ms-error-code": "NotImplemented",
      "x-ms-version": req.headers["x-ms-version"] ?? "",
      date: new Date().toUTCString(),
    },
    body: table
      ? Buffer.from(JSON.stringify({ "odata.error": { code: "NotImplemented", message: { lang: "en-US", value: message } } }))
      : errorXml("NotImplemented", message),
  };
}

/** The connection string of an emulator on loopback serving `account` below `prefix` on each port. */
export function prefixedConnectionString(
  ports: Partial<Record<Service, number>>,
  prefix: string,
  account = DEV_ACCOUNT,
  key = DEV_KEY,
): string {
  const endpoints = Object.entries(ports).map(
    ([svc, port]) => `${svc[0].toUpperCase()}${svc.slice(1)}Endpoint=http://127.0.0.1:${port}/${prefix}/${account}`,
  );
  return [`DefaultEndpointsProtocol=http`, `AccountName=${account}`, `AccountKey=${key}`, ...endpoints].join(";") + ";";
}

export async function startProxy(opts: ProxyOptions): Promise<MutationProxy> {
  const host = opts.upstreamHost ?? "127.0.0.1";
  const state: MutantState = new Map();
  const stats: ProxyStats = {
    requests: 0,
    faults: { reset: 0, "503": 0, stall: 0, "500": 0, "500-applied": 0, error: 0, slow: 0 },
    mutatedRequests: 0,
    mutatedResponses: 0,
    unsupported: 0,
    upstreamErrors: 0,
    authFailures: 0,
    mutantErrors: 0,
    outsidePrefix: 0,
  };
  const timers = new Set<NodeJS.Timeout>();
  const servers: http.Server[] = [];
  const ports: Partial<Record<Service, number>> = {};
  let stopping = false;

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const forward = (service: Service, req: ProxyRequest): Promise<ProxyResponse> =>
    new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: `${host}:${opts.upstream[service]}` };
      const up = http.request(
        { host, port: opts.upstream[service], method: req.method, path: req.url, headers, agent: upstreamAgent },
        (res) => {
          readBody(res).then((body) => resolve({ status: res.statusCode ?? 502, headers: flatten(res.headers), body }), reject);
        },
      );
      up.on("error", reject);
      up.end(req.body);
    });

  const send = (method: string, res: http.ServerResponse, out: ProxyResponse, bodyChanged: boolean): void => {
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
  };

  const handle = async (service: Service, inc: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const body = await readBody(inc);
    stats.requests++;
    const req: ProxyRequest = { service, method: inc.method ?? "GET", url: inc.url ?? "/", headers: flatten(inc.headers), body };
    delete req.headers["host"];
    if (opts.pathPrefix) {
      const below = `/${opts.pathPrefix}`;
      if (!req.url.startsWith(`${below}/`)) {
        stats.outsidePrefix++;
        return send(
          req.method,
          res,
          {
            status: 404,
            headers: { "content-type": "text/plain", date: new Date().toUTCString() },
            body: Buffer.from(`not below ${below} (answered by the self-test proxy)`),
          },
          true,
        );
      }
      req.url = req.url.slice(below.length);
      const source = req.headers["x-ms-copy-source"];
      if (source) req.headers["x-ms-copy-source"] = source.replace(new RegExp(`^(https?://[^/]+)${below}/`), "$1/");
      // A batch names its sub-requests' URLs in its body: below the path there too.
      if (/\$batch|comp=batch/.test(req.url) && req.body.includes(`${below}/`)) {
        req.body = Buffer.from(req.body.toString("utf8").split(`${below}/`).join("/"));
        req.headers["content-length"] = String(req.body.length);
      }
      resign(service, req, opts.accountKey);
    }
    if (opts.latencyMs) await wait(opts.latencyMs);

    const fault = opts.faults?.find((f) => f.match(req)) ?? chaosFault(opts.chaos);
    const timedOut = () =>
      send(
        req.method,
        res,
        {
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
        },
        true,
      );
    if (fault) {
      stats.faults[fault.kind]++;
      if (fault.kind === "reset") {
        const sock = inc.socket as import("node:net").Socket & { resetAndDestroy?: () => void };
        if (sock.resetAndDestroy) sock.resetAndDestroy();
        else sock.destroy();
        return;
      }
      if (fault.kind === "503") {
        send(
          req.method,
          res,
          {
            status: 503,
            headers: {
              "content-type": "application/xml",
              "retry-after": String(fault.retryAfterSeconds ?? 1),
              "x-ms-error-code": "ServerBusy",
              "x-ms-version": req.headers["x-ms-version"] ?? "",
            },
            body: errorXml("ServerBusy", "The server is busy (injected by the self-test proxy)."),
          },
          true,
        );
        return;
      }
      if (fault.kind === "500") return timedOut();
      if (fault.kind === "500-applied") {
        await forward(service, req).catch(() => undefined);
        return timedOut();
      }
      if (fault.kind === "error") return send(req.method, res, serverError(req, fault.status ?? 500, fault.code), true);
      if (fault.kind === "slow") {
        const out = await forward(service, req).catch(() => undefined);
        await wait(fault.stallMs ?? 5000);
        if (inc.socket.destroyed || res.destroyed || stopping) return;
        if (out) return send(req.method, res, out, false);
        return send(req.method, res, { status: 502, headers: { "content-type": "text/plain" }, body: Buffer.from("upstream error") }, true);
      }
      await wait(fault.stallMs ?? 5000);
      // The client gave up: the request is lost, never forwarded.
      if (inc.socket.destroyed || res.destroyed || stopping) return;
    }

    if (opts.unsupported?.(req)) {
      stats.unsupported++;
      return send(req.method, res, notImplemented(req), true);
    }

    const mutant = opts.mutant;
    let out: ProxyResponse | undefined;
    let rewritten = false;
    if (mutant?.onRequest) {
      const before = snapshot(req);
      const answer = await mutant.onRequest(req, state);
      if (answer) {
        stats.mutatedRequests++;
        send(req.method, res, answer, true);
        return;
      }
      if (snapshot(req) !== before) {
        stats.mutatedRequests++;
        rewritten = true;
        req.headers["content-length"] = String(req.body.length);
        if (req.body.length === 0 && !["PUT", "POST", "MERGE", "PATCH"].includes(req.method)) delete req.headers["content-length"];
        delete req.headers["transfer-encoding"];
        resign(service, req, opts.accountKey);
      }
    }
    try {
      out = await forward(service, req);
    } catch (err) {
      stats.upstreamErrors++;
      send(
        req.method,
        res,
        { status: 502, headers: { "content-type": "text/plain" }, body: Buffer.from(`upstream error: ${(err as Error).message}`) },
        true,
      );
      return;
    }
    if (rewritten && out.status === 403 && /AuthenticationFailed/.test(out.headers["x-ms-error-code"] ?? out.body.toString("utf8")))
      stats.authFailures++;
    let bodyChanged = false;
    if (mutant?.onResponse) {
      const before = out.body;
      const snap = JSON.stringify([out.status, Object.entries(out.headers).sort()]);
      await mutant.onResponse(req, out, state);
      bodyChanged = out.body !== before && !out.body.equals(before);
      if (bodyChanged || snap !== JSON.stringify([out.status, Object.entries(out.headers).sort()])) stats.mutatedResponses++;
    }
    send(req.method, res, out, bodyChanged);
  };

  for (const service of Object.keys(opts.upstream) as Service[]) {
    if (!opts.upstream[service]) continue;
    const server = http.createServer({ keepAlive: true }, (inc, res) => {
      handle(service, inc, res).catch((err) => {
        stats.mutantErrors++;
        stats.firstMutantError ??= `${(err as Error).message}`.slice(0, 200);
        if (res.headersSent || res.destroyed) return void res.destroy();
        res.writeHead(500, { "content-type": "text/plain" });
        res.end(`proxy error: ${(err as Error).message}`);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    ports[service] = (server.address() as AddressInfo).port;
    servers.push(server);
  }

  let stopped: Promise<void> | undefined;
  return {
    connectionString: opts.pathPrefix ? prefixedConnectionString(ports, opts.pathPrefix) : emulatorConnectionString("127.0.0.1", ports),
    ports,
    state,
    stats,
    stop() {
      stopped ??= (async () => {
        stopping = true;
        for (const t of timers) clearTimeout(t);
        timers.clear();
        await Promise.all(
          servers.map(
            (s) =>
              new Promise<void>((resolve) => {
                s.close(() => resolve());
                s.closeAllConnections();
              }),
          ),
        );
      })();
      return stopped;
    },
  };
}
