// The mutant proxy: one loopback listener per service in front of a correct
// target (the embedded Azurite). Requests and responses are buffered whole so
// a Mutant can rewrite them; transport faults and latency are injected here
// too, and in chaos mode a busy target's random 503s and 500s. The suite
// reaches it through an ordinary emulator connection string. Its plumbing
// (reading, forwarding, sending, signing again) is in proxy-wire.ts, the
// answers it gives itself in proxy-answers.ts.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { DEV_ACCOUNT, DEV_KEY, emulatorConnectionString, type Service } from "../fixtures/wire/target.ts";
import type { Mutant, MutantState, ProxyRequest, ProxyResponse } from "./mutants/types.ts";
import { notImplemented, operationTimedOut, outsidePrefix, serverBusy, serverError, upstreamError } from "./proxy-answers.ts";
import { flatten, forward, readBody, resign, send, snapshot } from "./proxy-wire.ts";

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
  /** Each request a fault was applied to, as `METHOD path?query` (an exchange's method and url in the evidence). */
  faulted: string[];
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

/** One proxy's state across its listeners, and how it answers a request. */
class ProxyRun {
  readonly state: MutantState = new Map();
  readonly stats: ProxyStats = {
    requests: 0,
    faults: { reset: 0, "503": 0, stall: 0, "500": 0, "500-applied": 0, error: 0, slow: 0 },
    faulted: [],
    mutatedRequests: 0,
    mutatedResponses: 0,
    unsupported: 0,
    upstreamErrors: 0,
    authFailures: 0,
    mutantErrors: 0,
    outsidePrefix: 0,
  };
  private readonly host: string;
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopping = false;

  constructor(private readonly opts: ProxyOptions) {
    this.host = opts.upstreamHost ?? "127.0.0.1";
  }

