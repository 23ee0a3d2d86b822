// A mutant: one named, documented deviation the proxy applies to traffic
// between the suite and a correct target (the embedded Azurite). Each mutant
// names the test IDs that must FAIL when it is active; one that no named test
// catches is a hole in the suite.
import { operationOf } from "../../fixtures/wire/operations.ts";
import type { Service } from "../../fixtures/wire/target.ts";

export interface ProxyRequest {
  service: Service;
  method: string;
  /** Path and query as sent by the client, e.g. `/devstoreaccount1/c/b?comp=metadata`. */
  url: string;
  /** Lower-case header names; mutable in onRequest. */
  headers: Record<string, string>;
  body: Buffer;
}

export interface ProxyResponse {
  status: number;
  /** Lower-case header names; mutable in onResponse. */
  headers: Record<string, string>;
  body: Buffer;
}

/** Memory a mutant keeps across requests (one per proxy instance). */
export type MutantState = Map<string, unknown>;

export interface Mutant {
  /** kebab-case, unique. */
  name: string;
  /** One line: how the target deviates. */
  description: string;
  /** Test IDs (or ID prefixes ending in '/') of which at least one must FAIL. */
  kills: string[];
  /** For a mutant generated from a claim: the cell it is generated for (the report groups by it). */
  cell?: string;
  /**
   * A stateful mutant of a model row, which deviates only after some sequence
   * or under concurrency: judged by its kill rate over runs with `seeds`
   * different seeds (selftest/models.test.ts), not by one run.
   */
  killRate?: { seeds: number; atLeast: number };
  /**
   * Semver range of the embedded Azurite versions the mutant means something
   * on (e.g. one built to flip a pin that holds for `<3.36.0`); elsewhere it is
   * not loaded. None: every version.
   */
  versions?: string;
  /**
   * Rewrites the request before it is forwarded (mutate req), or answers it
   * without forwarding by returning a response.
   */
  onRequest?(req: ProxyRequest, state: MutantState): ProxyResponse | void | Promise<ProxyResponse | void>;
  /** Rewrites the target's response (mutate res). */
  onResponse?(req: ProxyRequest, res: ProxyResponse, state: MutantState): void | Promise<void>;
}

/**
 * A table of claims that generates mutants (a generator module exports
 * CLAIM_TABLES beside MUTANTS): each claim, the row that checks it and the
 * mutants generated from it. The mutation self-test checks that every claim
 * has a generated mutant its row kills, and reports them per table.
 */
export interface ClaimTable {
  table: string;
  /** The kind of claim (the column of the table), e.g. "Returns ETag". */
  kind: string;
  claims: { claim: string; row: string; mutants: string[] }[];
}

/** Query parameters of a proxied request. */
export function query(req: ProxyRequest): URLSearchParams {
  return new URL(req.url, "http://x").searchParams;
}

/** Path segments below the account: [container, blob…] / [queue, "messages", id] / [table(...)]. */
export function segments(req: ProxyRequest): string[] {
  const parts = new URL(req.url, "http://x").pathname.split("/").filter(Boolean).map(decodeURIComponent);
  return parts[0] === "devstoreaccount1" ? parts.slice(1) : parts;
}

/** Turns an answer into a plain success with no body; the target's state is left as it was. */
export function toSuccess(res: ProxyResponse, status = 200, extra: Record<string, string> = {}): void {
  res.status = status;
  delete res.headers["x-ms-error-code"];
  delete res.headers["content-type"];
  Object.assign(res.headers, extra);
  res.body = Buffer.alloc(0);
}

/** The REST operation of a proxied request (fixtures/wire/operations.ts; the proxy sees the emulator's path-style URLs). */
export function operation(req: ProxyRequest): string {
  const u = new URL(req.url, "http://x");
  return operationOf(
    { service: req.service, method: req.method, path: u.pathname, query: u.searchParams, header: (n) => req.headers[n.toLowerCase()] },
    "/devstoreaccount1",
  );
}

/** An error answer in the service's own format (JSON for the table service, XML otherwise), as a target gives it. */
export function errorAnswer(req: ProxyRequest, status: number, code: string, message = code): ProxyResponse {
  const table = req.service === "table";
  const body =
    status === 304 || req.method === "HEAD"
      ? ""
      : table
        ? JSON.stringify({ "odata.error": { code, message: { lang: "en-US", value: message } } })
        : `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  return {
    status,
    headers: {
      "content-type": table ? "application/json;odata=minimalmetadata" : "application/xml",
      "x-ms-error-code": code,
      "x-ms-version": req.headers["x-ms-version"] ?? "",
      date: new Date().toUTCString(),
    },
    body: Buffer.from(body),
  };
}
