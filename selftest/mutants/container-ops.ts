// Mutants for T1 Container operations (suites/blob/container-ops.spec.ts):
// at least one documented deviation per row, each named with the rows that
// must catch it.
import { query, segments, toSuccess, type Mutant, type ProxyRequest, type ProxyResponse } from "./types.ts";

const P = "blob/container-ops/";

type ContainerOp =
  | "create"
  | "get-properties"
  | "get-metadata"
  | "set-metadata"
  | "get-acl"
  | "set-acl"
  | "delete"
  | "lease"
  | "list-blobs";

/** Which container operation a blob-service request is, if any. */
function containerOp(req: ProxyRequest): ContainerOp | undefined {
  if (req.service !== "blob" || segments(req).length !== 1) return undefined;
  const q = query(req);
  if (q.get("restype") !== "container") return undefined;
  const comp = q.get("comp");
  const read = req.method === "GET" || req.method === "HEAD";
  if (!comp) {
    if (req.method === "PUT") return "create";
    if (req.method === "DELETE") return "delete";
    if (read) return "get-properties";
  }
  if (comp === "metadata") return read ? "get-metadata" : req.method === "PUT" ? "set-metadata" : undefined;
  if (comp === "acl") return read ? "get-acl" : req.method === "PUT" ? "set-acl" : undefined;
  if (comp === "lease" && req.method === "PUT") return "lease";
  if (comp === "list" && req.method === "GET") return "list-blobs";
  return undefined;
}

const is = (req: ProxyRequest, ...ops: ContainerOp[]) => ops.includes(containerOp(req)!);
const ok = (res: ProxyResponse) => res.status >= 200 && res.status < 300;
const container = (req: ProxyRequest) => segments(req)[0];

function errorResponse(req: ProxyRequest, status: number, code: string): ProxyResponse {
  const body = status === 304 || req.method === "HEAD" ? "" : `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`;
  return {
    status,
    headers: { "content-type": "application/xml", "x-ms-error-code": code, "x-ms-version": req.headers["x-ms-version"] ?? "" },
    body: Buffer.from(body),
  };
}

/** A success answered by the proxy itself: the write is never applied. */
function fakeSuccess(req: ProxyRequest, status: number, etag?: string): ProxyResponse {
  const headers: Record<string, string> = { "x-ms-version": req.headers["x-ms-version"] ?? "", date: new Date().toUTCString() };
  if (etag) {
    headers["etag"] = etag;
    headers["last-modified"] = new Date().toUTCString();
  }
  return { status, headers, body: Buffer.alloc(0) };
}


function dropEtag(...ops: ContainerOp[]) {
  return (req: ProxyRequest, res: ProxyResponse) => {
    if (is(req, ...ops) && ok(res)) delete res.headers["etag"];
  };
}

function addEtag(...ops: ContainerOp[]) {
  return (req: ProxyRequest, res: ProxyResponse) => {
    if (is(req, ...ops) && ok(res)) res.headers["etag"] = '"0x8DC0FFEE0000001"';
  };
}

function stripHeaders(ops: ContainerOp[], names: string[]) {
  return (req: ProxyRequest) => {
    if (is(req, ...ops)) for (const n of names) delete req.headers[n];
  };
}

const DATE_CONDITIONS = ["if-modified-since", "if-unmodified-since"];

/**
 * The operation answers 412 ConditionNotMet to a date condition, as it should
 * when the condition fails, but the write is applied anyway (the condition is
 * stripped before forwarding, the success rewritten into a refusal).
 */
function refusedButApplied(op: ContainerOp, headers: string[]): Pick<Mutant, "onRequest" | "onResponse"> {
  return {
    onRequest(req, state) {
      if (!is(req, op) || !headers.some((h) => req.headers[h])) return;
      for (const h of headers) delete req.headers[h];
      state.set(`refuse:${req.headers["x-ms-client-request-id"] ?? req.url}`, true);
    },
    onResponse(req, res, state) {
      const key = `refuse:${req.headers["x-ms-client-request-id"] ?? req.url}`;
      if (state.get(key) && ok(res)) Object.assign(res, errorResponse(req, 412, "ConditionNotMet"));
      state.delete(key);
    },
  };
}
const STALE = '"0x8D0000000000000"';

