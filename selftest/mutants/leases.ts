// Mutants for section L, leases (suites/blob/lease*.rows.ts,
// suites/blob/container-lease.rows.ts): each one a documented way a target
// could get leases wrong, named with the rows that must catch it.
import { blobOp } from "./blob-kit.ts";
import { query, segments, toSuccess, type Mutant, type MutantState, type ProxyRequest, type ProxyResponse } from "./types.ts";

const isContainer = (req: ProxyRequest) =>
  req.service === "blob" && segments(req).length === 1 && query(req).get("restype") === "container";
const isLease = (req: ProxyRequest) => query(req).get("comp") === "lease" && req.method === "PUT";
const action = (req: ProxyRequest) => (req.headers["x-ms-lease-action"] ?? "").toLowerCase();
const pathOf = (req: ProxyRequest) => segments(req).join("/");
const ok = (res: ProxyResponse) => res.status >= 200 && res.status < 300;
const code = (res: ProxyResponse) => res.headers["x-ms-error-code"] ?? /<Code>([^<]+)<\/Code>/.exec(res.body.toString("utf8"))?.[1];

function errorResponse(req: ProxyRequest, status: number, c: string): ProxyResponse {
  const body = req.method === "HEAD" ? "" : `<?xml version="1.0" encoding="utf-8"?><Error><Code>${c}</Code><Message>${c}</Message></Error>`;
  return {
    status,
    headers: { "content-type": "application/xml", "x-ms-error-code": c, "x-ms-version": req.headers["x-ms-version"] ?? "" },
    body: Buffer.from(body),
  };
}

function fakeSuccess(req: ProxyRequest, status: number): ProxyResponse {
  return { status, headers: { "x-ms-version": req.headers["x-ms-version"] ?? "", date: new Date().toUTCString() }, body: Buffer.alloc(0) };
}

function replaceCode(res: ProxyResponse, from: string, to: string): void {
  if (code(res) !== from) return;
  res.headers["x-ms-error-code"] = to;
  res.body = Buffer.from(res.body.toString("utf8").split(from).join(to));
}

/** Tracks which blobs/containers hold a lease acquired through the proxy (approximate, enough for a mutant). */
function trackLeases(req: ProxyRequest, res: ProxyResponse, state: MutantState, onlyFinite = false): void {
  if (!isLease(req) || !ok(res)) return;
  const key = `leased:${pathOf(req)}`;
  const a = action(req);
  const duration = Number(req.headers["x-ms-lease-duration"] ?? "-1");
  if (a === "acquire" && (!onlyFinite || duration !== -1)) state.set(key, true);
  else if (a === "acquire" || a === "release" || a === "break") state.delete(key);
}

