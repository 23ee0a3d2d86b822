// Mutants for G General behaviour on blobs (suites/general/consistency.rows.ts,
// optimistic.rows.ts): a stale read served after a write, an implicit
// condition on unconditional writes, a swallowed 412, and a race with two winners.
import { blobKey, blobOp, errorResponse, isOp, ok } from "./blob-kit.ts";
import { toSuccess, type Mutant, type ProxyRequest, type ProxyResponse } from "./types.ts";

const CONDITIONALS = ["if-match", "if-none-match", "if-modified-since", "if-unmodified-since"];
const unconditional = (req: ProxyRequest) => !CONDITIONALS.some((h) => req.headers[h]);
const isRead = (req: ProxyRequest) => isOp(req, "get-blob", "get-blob-properties");
const isWrite = (req: ProxyRequest) => req.method === "PUT" || req.method === "DELETE";

/** Cache key of a read: method, blob and range (the same read asked again). */
const readKey = (req: ProxyRequest) => `read:${req.method} ${blobKey(req)} ${req.headers["x-ms-range"] ?? req.headers["range"] ?? ""}`;

const copy = (res: ProxyResponse): ProxyResponse => ({ status: res.status, headers: { ...res.headers }, body: Buffer.from(res.body) });

export const MUTANTS: Mutant[] = [
  {
    name: "general-stale-read-after-write",
    description:
      "After a write, the next identical read of the blob is answered from a cache holding the previous version (eventual consistency)",
    kills: ["general/strong-consistency"],
    onRequest(req, state) {
      if (!isRead(req) || !unconditional(req)) return;
      const stale = state.get(`stale:${blobKey(req)}`) as Set<string> | undefined;
      const cached = state.get(readKey(req)) as ProxyResponse | undefined;
      if (stale?.has(readKey(req)) && cached) {
        stale.delete(readKey(req));
        return copy(cached);
      }
    },
    onResponse(req, res, state) {
      if (isRead(req) && unconditional(req) && ok(res)) {
        state.set(readKey(req), copy(res));
        const keys = (state.get(`keys:${blobKey(req)}`) as Set<string>) ?? new Set<string>();
        keys.add(readKey(req));
        state.set(`keys:${blobKey(req)}`, keys);
      } else if (blobOp(req) && isWrite(req) && ok(res)) {
        // Every read cached so far for this blob is now served once more, stale.
        state.set(`stale:${blobKey(req)}`, new Set(state.get(`keys:${blobKey(req)}`) as Set<string> | undefined));
      }
    },
  },
  {
    name: "general-implicit-if-match",
    description: "Unconditional Put Blob / Set Blob Metadata are made conditional on the ETag last read from the blob (first writer wins)",
    kills: ["general/last-writer-wins-default"],
    onRequest(req, state) {
      const seen = state.get(`read-etag:${blobKey(req)}`) as string | undefined;
      if (isOp(req, "put-blob", "set-blob-metadata") && unconditional(req) && seen) req.headers["if-match"] = seen;
    },
    onResponse(req, res, state) {
      if (isRead(req) && ok(res) && res.headers["etag"]) state.set(`read-etag:${blobKey(req)}`, res.headers["etag"]);
    },
  },
  {
    name: "general-stale-put-reported-201",
    description: "Put Blob with a stale If-Match is reported as 201 Created (the write is not applied)",
    kills: ["general/optimistic-flow"],
    onResponse(req, res) {
      if (isOp(req, "put-blob") && res.status === 412) toSuccess(res, 201);
    },
  },
  {
    name: "general-stale-put-applied",
    description: "Put Blob with a stale If-Match is applied (If-Match stripped) and answered 201",
    kills: ["general/optimistic-flow"],
    onRequest(req) {
      if (isOp(req, "put-blob")) delete req.headers["if-match"];
    },
  },
  {
    name: "general-race-two-winners",
    description: "Of concurrent Put Blobs carrying the same If-Match, the second is forwarded without it, so two writers succeed",
    kills: ["general/optimistic-race"],
    onRequest(req, state) {
      const im = req.headers["if-match"];
      if (!isOp(req, "put-blob") || !im) return;
      const key = `race:${blobKey(req)}:${im}`;
      const n = ((state.get(key) as number) ?? 0) + 1;
      state.set(key, n);
      if (n === 2) delete req.headers["if-match"];
    },
  },
  {
    name: "general-race-no-winner",
    description: "Put Blob refuses every If-Match with 412, even the current ETag, so a race has no winner",
    kills: ["general/optimistic-race"],
    onRequest(req) {
      if (isOp(req, "put-blob") && req.headers["if-match"]) return errorResponse(req, 412, "ConditionNotMet");
    },
  },
];