export const MUTANTS: Mutant[] = [
  // Create Container
  {
    name: "container-ops-create-no-etag",
    description: "Create Container answers without an ETag",
    kills: [`${P}create-container/etag`],
    onResponse: dropEtag("create"),
  },
  {
    name: "container-ops-create-stale-etag",
    description: "Create Container answers an ETag other than the container's",
    kills: [`${P}create-container/etag`],
    onResponse(req, res) {
      if (is(req, "create") && ok(res)) res.headers["etag"] = STALE;
    },
  },
  {
    name: "container-ops-create-evaluates-if-match",
    description: "Create Container evaluates If-Match (412 ConditionNotMet for a non-matching one)",
    kills: [`${P}create-container/conditional`],
    onRequest(req) {
      if (is(req, "create") && req.headers["if-match"]) return errorResponse(req, 412, "ConditionNotMet");
    },
  },
  // Get Container Properties
  {
    name: "container-ops-get-properties-no-etag",
    description: "Get Container Properties answers without an ETag",
    kills: [`${P}get-container-properties/etag`],
    onResponse: dropEtag("get-properties"),
  },
  {
    name: "container-ops-get-properties-etag-frozen",
    description: "Get Container Properties keeps answering the ETag it first reported, whatever changed since",
    kills: [`${P}get-container-properties/etag`, `${P}set-container-metadata/etag`],
    onResponse(req, res, state) {
      if (!is(req, "get-properties") || !ok(res) || !res.headers["etag"]) return;
      const key = `etag:${container(req)}`;
      if (!state.has(key)) state.set(key, res.headers["etag"]);
      res.headers["etag"] = state.get(key) as string;
    },
  },
  {
    name: "container-ops-get-properties-etag-unstable",
    description: "Get Container Properties answers a new ETag on every read, though nothing changed",
    kills: [`${P}create-container/etag`, `${P}get-container-metadata/etag`, `${P}get-container-acl/etag`, `${P}lease-container/etag`],
    onResponse(req, res, state) {
      if (!is(req, "get-properties") || !ok(res)) return;
      const n = ((state.get("reads") as number | undefined) ?? 0) + 1;
      state.set("reads", n);
      res.headers["etag"] = `"0x8DC${n.toString(16).toUpperCase().padStart(12, "0")}"`;
    },
  },
  {
    name: "container-ops-get-properties-evaluates-conditions",
    description: "Get Container Properties evaluates If-Match (412) and If-None-Match (304)",
    kills: [`${P}get-container-properties/conditional`],
    onRequest(req) {
      if (!is(req, "get-properties")) return;
      if (req.headers["if-match"]) return errorResponse(req, 412, "ConditionNotMet");
      if (req.headers["if-none-match"]) return errorResponse(req, 304, "ConditionNotMet");
    },
  },
  {
    name: "container-ops-get-properties-304-on-if-none-match",
    description: "Get Container Properties answers 304 to a matching If-None-Match",
    kills: [`${P}get-container-properties/conditional`],
    onResponse(req, res) {
      if (is(req, "get-properties") && ok(res) && req.headers["if-none-match"] && req.headers["if-none-match"] === res.headers["etag"]) {
        res.status = 304;
        res.body = Buffer.alloc(0);
      }
    },
  },
  // Get Container Metadata
  {
    name: "container-ops-get-metadata-no-etag",
    description: "Get Container Metadata answers without an ETag",
    kills: [`${P}get-container-metadata/etag`],
    onResponse: dropEtag("get-metadata"),
  },
  {
    name: "container-ops-get-metadata-stale-etag",
    description: "Get Container Metadata answers an ETag other than the container's",
    kills: [`${P}get-container-metadata/etag`],
    onResponse(req, res) {
      if (is(req, "get-metadata") && ok(res)) res.headers["etag"] = STALE;
    },
  },
  {
    name: "container-ops-get-metadata-evaluates-if-none-match",
    description: "Get Container Metadata answers 304 to a matching If-None-Match",
    kills: [`${P}get-container-metadata/conditional`],
    onResponse(req, res) {
      if (is(req, "get-metadata") && ok(res) && req.headers["if-none-match"] === res.headers["etag"]) {
        res.status = 304;
        res.body = Buffer.alloc(0);
      }
    },
  },
  {
    name: "container-ops-get-metadata-evaluates-if-match",
    description: "Get Container Metadata answers 412 to a non-matching If-Match",
    kills: [`${P}get-container-metadata/conditional`],
    onResponse(req, res) {
      const im = req.headers["if-match"];
      if (is(req, "get-metadata") && ok(res) && im && im !== "*" && im !== res.headers["etag"]) {
        Object.assign(res, errorResponse(req, 412, "ConditionNotMet"));
      }
    },
  },
  // Set Container Metadata
  {
    name: "container-ops-set-metadata-no-etag",
    description: "Set Container Metadata answers without an ETag",
    kills: [`${P}set-container-metadata/etag`],
    onResponse: dropEtag("set-metadata"),
  },
  {
    name: "container-ops-set-metadata-etag-unchanged",
    description: "Set Container Metadata answers the ETag the container had before the write (replayed)",
    kills: [`${P}set-container-metadata/etag`],
    onResponse(req, res, state) {
      const key = `etag:${container(req)}`;
      if (is(req, "get-properties", "create") && ok(res) && res.headers["etag"]) state.set(key, res.headers["etag"]);
      if (is(req, "set-metadata") && ok(res) && state.has(key)) res.headers["etag"] = state.get(key) as string;
    },
  },
  {
    name: "container-ops-set-metadata-ignores-if-modified-since",
    description: "Set Container Metadata ignores If-Modified-Since (stripped: the write is applied)",
    kills: [`${P}set-container-metadata/conditional`],
    onRequest: stripHeaders(["set-metadata"], ["if-modified-since"]),
  },
  {
    name: "container-ops-set-metadata-412-reported-200",
    description: "Set Container Metadata reports success for a failing If-Modified-Since (write not applied)",
    kills: [`${P}set-container-metadata/conditional`],
    onResponse(req, res) {
      if (is(req, "set-metadata") && res.status === 412) toSuccess(res);
    },
  },
  {
    name: "container-ops-set-metadata-refuses-holding-condition",
    description: "Set Container Metadata refuses every If-Modified-Since, holding or not (412)",
    kills: [`${P}set-container-metadata/conditional`],
    onRequest(req) {
      if (is(req, "set-metadata") && req.headers["if-modified-since"]) return errorResponse(req, 412, "ConditionNotMet");
    },
  },
  {
    name: "container-ops-set-metadata-undocumented-412-applied",
    description: "Set Container Metadata answers 412 to an If-Match but applies the write",
    kills: [`${P}set-container-metadata/unsupported-headers`],
    async onRequest(req, state) {
      if (is(req, "set-metadata") && req.headers["if-match"]) {
        delete req.headers["if-match"];
        state.set(`refuse:${container(req)}`, true);
      }
    },
    onResponse(req, res, state) {
      if (is(req, "set-metadata") && state.get(`refuse:${container(req)}`) && ok(res)) {
        state.delete(`refuse:${container(req)}`);
        Object.assign(res, errorResponse(req, 412, "ConditionNotMet"));
      }
    },
  },
  {
    name: "container-ops-set-metadata-undocumented-200-not-applied",
    description: "Set Container Metadata answers 200 to an If-Unmodified-Since or If-Match but does not apply the write",
    kills: [`${P}set-container-metadata/unsupported-headers`],
    onRequest(req) {
      if (is(req, "set-metadata") && (req.headers["if-match"] || req.headers["if-unmodified-since"])) return fakeSuccess(req, 200, STALE);
    },
  },
  {
    name: "container-ops-set-metadata-412-but-applied",
    description: "Set Container Metadata answers 412 to any If-Modified-Since yet applies the write",
    kills: [`${P}set-container-metadata/conditional`],
    ...refusedButApplied("set-metadata", ["if-modified-since"]),
  },
  // Get Container ACL
  {
    name: "container-ops-get-acl-no-etag",
    description: "Get Container ACL answers without an ETag",
    kills: [`${P}get-container-acl/etag`],
    onResponse: dropEtag("get-acl"),
  },
  {
    name: "container-ops-get-acl-stale-etag",
    description: "Get Container ACL answers an ETag other than the container's",
    kills: [`${P}get-container-acl/etag`],
    onResponse(req, res) {
      if (is(req, "get-acl") && ok(res)) res.headers["etag"] = STALE;
    },
  },
  {
    name: "container-ops-get-acl-evaluates-if-match",
    description: "Get Container ACL answers 412 to any If-Match",
    kills: [`${P}get-container-acl/conditional`],
    onRequest(req) {
      if (is(req, "get-acl") && req.headers["if-match"]) return errorResponse(req, 412, "ConditionNotMet");
    },
  },
  {
    name: "container-ops-get-acl-policy-not-read-back",
    description: "Get Container ACL answers an empty SignedIdentifiers list whatever was stored",
    kills: [`${P}set-container-acl/propagation`, `${P}set-container-acl/conditional`],
    onResponse(req, res) {
      if (is(req, "get-acl") && ok(res) && req.method === "GET") {
        res.body = Buffer.from(res.body.toString("utf8").replace(/<SignedIdentifiers>[\s\S]*<\/SignedIdentifiers>/, "<SignedIdentifiers />"));
      }
    },
  },
  // Set Container ACL
  {
    name: "container-ops-set-acl-no-etag",
    description: "Set Container ACL answers without an ETag",
    kills: [`${P}set-container-acl/etag`],
    onResponse: dropEtag("set-acl"),
  },
  {
    name: "container-ops-set-acl-etag-unchanged",
    description: "Set Container ACL answers the ETag the container had before the write (replayed)",
    kills: [`${P}set-container-acl/etag`],
    onResponse(req, res, state) {
      const key = `etag:${container(req)}`;
      if (is(req, "get-properties", "create") && ok(res) && res.headers["etag"]) state.set(key, res.headers["etag"]);
      if (is(req, "set-acl") && ok(res) && state.has(key)) res.headers["etag"] = state.get(key) as string;
    },
  },
  {
    name: "container-ops-set-acl-412-reported-200-applied",
    description: "Set Container ACL ignores If-Unmodified-Since: a failing one is stripped and the write applied (200)",
    kills: [`${P}set-container-acl/conditional`],
    onRequest: stripHeaders(["set-acl"], ["if-unmodified-since"]),
  },
  {
    name: "container-ops-set-acl-412-reported-200",
    description: "Set Container ACL reports success for a failing If-Unmodified-Since (write not applied)",
    kills: [`${P}set-container-acl/conditional`],
    onResponse(req, res) {
      if (is(req, "set-acl") && res.status === 412) toSuccess(res);
    },
  },
  {
    name: "container-ops-set-acl-conditional-write-dropped",
    description: "Set Container ACL with a condition answers 200 but never stores the policy",
    kills: [`${P}set-container-acl/conditional`],
    onRequest(req) {
      if (is(req, "set-acl") && (req.headers["if-unmodified-since"] || req.headers["if-modified-since"])) return fakeSuccess(req, 200, STALE);
    },
  },
  {
    name: "container-ops-set-acl-never-applied",
    description: "Set Container ACL answers 200 but never stores the policy",
    kills: [`${P}set-container-acl/propagation`],
    onRequest(req) {
      if (is(req, "set-acl")) return fakeSuccess(req, 200, STALE);
    },
  },
  {
    name: "container-ops-set-acl-412-but-applied",
    description: "Set Container ACL answers 412 to any If-Unmodified-Since yet stores the policy",
    kills: [`${P}set-container-acl/conditional`],
    ...refusedButApplied("set-acl", ["if-unmodified-since"]),
  },
  // Delete Container
  {
    name: "container-ops-delete-adds-etag",
    description: "Delete Container answers with an ETag",
    kills: [`${P}delete-container/etag`],
    onResponse: addEtag("delete"),
  },
  {
    name: "container-ops-delete-ignores-if-unmodified-since",
    description: "Delete Container ignores If-Unmodified-Since (stripped: the container is deleted)",
    kills: [`${P}delete-container/conditional`],
    onRequest: stripHeaders(["delete"], ["if-unmodified-since"]),
  },
  {
    name: "container-ops-delete-ignores-if-modified-since",
    description: "Delete Container ignores If-Modified-Since (stripped: the container is deleted)",
    kills: [`${P}delete-container/conditional`],
    onRequest: stripHeaders(["delete"], ["if-modified-since"]),
  },
  {
    name: "container-ops-delete-412-reported-202",
    description: "Delete Container reports 202 for a failing condition but keeps the container",
    kills: [`${P}delete-container/conditional`],
    onResponse(req, res) {
      if (is(req, "delete") && res.status === 412) toSuccess(res, 202);
    },
  },
  {
    name: "container-ops-delete-not-applied",
    description: "Delete Container answers 202 but the container stays",
    kills: [`${P}delete-container/conditional`],
    onRequest(req) {
      if (is(req, "delete") && (req.headers["if-unmodified-since"] || req.headers["if-modified-since"])) return fakeSuccess(req, 202);
    },
  },
  {
    name: "container-ops-delete-412-but-applied",
    description: "Delete Container answers 412 to a date condition yet deletes the container",
    kills: [`${P}delete-container/conditional`],
    ...refusedButApplied("delete", DATE_CONDITIONS),
  },
  // Lease Container
  {
    name: "container-ops-lease-no-etag",
    description: "Lease Container answers without an ETag",
    kills: [`${P}lease-container/etag`],
    onResponse: dropEtag("lease"),
  },
  {
    name: "container-ops-lease-ignores-conditions",
    description: "Lease Container ignores If-Modified-Since and If-Unmodified-Since (stripped)",
    kills: [`${P}lease-container/conditional`],
    onRequest: stripHeaders(["lease"], DATE_CONDITIONS),
  },
  {
    name: "container-ops-lease-refuses-holding-condition",
    description: "Lease Container refuses every conditional acquire, holding or not (412)",
    kills: [`${P}lease-container/conditional`],
    onRequest(req) {
      if (is(req, "lease") && DATE_CONDITIONS.some((h) => req.headers[h])) return errorResponse(req, 412, "ConditionNotMet");
    },
  },
  {
    name: "container-ops-lease-stale-etag",
    description: "Lease Container answers an ETag other than the container's",
    kills: [`${P}lease-container/etag`],
    onResponse(req, res) {
      if (is(req, "lease") && ok(res)) res.headers["etag"] = STALE;
    },
  },
  {
    name: "container-ops-lease-412-but-applied",
    description: "Lease Container answers 412 to a date condition yet acquires the lease",
    kills: [`${P}lease-container/conditional`],
    ...refusedButApplied("lease", DATE_CONDITIONS),
  },
  {
    name: "container-ops-lease-conditional-not-applied",
    description: "Lease Container answers 201 to a conditional acquire but no lease is taken",
    kills: [`${P}lease-container/conditional`],
    onRequest(req) {
      if (is(req, "lease") && DATE_CONDITIONS.some((h) => req.headers[h])) {
        const res = fakeSuccess(req, 201, STALE);
        res.headers["x-ms-lease-id"] = req.headers["x-ms-proposed-lease-id"] ?? "00000000-0000-0000-0000-000000000000";
        return res;
      }
    },
  },
  // List Blobs
  {
    name: "container-ops-list-blobs-adds-etag",
    description: "List Blobs answers with an ETag",
    kills: [`${P}list-blobs/etag`],
    onResponse: addEtag("list-blobs"),
  },
  {
    name: "container-ops-list-blobs-omits-blobs",
    description: "List Blobs answers an empty listing (body rewritten)",
    kills: [`${P}list-blobs/etag`],
    onResponse(req, res) {
      if (is(req, "list-blobs") && ok(res)) {
        res.body = Buffer.from(res.body.toString("utf8").replace(/<Blobs>[\s\S]*<\/Blobs>/, "<Blobs />"));
      }
    },
  },
  {
    name: "container-ops-list-blobs-evaluates-if-none-match",
    description: "List Blobs answers 304 to an If-None-Match equal to the container's ETag",
    kills: [`${P}list-blobs/conditional`],
    async onResponse(req, res, state) {
      if (is(req, "get-properties") && ok(res) && res.headers["etag"]) state.set(`etag:${container(req)}`, res.headers["etag"]);
      if (is(req, "list-blobs") && ok(res) && req.headers["if-none-match"] && req.headers["if-none-match"] === state.get(`etag:${container(req)}`)) {
        res.status = 304;
        res.body = Buffer.alloc(0);
      }
    },
  },
  {
    name: "container-ops-list-blobs-evaluates-if-match",
    description: "List Blobs answers 412 to any If-Match",
    kills: [`${P}list-blobs/conditional`],
    onRequest(req) {
      if (is(req, "list-blobs") && req.headers["if-match"]) return errorResponse(req, 412, "ConditionNotMet");
    },
  },
];
