// Mutants for T2 Blob operations (suites/blob/blob-ops*.spec.ts): at least one
// documented deviation per `doc` row, each named with the rows that must
// catch it. Kills name only rows that pass on the plain embedded Azurite.
import { query, segments, toSuccess, type Mutant, type MutantState, type ProxyRequest, type ProxyResponse } from "./types.ts";

const P = "blob/blob-ops/";

export type BlobOp =
  | "put-blob"
  | "get-blob"
  | "get-blob-properties"
  | "set-blob-properties"
  | "get-blob-metadata"
  | "set-blob-metadata"
  | "lease-blob"
  | "snapshot-blob"
  | "copy-blob"
  | "abort-copy-blob"
  | "delete-blob"
  | "put-block"
  | "put-block-list"
  | "get-block-list"
  | "put-page"
  | "get-page-ranges";

/** Which T2 operation a blob-service request is, if any. */
export function blobOp(req: ProxyRequest): BlobOp | undefined {
  if (req.service !== "blob" || segments(req).length < 2) return undefined;
  const q = query(req);
  if (q.get("restype")) return undefined;
  const comp = q.get("comp");
  switch (req.method) {
    case "PUT":
      if (!comp) return req.headers["x-ms-copy-source"] ? "copy-blob" : "put-blob";
      return (
        ({
          properties: "set-blob-properties",
          metadata: "set-blob-metadata",
          lease: "lease-blob",
          snapshot: "snapshot-blob",
          copy: "abort-copy-blob",
          block: "put-block",
          blocklist: "put-block-list",
          page: "put-page",
        }) as Record<string, BlobOp>
      )[comp];
    case "GET":
      if (!comp) return "get-blob";
      return ({ metadata: "get-blob-metadata", blocklist: "get-block-list", pagelist: "get-page-ranges" } as Record<string, BlobOp>)[comp];
    case "HEAD":
      if (!comp) return "get-blob-properties";
      return comp === "metadata" ? "get-blob-metadata" : undefined;
    case "DELETE":
      return comp ? undefined : "delete-blob";
  }
  return undefined;
}

export const isOp = (req: ProxyRequest, ...ops: BlobOp[]) => ops.includes(blobOp(req)!);
export const ok = (res: ProxyResponse) => res.status >= 200 && res.status < 300;
/** container/blob of a request (snapshots and other query parameters left out). */
export const blobKey = (req: ProxyRequest) => segments(req).join("/");

export function errorResponse(req: ProxyRequest, status: number, code: string): ProxyResponse {
  const body = status === 304 || req.method === "HEAD" ? "" : `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>${code}</Message></Error>`;
  return {
    status,
    headers: { "content-type": "application/xml", "x-ms-error-code": code, "x-ms-version": req.headers["x-ms-version"] ?? "", date: new Date().toUTCString() },
    body: Buffer.from(body),
  };
}

const FAKE_ETAG = '"0x8DC0FFEE0000001"';

function dropEtag(op: BlobOp): Mutant {
  return {
    name: `blob-ops-${op}-no-etag`,
    description: `${op} answers without an ETag`,
    kills: [`${P}${op}/etag`],
    onResponse(req, res) {
      if (isOp(req, op) && ok(res)) delete res.headers["etag"];
    },
  };
}

function addEtag(op: BlobOp): Mutant {
  return {
    name: `blob-ops-${op}-adds-etag`,
    description: `${op} answers with an ETag where the article says none is returned`,
    kills: [`${P}${op}/etag`],
    onResponse(req, res) {
      if (isOp(req, op) && ok(res)) res.headers["etag"] = FAKE_ETAG;
    },
  };
}

function ignoresHeader(op: BlobOp, header: string, kills: string[], label = header): Mutant {
  return {
    name: `blob-ops-${op}-ignores-${label}`,
    description: `${op} ignores ${header} (stripped before forwarding: the operation goes ahead)`,
    kills,
    onRequest(req) {
      if (isOp(req, op)) delete req.headers[header];
    },
  };
}

