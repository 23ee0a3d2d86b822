// Hand-picked mutants for T2 Blob operations (suites/blob/blob-ops*.rows.ts):
// what the tables' generated mutants (etag-claims.ts, conditional.ts) do not
// state: refusals that are not what they seem, lease actions touching the
// validators, the REST details (If-None-Match: *, If-Match on a missing
// blob, Put Block and the ETag), Copy Blob's destination and source rows.
import { blobKey, blobOp, errorResponse, isOp, ok, type BlobOp } from "./blob-kit.ts";
import { toSuccess, type Mutant, type MutantState, type ProxyRequest, type ProxyResponse } from "./types.ts";

const P = "blob/blob-ops/";

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

export const MUTANTS: Mutant[] = [
  // Copy Blob's destination and source conditions, beyond the generated cells (rest rows).
  ignoresHeader("copy-blob", "if-match", [`${P}copy-blob/conditional`, `${P}copy-blob/destination-conditional`]),
  ignoresHeader("copy-blob", "x-ms-source-if-match", [`${P}copy-blob/conditional`, `${P}copy-blob/source-conditional`], "source-if-match"),
  // Hand-picked: a refusal that is not what it seems.
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
      if (n && ok(res) && res.headers["etag"] && isOp(req, "get-blob", "get-blob-properties"))
        res.headers["etag"] = `"0x8DC0FFEE${String(n).padStart(7, "0")}"`;
    },
  },
];
