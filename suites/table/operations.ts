// One record per REST operation of the table service that the suite or the
// concurrency surface touches: its REST name (as fixtures/wire/operations.ts
// classifies a request: Update and Merge Entity carry If-Match, Insert Or
// Replace and Insert Or Merge the same methods without it), the slug its
// rows' IDs use, its kind, the raw request that performs it, and the
// concurrency parameters it takes (catalogue/surface.tsv: if-match), each
// sent by the request. The operation-records self-test reads them back
// through the classifier; adding or correcting an operation is one edit here.
import type { RawRequest } from "../../fixtures/wire/raw.ts";
import { accountRecords, recordsBySlug } from "../account-records.ts";

/** Where a record's request goes. */
export interface TableSubject {
  table: string;
  /** The entity's keys (default `pk` and `rk`). */
  partitionKey?: string;
  rowKey?: string;
  /** The If-Match a conditional write sends (default `*`, any ETag). */
  etag?: string;
  /** Entity Group Transaction: the table endpoint, which its parts' request lines name. */
  endpoint?: string;
}

export interface TableOperation {
  /** REST reference name, as fixtures/wire/operations.ts names a request. */
  operation: string;
  /** The operation in row IDs, e.g. `merge-entity`. */
  slug: string;
  kind: "read" | "write";
  request(s: TableSubject): RawRequest;
  /** The concurrency parameters it takes (catalogue/surface.tsv), each a header of the request. */
  parameters: string[];
}

const JSON_TYPE = { "content-type": "application/json" };
const XML = { "content-type": "application/xml" };
/** An OData key literal: quoted, a quote doubled. */
const key = (k: string) => `'${k.replace(/'/g, "''")}'`;
const keysOf = (s: TableSubject) => ({ PartitionKey: s.partitionKey ?? "pk", RowKey: s.rowKey ?? "rk" });
const entityPath = (s: TableSubject) => {
  const k = keysOf(s);
  return `/${s.table}(PartitionKey=${key(k.PartitionKey)},RowKey=${key(k.RowKey)})`;
};
const ifMatch = (s: TableSubject) => ({ "if-match": s.etag ?? "*" });

/** A write of the entity's properties at its keyed path: `conditional` sends If-Match (Update, Merge), else none (the inserts-or-*). */
const entityWrite = (method: "PUT" | "MERGE", conditional: boolean) => (s: TableSubject) => ({
  method,
  path: entityPath(s),
  headers: { ...JSON_TYPE, ...(conditional ? ifMatch(s) : {}) },
  body: JSON.stringify({ state: "permitted" }),
});

/** One changeset inserting the subject's entity (Performing Entity Group Transactions). */
function batch(s: TableSubject): RawRequest {
  const [outer, changeset] = ["batch_0001", "changeset_0001"];
  const base = (s.endpoint ?? "").replace(/\/+$/, "");
  const part = [
    `--${changeset}`,
    "Content-Type: application/http",
    "Content-Transfer-Encoding: binary",
    "",
    `POST ${base}/${s.table} HTTP/1.1`,
    "Content-ID: 1",
    "Accept: application/json;odata=minimalmetadata",
    "Content-Type: application/json",
    "DataServiceVersion: 3.0",
    "Prefer: return-no-content",
    "",
    JSON.stringify({ ...keysOf(s), state: "batch" }),
  ].join("\r\n");
  return {
    method: "POST",
    path: "/$batch",
    headers: { "content-type": `multipart/mixed; boundary=${outer}`, accept: "application/json", maxdataserviceversion: "3.0;NetFx" },
    body: [`--${outer}`, `Content-Type: multipart/mixed; boundary=${changeset}`, "", part, `--${changeset}--`, `--${outer}--`, ""].join(
      "\r\n",
    ),
  };
}

const RECORDS: TableOperation[] = [
  {
    operation: "Create Table",
    slug: "create-table",
    kind: "write",
    request: (s) => ({ method: "POST", path: "/Tables", headers: JSON_TYPE, body: JSON.stringify({ TableName: s.table }) }),
    parameters: [],
  },
  {
    operation: "Delete Table",
    slug: "delete-table",
    kind: "write",
    request: (s) => ({ method: "DELETE", path: `/Tables(${key(s.table)})` }),
    parameters: [],
  },
  {
    operation: "Query Tables",
    slug: "query-tables",
    kind: "read",
    request: (s) => ({ method: "GET", path: "/Tables", query: { $filter: `TableName eq ${key(s.table)}` } }),
    parameters: [],
  },
  {
    operation: "Insert Entity",
    slug: "insert-entity",
    kind: "write",
    request: (s) => ({
      method: "POST",
      path: `/${s.table}`,
      headers: JSON_TYPE,
      body: JSON.stringify({ ...keysOf(s), state: "permitted" }),
    }),
    parameters: [],
  },
  {
    operation: "Query Entities",
    slug: "query-entities",
    kind: "read",
    // A point query (GET at the entity's keyed path) is named Query Entities too.
    request: (s) => ({ method: "GET", path: `/${s.table}()`, query: { $filter: `PartitionKey eq ${key(keysOf(s).PartitionKey)}` } }),
    parameters: [],
  },
  { operation: "Update Entity", slug: "update-entity", kind: "write", request: entityWrite("PUT", true), parameters: ["if-match"] },
  { operation: "Merge Entity", slug: "merge-entity", kind: "write", request: entityWrite("MERGE", true), parameters: ["if-match"] },
  {
    operation: "Insert Or Replace Entity",
    slug: "insert-or-replace-entity",
    kind: "write",
    request: entityWrite("PUT", false),
    parameters: [],
  },
  {
    operation: "Insert Or Merge Entity",
    slug: "insert-or-merge-entity",
    kind: "write",
    request: entityWrite("MERGE", false),
    parameters: [],
  },
  {
    operation: "Delete Entity",
    slug: "delete-entity",
    kind: "write",
    request: (s) => ({ method: "DELETE", path: entityPath(s), headers: ifMatch(s) }),
    parameters: ["if-match"],
  },
  { operation: "Entity Group Transaction", slug: "entity-group-transaction", kind: "write", request: batch, parameters: [] },
  {
    operation: "Get Table ACL",
    slug: "get-table-acl",
    kind: "read",
    request: (s) => ({ method: "GET", path: `/${s.table}`, query: { comp: "acl" } }),
    parameters: [],
  },
  {
    operation: "Set Table ACL",
    slug: "set-table-acl",
    kind: "write",
    request: (s) => ({
      method: "PUT",
      path: `/${s.table}`,
      query: { comp: "acl" },
      headers: XML,
      body: `<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers><SignedIdentifier><Id>permitted</Id><AccessPolicy><Permission>r</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>`,
    }),
    parameters: [],
  },
  ...accountRecords("Table"),
];

/** A subject with every field, to name a record's request (fixtures/wire/operations.ts, surfaceNameOfRequest). */
export const ANY_TABLE_SUBJECT: TableSubject = {
  table: "t",
  partitionKey: "pk",
  rowKey: "rk",
  etag: `W/"datetime'2026-01-01T00%3A00%3A00.0000000Z'"`,
  endpoint: "https://a.table.core.windows.net",
};

const BY_SLUG = recordsBySlug("table", RECORDS);
export const TABLE_OPERATIONS = BY_SLUG.all;
/** The record of an operation by its slug. */
export const tableOp = BY_SLUG.of;