  /** Cancels the waits under way; answers held by a fault are then never sent. */
  stop(): void {
    this.stopping = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private wait(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.add(t);
    });
  }

  private forward(service: Service, req: ProxyRequest): Promise<ProxyResponse> {
    return forward(this.host, this.opts.upstream[service], req);
  }

  async handle(service: Service, inc: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const body = await readBody(inc);
    this.stats.requests++;
    const req: ProxyRequest = { service, method: inc.method ?? "GET", url: inc.url ?? "/", headers: flatten(inc.headers), body };
    delete req.headers["host"];
    if (this.opts.pathPrefix && !this.belowPrefix(this.opts.pathPrefix, service, req, res)) return;
    if (this.opts.latencyMs) await this.wait(this.opts.latencyMs);

    const fault = this.opts.faults?.find((f) => f.match(req)) ?? chaosFault(this.opts.chaos);
    if (fault && (await this.applyFault(fault, service, inc, res, req))) return;

    if (this.opts.unsupported?.(req)) {
      this.stats.unsupported++;
      return send(req.method, res, notImplemented(req), true);
    }
    await this.pass(service, req, res);
  }

  /** Takes the path prefix off a request below it (copy sources and batch bodies too), signed again; false: it was outside, answered 404. */
  private belowPrefix(prefix: string, service: Service, req: ProxyRequest, res: http.ServerResponse): boolean {
    const below = `/${prefix}`;
    if (!req.url.startsWith(`${below}/`)) {
      this.stats.outsidePrefix++;
      send(req.method, res, outsidePrefix(below), true);
      return false;
    }
    req.url = req.url.slice(below.length);
    const source = req.headers["x-ms-copy-source"];
    if (source) req.headers["x-ms-copy-source"] = source.replace(new RegExp(`^(https?://[^/]+)${below}/`), "$1/");
    // A batch names its sub-requests' URLs in its body: below the path there too.
    if (/\$batch|comp=batch/.test(req.url) && req.body.includes(`${below}/`)) {
      req.body = Buffer.from(req.body.toString("utf8").split(`${below}/`).join("/"));
      req.headers["content-length"] = String(req.body.length);
    }
    resign(service, req, this.opts.accountKey);
    return true;
  }

  /** Applies a fault: true when that settled the request (answered or dropped), false when it goes on (a stall the client waited out). */
  private async applyFault(
    fault: Fault,
    service: Service,
    inc: http.IncomingMessage,
    res: http.ServerResponse,
    req: ProxyRequest,
  ): Promise<boolean> {
    this.stats.faults[fault.kind]++;
    this.stats.faulted.push(`${req.method} ${req.url}`);
    if (fault.kind === "reset") {
      const sock = inc.socket as import("node:net").Socket & { resetAndDestroy?: () => void };
      if (sock.resetAndDestroy) sock.resetAndDestroy();
      else sock.destroy();
      return true;
    }
    if (fault.kind === "503") {
      send(req.method, res, serverBusy(req, fault.retryAfterSeconds ?? 1), true);
      return true;
    }
    if (fault.kind === "500-applied") await this.forward(service, req).catch(() => undefined);
    if (fault.kind === "500" || fault.kind === "500-applied") {
      send(req.method, res, operationTimedOut(req), true);
      return true;
    }
    if (fault.kind === "error") {
      send(req.method, res, serverError(req, fault.status ?? 500, fault.code), true);
      return true;
    }
    if (fault.kind === "slow") {
      const out = await this.forward(service, req).catch(() => undefined);
      await this.wait(fault.stallMs ?? 5000);
      if (inc.socket.destroyed || res.destroyed || this.stopping) return true;
      if (out) send(req.method, res, out, false);
      else send(req.method, res, upstreamError("upstream error"), true);
      return true;
    }
    await this.wait(fault.stallMs ?? 5000);
    // The client gave up: the request is lost, never forwarded.
    return inc.socket.destroyed || res.destroyed || this.stopping;
  }

  /** The mutant's turn on the request, the target's answer, the mutant's turn on the answer. */
  private async pass(service: Service, req: ProxyRequest, res: http.ServerResponse): Promise<void> {
    const mutant = this.opts.mutant;
    let rewritten = false;
    if (mutant?.onRequest) {
      const before = snapshot(req);
      const answer = await mutant.onRequest(req, this.state);
      if (answer) {
        this.stats.mutatedRequests++;
        send(req.method, res, answer, true);
        return;
      }
      if (snapshot(req) !== before) {
        this.stats.mutatedRequests++;
        rewritten = true;
        req.headers["content-length"] = String(req.body.length);
        if (req.body.length === 0 && !["PUT", "POST", "MERGE", "PATCH"].includes(req.method)) delete req.headers["content-length"];
        delete req.headers["transfer-encoding"];
        resign(service, req, this.opts.accountKey);
      }
    }
    let out: ProxyResponse;
    try {
      out = await this.forward(service, req);
    } catch (err) {
      this.stats.upstreamErrors++;
      send(req.method, res, upstreamError(`upstream error: ${(err as Error).message}`), true);
      return;
    }
    if (rewritten && out.status === 403 && /AuthenticationFailed/.test(out.headers["x-ms-error-code"] ?? out.body.toString("utf8")))
      this.stats.authFailures++;
    let bodyChanged = false;
    if (mutant?.onResponse) {
      const before = out.body;
      const snap = JSON.stringify([out.status, Object.entries(out.headers).sort()]);
      await mutant.onResponse(req, out, this.state);
      bodyChanged = out.body !== before && !out.body.equals(before);
      if (bodyChanged || snap !== JSON.stringify([out.status, Object.entries(out.headers).sort()])) this.stats.mutatedResponses++;
    }
    send(req.method, res, out, bodyChanged);
  }
}

export async function startProxy(opts: ProxyOptions): Promise<MutationProxy> {
  const run = new ProxyRun(opts);
  const { stats } = run;
  const servers: http.Server[] = [];
  const ports: Partial<Record<Service, number>> = {};
  for (const service of Object.keys(opts.upstream) as Service[]) {
    if (!opts.upstream[service]) continue;
    const server = http.createServer({ keepAlive: true }, (inc, res) => {
      run.handle(service, inc, res).catch((err) => {
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
    state: run.state,
    stats,
    stop() {
      stopped ??= (async () => {
        run.stop();
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