/** Remembers the last ETag the target reported for each blob (before any rewrite). */
function trackEtag(req: ProxyRequest, res: ProxyResponse, state: MutantState): void {
  if (blobOp(req) && ok(res) && res.headers["etag"]) state.set(`etag:${blobKey(req)}`, res.headers["etag"]);
}

/**
 * Simulates a copy still pending on the server (Azurite completes copies at
 * once): Copy Blob answers pending, reads report the copy pending until an
 * Abort Copy Blob, which the proxy answers itself through `abort`.
 */
export function pendingCopy(name: string, description: string, kills: string[], abort: (req: ProxyRequest) => ProxyResponse): Mutant {
  return {
    name,
    description,
    kills,
    onRequest(req, state) {
      if (!isOp(req, "abort-copy-blob") || state.get(`copy:${blobKey(req)}`) !== "pending") return;
      const answer = abort(req);
      if (ok(answer)) state.set(`copy:${blobKey(req)}`, "aborted");
      return answer;
    },
    onResponse(req, res, state) {
      const key = `copy:${blobKey(req)}`;
      if (isOp(req, "copy-blob") && res.status === 202) {
        res.headers["x-ms-copy-status"] = "pending";
        state.set(key, "pending");
      } else if (isOp(req, "get-blob", "get-blob-properties") && ok(res) && state.has(key)) {
        res.headers["x-ms-copy-status"] = state.get(key) as string;
      }
    },
  };
}

export const abortAnswer = (req: ProxyRequest, extra: Record<string, string> = {}): ProxyResponse => ({
  status: 204,
  headers: { "x-ms-version": req.headers["x-ms-version"] ?? "", date: new Date().toUTCString(), ...extra },
  body: Buffer.alloc(0),
});