export const MUTANTS: Mutant[] = [
  // blob/lease/write-without-id (the lease-ops cells generate theirs: lease-ops-cells.ts).
  {
    name: "leases-put-blob-without-id-accepted",
    description: "Put Blob without the lease ID on a leased blob is answered as a success (201), not 412 LeaseIdMissing",
    kills: ["blob/lease/write-without-id"],
    onResponse(req, res) {
      if (blobOp(req) === "put-blob" && res.status === 412 && code(res) === "LeaseIdMissing") toSuccess(res, 201);
    },
  },
  {
    name: "leases-wrong-id-code-replaced",
    description: "A blob operation with a wrong lease ID is refused with LeaseIdMissing instead of LeaseIdMismatchWithBlobOperation",
    kills: ["blob/lease-ops/put-blob/wrong-id", "blob/lease-ops/get-blob/wrong-id", "blob/lease-ops/delete-blob/wrong-id"],
    onResponse(req, res) {
      replaceCode(res, "LeaseIdMismatchWithBlobOperation", "LeaseIdMissing");
    },
  },
  {
    name: "leases-read-needs-id",
    description: "Get Blob on a leased blob without the lease ID is refused (412 LeaseIdMissing): reads are not shared",
    kills: ["blob/lease/read-without-id", "blob/lease-ops/get-blob/without-id"],
    onResponse(req, res) {
      if (blobOp(req) === "get-blob" && ok(res) && !req.headers["x-ms-lease-id"] && res.headers["x-ms-lease-state"] === "leased") {
        Object.assign(res, errorResponse(req, 412, "LeaseIdMissing"));
      }
    },
  },
  {
    name: "leases-expired-id-honoured",
    description: "A write carrying the ID of a lease that has expired is accepted (answered as success) instead of 412",
    kills: ["blob/lease/write-with-expired-id"],
    onResponse(req, res) {
      if (blobOp(req) === "put-blob" && req.headers["x-ms-lease-id"] && res.status === 412) toSuccess(res, 201);
    },
  },
  {
    name: "leases-right-id-refused",
    description: "Put Blob carrying the holder's own lease ID is refused (412 LeaseIdMismatchWithBlobOperation)",
    kills: ["blob/lease/write-with-id", "blob/lease-ops/put-blob/with-id"],
    onRequest(req) {
      if (blobOp(req) === "put-blob" && req.headers["x-ms-lease-id"]) return errorResponse(req, 412, "LeaseIdMismatchWithBlobOperation");
    },
  },
  // blob/lease/*
  {
    name: "leases-acquire-conflict-granted",
    description: "Acquiring a lease held under another ID answers 201 instead of 409 LeaseAlreadyPresent",
    kills: ["blob/lease/acquire-when-leased", "blob/lease/exclusive-race", "blob/container-lease/acquire-when-leased"],
    onResponse(req, res) {
      if (isLease(req) && action(req) === "acquire" && res.status === 409) {
        toSuccess(res, 201);
        if (req.headers["x-ms-proposed-lease-id"]) res.headers["x-ms-lease-id"] = req.headers["x-ms-proposed-lease-id"];
      }
    },
  },
  {
    name: "leases-duration-made-infinite",
    description: "Every finite lease (15–60 s) is granted as an infinite one",
    kills: ["blob/lease/duration-range", "blob/lease/expiry-frees", "blob/container-lease/duration-range"],
    onRequest(req) {
      if (isLease(req) && action(req) === "acquire" && req.headers["x-ms-lease-duration"] !== "-1")
        req.headers["x-ms-lease-duration"] = "-1";
    },
  },
  {
    name: "leases-duration-unchecked",
    description: "Lease durations outside 15–60 s are accepted (14 and 61 become 15 and 60 instead of 400)",
    kills: ["blob/lease/duration-range", "blob/container-lease/duration-range"],
    onRequest(req) {
      if (!isLease(req) || action(req) !== "acquire") return;
      const d = req.headers["x-ms-lease-duration"];
      if (d === "14") req.headers["x-ms-lease-duration"] = "15";
      if (d === "61") req.headers["x-ms-lease-duration"] = "60";
    },
  },
  {
    name: "leases-kept-after-expiry",
    description:
      "A finite lease never lapses for writers: once acquired, writes without the ID keep being refused (412) until release or break",
    kills: ["blob/lease/expiry-frees", "blob/lease/state/writes-on-expired"],
    onRequest(req, state) {
      const op = blobOp(req);
      if (!op || op === "lease-blob" || req.method === "GET" || req.method === "HEAD") return;
      if (state.has(`leased:${pathOf(req)}`) && !req.headers["x-ms-lease-id"]) return errorResponse(req, 412, "LeaseIdMissing");
    },
    onResponse(req, res, state) {
      trackLeases(req, res, state, true);
    },
  },
  {
    name: "leases-renew-ignored",
    description: "Renew answers 200 but does not extend the lease (blobs and containers)",
    kills: ["blob/lease/renew-extends", "blob/container-lease/renew-extends"],
    onRequest(req) {
      if (isLease(req) && action(req) === "renew") return fakeSuccess(req, 200);
    },
  },
  {
    name: "leases-release-ignored",
    description: "Release answers 200 but leaves the lease in place (blobs and containers)",
    kills: ["blob/lease/release-frees", "blob/lease/state/release/leased", "blob/container-lease/release-frees"],
    onRequest(req) {
      if (isLease(req) && action(req) === "release") return fakeSuccess(req, 200);
    },
  },
  {
    name: "leases-race-two-winners",
    description: "Under concurrent acquires, the first conflicting acquire on a blob is granted too (two holders)",
    kills: ["blob/lease/exclusive-race"],
    onResponse(req, res, state) {
      if (!isLease(req) || action(req) !== "acquire" || res.status !== 409 || segments(req).length < 2) return;
      const key = `second-winner:${pathOf(req)}`;
      if (state.has(key)) return;
      state.set(key, true);
      toSuccess(res, 201);
    },
  },
  // blob/lease/state/*
  {
    name: "leases-break-acts-as-release",
    description: "Break frees the lease at once, as release would: the lease reads available right after any break",
    kills: ["blob/lease/state/break-0/leased", "blob/lease/state/break-period/leased"],
    onRequest(req) {
      if (isLease(req) && action(req) === "break") req.headers["x-ms-lease-break-period"] = "0";
    },
    onResponse(req, res, state) {
      const key = `released:${pathOf(req)}`;
      if (isLease(req) && ok(res)) {
        if (action(req) === "break") state.set(key, true);
        else state.delete(key);
        return;
      }
      if (state.has(key) && res.headers["x-ms-lease-state"]) {
        res.headers["x-ms-lease-state"] = "available";
        res.headers["x-ms-lease-status"] = "unlocked";
      }
    },
  },
  {
    name: "leases-break-period-ignored",
    description: "The break period is ignored: every break takes effect at once (period 0)",
    kills: ["blob/lease/state/break-period/leased"],
    onRequest(req) {
      if (isLease(req) && action(req) === "break" && req.headers["x-ms-lease-break-period"]) req.headers["x-ms-lease-break-period"] = "0";
    },
  },
  {
    name: "leases-breaking-acquirable",
    description: "The holder may re-acquire a lease that is breaking (201 instead of 409 LeaseIsBreakingAndCannotBeAcquired)",
    kills: ["blob/lease/state/acquire-same/breaking"],
    onResponse(req, res) {
      if (isLease(req) && code(res) === "LeaseIsBreakingAndCannotBeAcquired") toSuccess(res, 201);
    },
  },
  {
    name: "leases-broken-renewable",
    description: "A broken or breaking lease can be renewed (200 instead of 409 LeaseIsBrokenAndCannotBeRenewed)",
    kills: ["blob/lease/state/renew/broken", "blob/lease/state/renew/breaking"],
    onResponse(req, res) {
      if (isLease(req) && code(res) === "LeaseIsBrokenAndCannotBeRenewed") toSuccess(res, 200);
    },
  },
  {
    name: "leases-breaking-changeable",
    description: "A breaking lease can be changed (200 instead of 409 LeaseIsBreakingAndCannotBeChanged)",
    kills: ["blob/lease/state/change/breaking"],
    onResponse(req, res) {
      if (isLease(req) && code(res) === "LeaseIsBreakingAndCannotBeChanged") toSuccess(res, 200);
    },
  },
  {
    name: "leases-other-id-releases",
    description: "Release with another ID succeeds (200 instead of 409) and frees the lease",
    kills: ["blob/lease/state/release-other/leased"],
    onRequest(req) {
      // Forwarded as a break with period 0: the lease is freed for others, whoever asked.
      if (isLease(req) && action(req) === "release" && segments(req).length >= 2) {
        req.headers["x-ms-lease-action"] = "break";
        req.headers["x-ms-lease-break-period"] = "0";
        delete req.headers["x-ms-lease-id"];
      }
    },
    onResponse(req, res) {
      if (isLease(req) && action(req) === "break" && res.status === 202) res.status = 200;
    },
  },
  {
    name: "leases-break-unleased-code",
    description: "Break on an unleased blob answers 412 instead of 409 LeaseNotPresentWithLeaseOperation",
    kills: ["blob/lease/state/break-0/available"],
    onResponse(req, res) {
      if (isLease(req) && action(req) === "break" && code(res) === "LeaseNotPresentWithLeaseOperation") res.status = 412;
    },
  },
  {
    name: "leases-state-reported-leased",
    description: "x-ms-lease-state reads leased (locked) whatever the lease's real state",
    kills: ["blob/lease/state/release/leased", "blob/lease/state/break-0/leased", "blob/lease/state/renew/available"],
    onResponse(req, res) {
      if (res.headers["x-ms-lease-state"]) {
        res.headers["x-ms-lease-state"] = "leased";
        res.headers["x-ms-lease-status"] = "locked";
      }
    },
  },
  {
    name: "leases-breaking-writable",
    description: "A write without the ID on a breaking lease is accepted (answered as success) instead of 412 LeaseIdMissing",
    kills: ["blob/lease/state/writes-on-breaking"],
    onResponse(req, res) {
      if (blobOp(req) === "put-blob" && res.status === 412 && code(res) === "LeaseIdMissing") toSuccess(res, 201);
    },
  },
  {
    name: "leases-broken-still-locks",
    description: "A broken lease still locks the blob: writes without the ID are refused (412 LeaseIdMissing)",
    kills: ["blob/lease/state/writes-on-broken"],
    onRequest(req, state) {
      const op = blobOp(req);
      if (op === "put-blob" && !req.headers["x-ms-lease-id"] && state.has(`broken:${pathOf(req)}`))
        return errorResponse(req, 412, "LeaseIdMissing");
    },
    onResponse(req, res, state) {
      if (isLease(req) && ok(res)) {
        if (action(req) === "break") state.set(`broken:${pathOf(req)}`, true);
        else state.delete(`broken:${pathOf(req)}`);
      }
    },
  },
  // blob/container-lease/*
  {
    name: "leases-container-delete-without-id",
    description: "Delete Container on a leased container without the lease ID answers 202 (the container is not deleted)",
    kills: ["blob/container-lease/delete-requires-id"],
    onRequest(req) {
      if (isContainer(req) && req.method === "DELETE" && !req.headers["x-ms-lease-id"]) return fakeSuccess(req, 202);
    },
  },
  {
    name: "leases-container-shared-ops-need-id",
    description: "Set Container Metadata on a leased container needs the lease ID (412 LeaseIdMissing): container writes are not shared",
    kills: ["blob/container-lease/others-shared"],
    onRequest(req, state) {
      if (
        isContainer(req) &&
        req.method === "PUT" &&
        query(req).get("comp") === "metadata" &&
        !req.headers["x-ms-lease-id"] &&
        state.has(`leased:${pathOf(req)}`)
      ) {
        return errorResponse(req, 412, "LeaseIdMissing");
      }
    },
    onResponse(req, res, state) {
      if (isContainer(req)) trackLeases(req, res, state);
    },
  },
  {
    name: "leases-container-wrong-id-code-replaced",
    description:
      "Container operations with a wrong lease ID are refused with LeaseNotPresentWithContainerOperation instead of LeaseIdMismatchWithContainerOperation",
    kills: ["blob/container-lease/ops/"],
    onResponse(req, res) {
      replaceCode(res, "LeaseIdMismatchWithContainerOperation", "LeaseNotPresentWithContainerOperation");
    },
  },
  {
    name: "leases-container-wrong-id-accepted",
    description: "Set Container ACL with a wrong lease ID answers 200 (the ACL is not written)",
    kills: ["blob/container-lease/ops/set-container-acl/wrong-id"],
    onResponse(req, res) {
      if (isContainer(req) && query(req).get("comp") === "acl" && req.method === "PUT" && res.status === 412) toSuccess(res, 200);
    },
  },
  {
    name: "leases-container-right-id-refused",
    description: "Container reads carrying the holder's own lease ID are refused (412 LeaseIdMismatchWithContainerOperation)",
    kills: ["blob/container-lease/ops/get-container-metadata/with-id", "blob/container-lease/ops/get-container-acl/with-id"],
    onRequest(req) {
      if (
        isContainer(req) &&
        req.method === "GET" &&
        query(req).get("comp") &&
        query(req).get("comp") !== "list" &&
        req.headers["x-ms-lease-id"]
      ) {
        return errorResponse(req, 412, "LeaseIdMismatchWithContainerOperation");
      }
    },
  },
  {
    name: "leases-container-renew-any-id",
    description: "Lease Container renew with another ID answers 200 instead of 409",
    kills: ["blob/container-lease/ops/lease-container/wrong-id"],
    onResponse(req, res) {
      if (isContainer(req) && isLease(req) && action(req) === "renew" && res.status === 409) toSuccess(res, 200);
    },
  },
  {
    name: "leases-etag-changed-by-lease-action",
    description: "Every lease action changes the resource's ETag (as a write would)",
    kills: ["blob/container-lease/etag-unchanged", "blob/blob-ops/lease-blob/etag-unchanged"],
    onResponse(req, res, state) {
      const key = `lease-actions:${pathOf(req)}`;
      if (isLease(req) && ok(res)) state.set(key, ((state.get(key) as number | undefined) ?? 0) + 1);
      const n = state.get(key) as number | undefined;
      if (n && res.headers["etag"]) res.headers["etag"] = `"0x8DCAFE${String(n).padStart(10, "0")}"`;
    },
  },
];
