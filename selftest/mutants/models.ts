// Stateful mutants of the model rows (catalogue M): each deviates only after a
// particular sequence or under concurrency, the way real emulators and stores
// have (lost updates of a check-then-act race, a cache serving stale reads,
// version names reused, leases surviving or vanishing when they must not).
// Judged by kill rate over 10 seeds (models.test.ts).
import { segments, toSuccess, type Mutant, type MutantState, type ProxyRequest, type ProxyResponse } from "./types.ts";
import { endsAtHalf } from "./windows.ts";

const RATE = { seeds: 10, atLeast: 9 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const key = (req: ProxyRequest) => `${req.service}:${segments(req).join("/")}`;
/** How many reads model-blob-stale-read's cache serves an answer to. */
const STALE_READS = 3;
const ok = (res: ProxyResponse) => res.status >= 200 && res.status < 300;

/**
 * Check-then-act without a lock: a conditional write evaluates its If-Match,
 * waits a moment, and is applied even if another conditional write to the same
 * resource was applied meanwhile (both succeed).
 */
function lostUpdate(name: string, description: string, kills: string, isWrite: (req: ProxyRequest) => boolean): Mutant {
  const inFlight = (state: MutantState, k: string) => (state.get(`flight:${k}`) as number | undefined) ?? 0;
  const marked = new WeakSet<ProxyRequest>();
  return {
    name,
    description,
    kills: [kills],
    killRate: RATE,
    async onRequest(req, state) {
      if (!isWrite(req) || req.headers["if-match"] === undefined) return;
      const k = key(req);
      state.set(`flight:${k}`, inFlight(state, k) + 1);
      marked.add(req);
      await sleep(25);
      // Another conditional write is in flight on the same resource: this one no longer checks.
      if (inFlight(state, k) > 1) delete req.headers["if-match"];
    },
    onResponse(req, _res, state) {
      if (marked.has(req)) state.set(`flight:${key(req)}`, inFlight(state, key(req)) - 1);
    },
  };
}

const isBlobPut = (req: ProxyRequest) =>
  req.service === "blob" && req.method === "PUT" && segments(req).length === 2 && !req.url.includes("comp=");
const isEntityPut = (req: ProxyRequest) => req.service === "table" && req.method === "PUT" && /\(PartitionKey=/.test(req.url);

export const MUTANTS: Mutant[] = [
  lostUpdate(
    "model-blob-lost-update",
    "Put Blob with If-Match checks the ETag, then applies the write after a moment even if a concurrent conditional write landed meanwhile",
    "general/linearizable/blob",
    isBlobPut,
  ),
  lostUpdate(
    "model-entity-lost-update",
    "Update Entity with If-Match checks the ETag, then applies the update after a moment even if a concurrent update landed meanwhile",
    "general/linearizable/table-entity",
    isEntityPut,
  ),
  {
    name: "model-blob-stale-read",
    // A cache by time (200 ms, then 1 s) let slow answers on a loaded machine outlast it: killed in 6 and 7 of 10
    // seeds at load 16 and more. By count, a stale answer follows a write however slow the machine is.
    description: `A read cache in front of the blob: Get Blob serves the answer it cached to the next ${STALE_READS} reads, even after a write or delete`,
    kills: ["general/linearizable/blob"],
    killRate: RATE,
    onRequest(req, state) {
      if (req.service !== "blob" || req.method !== "GET" || segments(req).length !== 2) return;
      const cached = state.get(`cache:${key(req)}`) as { left: number; res: ProxyResponse } | undefined;
      if (!cached) return;
      if (--cached.left <= 0) state.delete(`cache:${key(req)}`);
      return { ...cached.res, headers: { ...cached.res.headers } };
    },
    onResponse(req, res, state) {
      if (req.service === "blob" && req.method === "GET" && segments(req).length === 2 && !state.has(`cache:${key(req)}`)) {
        state.set(`cache:${key(req)}`, { left: STALE_READS, res: { status: res.status, headers: { ...res.headers }, body: res.body } });
      }
    },
  },
  {
    name: "model-blob-etag-reused",
    description: "A blob created again after a delete gets back the ETag its deleted version had (an ETag names two versions)",
    kills: ["general/linearizable/blob"],
    killRate: RATE,
    onResponse(req, res, state) {
      if (req.service !== "blob" || segments(req).length !== 2) return;
      const k = key(req);
      if (req.method === "DELETE" && ok(res)) state.set(`deleted:${k}`, state.get(`etag:${k}`));
      else if (isBlobPut(req) && ok(res) && res.headers["etag"]) {
        const old = state.get(`deleted:${k}`) as string | undefined;
        state.delete(`deleted:${k}`);
        if (old) {
          state.set(`alias:${k}:${old}`, res.headers["etag"]);
          res.headers["etag"] = old;
        }
        state.set(`etag:${k}`, res.headers["etag"]);
      } else if (req.method === "GET" && ok(res) && res.headers["etag"]) {
        state.set(`etag:${k}`, res.headers["etag"]);
      }
    },
  },
];

// ---- blob/lease/model ----

const isBlobLease = (req: ProxyRequest) =>
  req.service === "blob" && req.method === "PUT" && req.url.includes("comp=lease") && segments(req).length === 2;
const leaseVerb = (req: ProxyRequest) => (req.headers["x-ms-lease-action"] ?? "").toLowerCase();

MUTANTS.push(
  {
    name: "model-lease-write-drops-lease",
    description:
      "Put Blob with the lease ID on a leased blob succeeds but the lease is gone afterwards: reads report it available (Azurite#618, lease reset by an overwrite)",
    kills: ["blob/lease/model"],
    killRate: RATE,
    onResponse(req, res, state) {
      const k = key(req);
      if (isBlobPut(req) && ok(res) && req.headers["x-ms-lease-id"]) state.set(`dropped:${k}`, true);
      if (isBlobLease(req) && ok(res) && leaseVerb(req) === "acquire") state.delete(`dropped:${k}`);
      if ((req.method === "HEAD" || req.method === "GET") && state.get(`dropped:${k}`) && ok(res)) {
        res.headers["x-ms-lease-state"] = "available";
        res.headers["x-ms-lease-status"] = "unlocked";
        delete res.headers["x-ms-lease-duration"];
      }
    },
  },
  {
    name: "model-lease-renew-after-write",
    description:
      "Renew with the last lease's ID succeeds on an expired lease even after the blob was written without a lease ID since (Azurite before 3.31.0, Azurite#2352)",
    kills: ["blob/lease/model"],
    killRate: RATE,
    onResponse(req, res, state) {
      const k = key(req);
      const verb = isBlobLease(req) ? leaseVerb(req) : "";
      if (ok(res) && (verb === "acquire" || verb === "change")) {
        state.set(`holder:${k}`, req.headers["x-ms-proposed-lease-id"]);
        state.delete(`expired:${k}`);
        state.delete(`written:${k}`);
      }
      if ((req.method === "HEAD" || req.method === "GET") && ok(res) && res.headers["x-ms-lease-state"] === "expired")
        state.set(`expired:${k}`, true);
      if (isBlobPut(req) && ok(res) && !req.headers["x-ms-lease-id"] && state.get(`expired:${k}`)) state.set(`written:${k}`, true);
      if (
        verb === "renew" &&
        res.status === 409 &&
        state.get(`written:${k}`) &&
        req.headers["x-ms-lease-id"] === state.get(`holder:${k}`)
      ) {
        toSuccess(res, 200, { "x-ms-lease-id": req.headers["x-ms-lease-id"] });
      }
    },
  },
  {
    name: "model-lease-old-id-after-change",
    description: "After Change Lease the old ID still acts on the lease: renew or release with it is answered 200 instead of 409",
    kills: ["blob/lease/model"],
    killRate: RATE,
    onResponse(req, res, state) {
      if (!isBlobLease(req)) return;
      const k = key(req);
      const verb = leaseVerb(req);
      if (ok(res) && verb === "change") state.set(`old:${k}`, req.headers["x-ms-lease-id"]);
      if (ok(res) && verb === "acquire") state.delete(`old:${k}`);
      if ((verb === "renew" || verb === "release") && res.status === 409 && req.headers["x-ms-lease-id"] === state.get(`old:${k}`)) {
        toSuccess(res, 200, verb === "renew" ? { "x-ms-lease-id": req.headers["x-ms-lease-id"] } : {});
      }
    },
  },
  {
    name: "model-container-lease-metadata-write-drops-lease",
    description:
      "Set Container Metadata on a leased container (shared, no ID needed) succeeds but the lease is gone afterwards: Get Container Properties reports it available",
    kills: ["blob/lease/model"],
    killRate: RATE,
    onResponse(req, res, state) {
      if (req.service !== "blob" || segments(req).length !== 1 || !req.url.includes("restype=container")) return;
      const k = key(req);
      const leaseAction = req.url.includes("comp=lease") ? leaseVerb(req) : "";
      if (req.method === "PUT" && req.url.includes("comp=metadata") && ok(res)) state.set(`dropped:${k}`, true);
      if (leaseAction === "acquire" && ok(res)) state.delete(`dropped:${k}`);
      if (req.method === "GET" && state.get(`dropped:${k}`) && ok(res) && res.headers["x-ms-lease-state"]) {
        res.headers["x-ms-lease-state"] = "available";
        res.headers["x-ms-lease-status"] = "unlocked";
        delete res.headers["x-ms-lease-duration"];
      }
    },
  },
  // Generated from the break-period window claim, judged by the model's rate (its short-break sequences wait to a break's last seconds).
  { ...endsAtHalf("break-period", "model-lease-break-ends-at-half", ["blob/lease/model"]), cell: undefined, killRate: RATE },
);