export const MUTANTS: Mutant[] = [
  // ETag = yes: the header dropped from the success response.
  ...(
    [
      "put-blob",
      "get-blob",
      "get-blob-properties",
      "set-blob-properties",
      "get-blob-metadata",
      "set-blob-metadata",
      "lease-blob",
      "snapshot-blob",
      "copy-blob",
      "put-block-list",
      "get-block-list",
      "put-page",
      "get-page-ranges",
    ] as BlobOp[]
  ).map(dropEtag),
  // ETag = no: an ETag added.
  addEtag("delete-blob"),
  addEtag("put-block"),

  // Conditional = yes, writes: If-Match stripped before forwarding (a stale one no longer refuses).
  ignoresHeader("put-blob", "if-match", [`${P}put-blob/conditional`]),
  ignoresHeader("set-blob-properties", "if-match", [`${P}set-blob-properties/conditional`]),
  ignoresHeader("set-blob-metadata", "if-match", [`${P}set-blob-metadata/conditional`]),
  ignoresHeader("lease-blob", "if-match", [`${P}lease-blob/conditional`]),
  ignoresHeader("snapshot-blob", "if-match", [`${P}snapshot-blob/conditional`]),
  ignoresHeader("delete-blob", "if-match", [`${P}delete-blob/conditional`]),
  ignoresHeader("put-block-list", "if-match", [`${P}put-block-list/conditional`]),
  ignoresHeader("put-page", "if-match", [`${P}put-page/conditional`]),
  ignoresHeader("copy-blob", "if-match", [`${P}copy-blob/conditional`, `${P}copy-blob/destination-conditional`]),
  ignoresHeader("copy-blob", "x-ms-source-if-match", [`${P}copy-blob/conditional`, `${P}copy-blob/source-conditional`], "source-if-match"),
  // Conditional = yes, reads.
  ignoresHeader("get-blob", "if-none-match", [`${P}get-blob/conditional`]),
  ignoresHeader("get-blob-properties", "if-match", [`${P}get-blob-properties/conditional`]),
  ignoresHeader("get-blob-metadata", "if-none-match", [`${P}get-blob-metadata/conditional`]),
  ignoresHeader("get-page-ranges", "if-match", [`${P}get-page-ranges/conditional`]),
  {
    name: "blob-ops-get-blob-properties-304-reported-200",
    description: "Get Blob Properties answers 200 where a matching If-None-Match gives 304",
    kills: [`${P}get-blob-properties/conditional`],
    onResponse(req, res) {
      if (isOp(req, "get-blob-properties") && res.status === 304) {
        res.status = 200;
        delete res.headers["x-ms-error-code"];
      }
    },
  },
  {
    name: "blob-ops-get-page-ranges-ignores-if-none-match",
    description: "Get Page Ranges answers 200 with the ranges where a matching If-None-Match gives 304",
    kills: [`${P}get-page-ranges/conditional`],
    onRequest(req) {
      if (isOp(req, "get-page-ranges")) delete req.headers["if-none-match"];
    },
  },
  {
    name: "blob-ops-put-blob-refused-but-applied",
    description: "Put Blob with a stale If-Match answers 412 ConditionNotMet but applies the write anyway",
    kills: [`${P}put-blob/conditional`],
    onRequest(req, state) {
      const im = req.headers["if-match"];
      if (!isOp(req, "put-blob") || !im) return;
      const current = state.get(`etag:${blobKey(req)}`);
      delete req.headers["if-match"];
      if (current !== undefined && im !== current && im !== "*") state.set(`refuse:${blobKey(req)}`, true);
    },
    onResponse(req, res, state) {
      const refuse = state.get(`refuse:${blobKey(req)}`);
      trackEtag(req, res, state);
      if (isOp(req, "put-blob") && refuse && ok(res)) {
        state.delete(`refuse:${blobKey(req)}`);
        Object.assign(res, errorResponse(req, 412, "ConditionNotMet"));
      }
    },
  },
  {
    name: "blob-ops-set-blob-metadata-412-reported-200",
    description: "Set Blob Metadata reports 200 for a stale If-Match (the write is not applied)",
    kills: [`${P}set-blob-metadata/conditional`],
    onResponse(req, res) {
      if (isOp(req, "set-blob-metadata") && res.status === 412) toSuccess(res, 200);
    },
  },
  {
    name: "blob-ops-set-blob-properties-etag-replayed",
    description: "Set Blob Properties answers the ETag the blob had before the write",
    kills: [`${P}set-blob-properties/etag`],
    onResponse(req, res, state) {
      const key = `etag:${blobKey(req)}`;
      const before = state.get(key) as string | undefined;
      trackEtag(req, res, state);
      if (isOp(req, "set-blob-properties") && ok(res) && before) res.headers["etag"] = before;
    },
  },
  {
    name: "blob-ops-get-blob-etag-frozen",
    description: "Get Blob keeps answering the ETag it first reported for a blob, whatever changed since",
    kills: [`${P}get-blob/etag`],
    onResponse(req, res, state) {
      if (!isOp(req, "get-blob") || !ok(res) || !res.headers["etag"]) return;
      const key = `first:${blobKey(req)}`;
      if (!state.has(key)) state.set(key, res.headers["etag"]);
      res.headers["etag"] = state.get(key) as string;
    },
  },
  // Conditional = no: the header evaluated.
  {
    name: "blob-ops-put-block-evaluates-if-none-match",
    description: "Put Block evaluates If-None-Match: a matching one is refused with 412",
    kills: [`${P}put-block/conditional`],
    onRequest(req) {
      if (isOp(req, "put-block") && req.headers["if-none-match"]) return errorResponse(req, 412, "ConditionNotMet");
    },
  },
  {
    name: "blob-ops-get-block-list-evaluates-if-match",
    description: "Get Block List evaluates If-Match: a stale one is refused with 412",
    kills: [`${P}get-block-list/conditional`],
    onRequest(req) {
      if (isOp(req, "get-block-list") && req.headers["if-match"]) return errorResponse(req, 412, "ConditionNotMet");
    },
  },
  // Abort Copy Blob: needs a pending copy, which the proxy simulates.
  pendingCopy(
    "blob-ops-abort-copy-blob-adds-etag",
    "Abort Copy Blob (of a copy the proxy keeps pending) answers with an ETag",
    [`${P}abort-copy-blob/etag`],
    (req) => abortAnswer(req, { etag: FAKE_ETAG }),
  ),
  pendingCopy(
    "blob-ops-abort-copy-blob-evaluates-if-match",
    "Abort Copy Blob (of a copy the proxy keeps pending) evaluates If-Match: 412 for a stale one",
    [`${P}abort-copy-blob/conditional`],
    (req) => (req.headers["if-match"] ? errorResponse(req, 412, "ConditionNotMet") : abortAnswer(req)),
  ),
  // Lease operations leave the ETag (and Last-Modified) alone.
  {
    name: "blob-ops-lease-bumps-etag",
    description: "Every lease operation gives the blob a new ETag (reads report it changed)",
    kills: [`${P}lease-blob/etag-unchanged`],
    onResponse(req, res, state) {
      const key = `leases:${blobKey(req)}`;
      if (isOp(req, "lease-blob") && ok(res)) state.set(key, ((state.get(key) as number) ?? 0) + 1);
      const n = state.get(key) as number | undefined;
      if (n && ok(res) && res.headers["etag"] && isOp(req, "get-blob", "get-blob-properties", "lease-blob")) {
        res.headers["etag"] = `"0x8DC0FFEE${String(n).padStart(7, "0")}"`;
      }
    },
  },
  {
    name: "blob-ops-lease-touches-last-modified",
    description: "Every lease operation moves the blob's Last-Modified forward",
    kills: [`${P}lease-blob/last-modified-unchanged`],
    onResponse(req, res, state) {
      const key = `leases:${blobKey(req)}`;
      if (isOp(req, "lease-blob") && ok(res)) state.set(key, ((state.get(key) as number) ?? 0) + 1);
      const n = state.get(key) as number | undefined;
      if (n && ok(res) && res.headers["last-modified"] && isOp(req, "get-blob-properties")) {
        res.headers["last-modified"] = new Date(Date.parse(res.headers["last-modified"]) + n * 1000).toUTCString();
      }
    },
  },
  // rest details
  ignoresHeader("put-blob", "if-none-match", [`${P}put-blob/if-none-match-star`]),
  ignoresHeader("put-block-list", "if-none-match", [`${P}put-block-list/if-none-match-star`]),
  ignoresHeader("copy-blob", "if-none-match", [`${P}copy-blob/if-none-match-star`]),
  {
    name: "blob-ops-put-blob-if-match-creates",
    description: "Put Blob with If-Match (an ETag) on a missing blob creates it",
    kills: [`${P}put-blob/if-match-missing-blob`],
    onRequest(req) {
      if (isOp(req, "put-blob") && req.headers["if-match"]) delete req.headers["if-match"];
    },
  },
  {
    name: "blob-ops-put-block-bumps-etag",
    description: "Put Block changes the blob's ETag (reads after it report a new one)",
    kills: [`${P}put-block/leaves-etag`],
    onResponse(req, res, state) {
      const key = `blocks:${blobKey(req)}`;
      if (isOp(req, "put-block") && ok(res)) state.set(key, ((state.get(key) as number) ?? 0) + 1);
      const n = state.get(key) as number | undefined;
      if (n && ok(res) && res.headers["etag"] && isOp(req, "get-blob", "get-blob-properties")) res.headers["etag"] = `"0x8DC0FFEE${String(n).padStart(7, "0")}"`;
    },
  },
];
