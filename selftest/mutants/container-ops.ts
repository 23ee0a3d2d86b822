// Mutants for T1 Container operations (suites/blob/container-ops.rows.ts):
// at least one documented deviation per row, each named with the rows that
// must catch it.
import { query, segments, toSuccess, type Mutant, type ProxyRequest, type ProxyResponse } from "./types.ts";

const P = "blob/container-ops/";

type ContainerOp =
  "create" | "get-properties" | "get-metadata" | "set-metadata" | "get-acl" | "set-acl" | "delete" | "lease" | "list-blobs";

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
  const body =
    status === 304 || req.method === "HEAD"
      ? ""
      : `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`;
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
    name: "container-ops-create-stale-etag",
    description: "Create Container answers an ETag other than the container's",
    kills: [`${P}create-container/etag`],
    onResponse(req, res) {
      if (is(req, "create") && ok(res)) res.headers["etag"] = STALE;
    },
  },
  // Get Container Properties
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
  // Get Container Metadata
  // Set Container Metadata
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
    name: "container-ops-get-acl-policy-not-read-back",
    description: "Get Container ACL answers an empty SignedIdentifiers list whatever was stored",
    kills: [`${P}set-container-acl/propagation`, `${P}set-container-acl/conditional`],
    onResponse(req, res) {
      if (is(req, "get-acl") && ok(res) && req.method === "GET") {
        res.body = Buffer.from(
          res.body.toString("utf8").replace(/<SignedIdentifiers>[\s\S]*<\/SignedIdentifiers>/, "<SignedIdentifiers />"),
        );
      }
    },
  },
  // Set Container ACL
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
      if (is(req, "set-acl") && (req.headers["if-unmodified-since"] || req.headers["if-modified-since"]))
        return fakeSuccess(req, 200, STALE);
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
    name: "container-ops-lease-refuses-holding-condition",
    description: "Lease Container refuses every conditional acquire, holding or not (412)",
    kills: [`${P}lease-container/conditional`],
    onRequest(req) {
      if (is(req, "lease") && DATE_CONDITIONS.some((h) => req.headers[h])) return errorResponse(req, 412, "ConditionNotMet");
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
    name: "container-ops-list-blobs-omits-blobs",
    description: "List Blobs answers an empty listing (body rewritten)",
    kills: [`${P}list-blobs/etag`],
    onResponse(req, res) {
      if (is(req, "list-blobs") && ok(res)) {
        res.body = Buffer.from(res.body.toString("utf8").replace(/<Blobs>[\s\S]*<\/Blobs>/, "<Blobs />"));
      }
    },
  },
];
