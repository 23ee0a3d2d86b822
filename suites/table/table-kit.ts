// Table helpers shared by the table suites: entities in a known state, read
// back with their ETag, raw entity requests (for If-Match values the SDK never
// sends: none at all, malformed ones) and raw entity group transactions (the
// SDK sends `*` for deletes in a batch and parses sub-responses loosely).
import { randomUUID } from "node:crypto";
import type { TableClient, TableEntityResult, UpdateMode } from "@azure/data-tables";
import { expectSent, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext } from "../../fixtures/harness/engine.ts";
import { currentEvidence } from "../../fixtures/wire/evidence.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { rethrowIfFault } from "../../fixtures/wire/signals.ts";

export const entitySource = (rest: string) => `seed: table of entity operations; REST: ${rest}`;

/** A well-formed weak table ETag no entity of this run can carry. */
export const STALE_TABLE_ETAG = `W/"datetime'2000-01-01T00%3A00%3A00.0000000Z'"`;
/** Not an ETag at all (TB rest: a malformed If-Match → 400). */
export const MALFORMED_IF_MATCH = "not-an-etag";

export const PK = "pk";

export type Props = Record<string, string | number | boolean>;

export interface EntityState {
  props: Props;
  etag: string;
}

const SYSTEM = new Set([
  "odata.metadata",
  "odata.etag",
  "etag",
  "timestamp",
  "partitionKey",
  "rowKey",
  "PartitionKey",
  "RowKey",
  "Timestamp",
]);

/** The user properties of an entity, sorted by name, without keys and system properties. */
export function userProps(e: Record<string, unknown>): Props {
  const out: Props = {};
  for (const k of Object.keys(e).sort()) if (!SYSTEM.has(k) && !k.includes("@odata")) out[k] = e[k] as string;
  return out;
}

export const entity = (rk: string, props: Props) => ({ partitionKey: PK, rowKey: rk, ...props });
/** What a successful write of `props` leaves, by mode (Merge keeps properties it does not name). */
export const written = (mode: UpdateMode, before: Props, props: Props): Props =>
  userProps(mode === "Replace" ? props : { ...before, ...props });

/** A fresh table holding one entity (PK, rk) with `props`. */
export async function newEntity(t: RowContext, props: Props, rk = "rk"): Promise<{ table: TableClient; rk: string; etag: string }> {
  const table = await t.newTable();
  const res = await table.createEntity({ partitionKey: PK, rowKey: rk, ...props });
  return { table, rk, etag: res.etag! };
}

/** Reads an entity back (props and ETag); undefined when it does not exist. */
export async function readEntity(table: TableClient, rk: string, pk = PK): Promise<EntityState | undefined> {
  try {
    const e: TableEntityResult<Record<string, unknown>> = await table.getEntity(pk, rk);
    return { props: userProps(e), etag: e.etag };
  } catch (err) {
    rethrowIfFault(err);
    if ((err as { statusCode?: number }).statusCode === 404) return undefined;
    throw err;
  }
}

/** Reads an entity that must exist. */
export async function mustRead(table: TableClient, rk: string, what: string, pk = PK): Promise<EntityState> {
  const s = await readEntity(table, rk, pk);
  expectTrue(`${what}: the entity does not exist`, s !== undefined);
  return s!;
}

/** Two ETags are the same; the message names neither (ETags differ run to run). */
export function expectSameEtag(what: string, actual: string | undefined, expected: string | undefined): void {
  expectTrue(`${what}: ${actual ? "a different ETag" : "no ETag"}`, !!actual && actual === expected);
}

/** A second, independent client on the same table (another writer). */
export function otherWriter(t: RowContext, table: TableClient): TableClient {
  return t.clients.table(table.tableName);
}

export const entityPath = (table: string, rk: string, pk = PK) => `/${table}(PartitionKey='${pk}',RowKey='${rk}')`;

/**
 * A raw entity request (Update = PUT, Merge = MERGE, Delete = DELETE, Insert = POST).
 * `ifMatch: undefined` sends no If-Match at all; the evidence shows what was sent.
 */
export async function rawEntity(
  t: RowContext,
  req: { method: "PUT" | "MERGE" | "DELETE" | "POST" | "GET"; table: string; rk?: string; ifMatch?: string; body?: Props },
): Promise<RawResponse> {
  const headers: Record<string, string> = {};
  if (req.body) headers["content-type"] = "application/json";
  if (req.ifMatch !== undefined) headers["if-match"] = req.ifMatch;
  const body = req.method === "POST" ? { PartitionKey: PK, RowKey: req.rk ?? "rk", ...(req.body ?? {}) } : req.body;
  const res = await t.raw("table", {
    method: req.method,
    path: req.method === "POST" ? `/${req.table}` : entityPath(req.table, req.rk ?? "rk"),
    headers,
    body: body ? JSON.stringify(body) : undefined,
  });
  if (req.ifMatch !== undefined) expectSent(`${req.method} entity`, lastSent(), "If-Match");
  else expectNotSent(`${req.method} entity`, lastSent(), "If-Match");
  return res;
}

/** Request headers of the exchange just recorded. */
export function lastSent(): Record<string, string> {
  return currentEvidence()?.exchanges.at(-1)?.requestHeaders ?? {};
}

/** Proves a header did NOT leave the client (an SDK upsert carries no If-Match). */
export function expectNotSent(what: string, sent: Record<string, string>, header: string): void {
  expectTrue(`${what}: the ${header} header was sent`, sent[header.toLowerCase()] === undefined);
}

// ---------------------------------------------------------------------------
// Entity group transactions, built by hand ("Performing Entity Group Transactions").

export interface BatchOp {
  method: "PUT" | "MERGE" | "DELETE" | "POST";
  rk: string;
  /** Its PartitionKey (default PK). */
  pk?: string;
  ifMatch?: string;
  body?: Props;
}

export interface SubResponse {
  status: number;
  /** Content-ID of the sub-response, when the target gives one. */
  contentId?: string;
  /** Index of the failing operation from the error message ("1:The update condition…"). */
  index?: number;
  code?: string;
  etag?: string;
}

export interface BatchResult {
  status: number;
  subResponses: SubResponse[];
  raw: RawResponse;
}

/** Sends one changeset with `ops` against `table` (in partition PK unless an op names another). */
export async function rawBatch(t: RowContext, table: string, ops: BatchOp[]): Promise<BatchResult> {
  const base = t.target.endpoints.table!.replace(/\/+$/, "");
  const batch = `batch_${randomUUID()}`;
  const changeset = `changeset_${randomUUID()}`;
  const parts = ops.map((op, i) => {
    const url = op.method === "POST" ? `${base}/${table}` : `${base}${entityPath(table, op.rk, op.pk)}`;
    const body = op.method === "POST" ? { PartitionKey: op.pk ?? PK, RowKey: op.rk, ...(op.body ?? {}) } : op.body;
    const lines = [
      `--${changeset}`,
      "Content-Type: application/http",
      "Content-Transfer-Encoding: binary",
      "",
      `${op.method} ${url} HTTP/1.1`,
      `Content-ID: ${i + 1}`,
      "Accept: application/json;odata=minimalmetadata",
      "Content-Type: application/json",
      "DataServiceVersion: 3.0",
    ];
    if (op.ifMatch !== undefined) lines.push(`If-Match: ${op.ifMatch}`);
    if (op.method === "POST") lines.push("Prefer: return-no-content");
    lines.push("", body ? JSON.stringify(body) : "");
    return lines.join("\r\n");
  });
  const text = [
    `--${batch}`,
    `Content-Type: multipart/mixed; boundary=${changeset}`,
    "",
    ...parts,
    `--${changeset}--`,
    `--${batch}--`,
    "",
  ].join("\r\n");
  const raw = await t.raw("table", {
    method: "POST",
    path: "/$batch",
    headers: { "content-type": `multipart/mixed; boundary=${batch}`, accept: "application/json", maxdataserviceversion: "3.0;NetFx" },
    body: text,
  });
  return { status: raw.status, subResponses: parseSubResponses(raw.body), raw };
}

/** Splits a batch response into its sub-responses (status, Content-ID, error index and code, ETag). */
export function parseSubResponses(body: string): SubResponse[] {
  const out: SubResponse[] = [];
  for (const chunk of body.split(/\r?\n(?=HTTP\/1\.1 \d{3})/).slice(1)) {
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk)?.[1]);
    const head = chunk.split(/\r?\n\r?\n/)[0];
    const contentId = /^Content-ID:\s*(\S+)/im.exec(head)?.[1];
    const etag = /^ETag:\s*(.+?)\s*$/im.exec(head)?.[1];
    const code = /"code"\s*:\s*"([^"]+)"/.exec(chunk)?.[1];
    const idx = /"value"\s*:\s*"(\d+):/.exec(chunk)?.[1];
    out.push({ status, contentId, etag, code, index: idx === undefined ? undefined : Number(idx) });
  }
  return out;
}

/** The request of a table entity operation on a placeholder entity (the request classifier names it: an If-Match makes Update and Merge what they are). */
export const ENTITY_REQUEST = (method: "PUT" | "MERGE" | "DELETE" | "POST") =>
  method === "POST" ? { method, path: "/t" } : { method, path: "/t(PartitionKey='p',RowKey='r')", headers: { "if-match": "*" } };
