// Mutants for the lease rows the first lease mutants left unkilled: the cells of
// the lease-state table (suites/blob/lease-state.spec.ts), the "with the
// lease ID" and shared-read cases of suites/blob/lease-ops.spec.ts and
// suites/blob/container-lease.spec.ts, Abort Copy Blob under a lease (on a
// copy the proxy keeps pending), and the pinned lease rows (a mutant that
// answers as the catalogue does must turn their pin into UNEXPECTED_PASS).
//
// Most mutants need to know a resource's lease as the target sees it: the
// proxy follows it from the lease actions it forwards and the lease state the
// target reports on reads (track()), never from the rows' own code.
import { blobOp, errorResponse, type BlobOp } from "./blob-ops.ts";
import { query, segments, toSuccess, type Mutant, type MutantState, type ProxyRequest, type ProxyResponse } from "./types.ts";

type LeaseState = "available" | "leased" | "breaking" | "broken" | "expired";
/** The lease-state table's columns: the lease states, and an Expired lease whose blob was then written. */
type Column = LeaseState | "expired-modified";

interface Tracked {
  state: LeaseState;
  /** The active lease's ID, as granted by the target. */
  holder?: string;
  /** Acquired with a finite duration. */
  finite?: boolean;
  /** x-ms-lease-duration of the acquire. */
  duration?: string;
  /** The blob was written while the lease read Expired (the lease's ID, A, is kept in holder). */
  writtenAfterExpiry?: boolean;
}

const WRITES: BlobOp[] = ["put-blob", "set-blob-properties", "set-blob-metadata", "put-block", "put-block-list", "put-page"];
const isLease = (req: ProxyRequest) => req.service === "blob" && req.method === "PUT" && query(req).get("comp") === "lease";
const isContainer = (req: ProxyRequest) => req.service === "blob" && segments(req).length === 1 && query(req).get("restype") === "container";
const action = (req: ProxyRequest) => (req.headers["x-ms-lease-action"] ?? "").toLowerCase();
const ok = (res: ProxyResponse) => res.status >= 200 && res.status < 300;
const code = (res: ProxyResponse) => res.headers["x-ms-error-code"] ?? /<Code>([^<]+)<\/Code>/.exec(res.body.toString("utf8"))?.[1];
const keyOf = (req: ProxyRequest) => `lease:${segments(req).join("/")}`;
const sameId = (a?: string, b?: string) => !!a && !!b && a.toLowerCase() === b.toLowerCase();
const locked = (t: Tracked) => t.state === "leased" || t.state === "breaking";

function tracked(req: ProxyRequest, state: MutantState): Tracked {
  return (state.get(keyOf(req)) as Tracked | undefined) ?? { state: "available" };
}

/** Follows the lease of the resource `req` addresses, from the target's own (unmutated) answer. */
function track(req: ProxyRequest, res: ProxyResponse, state: MutantState): void {
  if (req.service !== "blob") return;
  const key = keyOf(req);
  const cur = tracked(req, state);
  if (isLease(req)) {
    if (!ok(res)) return;
    const granted = res.headers["x-ms-lease-id"] ?? req.headers["x-ms-proposed-lease-id"];
    switch (action(req)) {
      case "acquire":
        state.set(key, { state: "leased", holder: granted, finite: (req.headers["x-ms-lease-duration"] ?? "-1") !== "-1", duration: req.headers["x-ms-lease-duration"] });
        break;
      case "renew":
        state.set(key, { ...cur, state: "leased" });
        break;
      case "change":
        state.set(key, { ...cur, holder: granted });
        break;
      case "release":
        state.set(key, { state: "available" });
        break;
      case "break":
        state.set(key, { ...cur, state: Number(res.headers["x-ms-lease-time"] ?? "0") > 0 ? "breaking" : "broken" });
        break;
    }
    return;
  }
  if (ok(res) && cur.state === "expired" && WRITES.includes(blobOp(req)!)) {
    state.set(key, { ...cur, writtenAfterExpiry: true });
    return;
  }
  const reported = res.headers["x-ms-lease-state"];
  if (ok(res) && reported && (req.method === "HEAD" || req.method === "GET")) state.set(key, { ...cur, state: reported as LeaseState });
}


const S = "blob/lease/state/";
/** Lease-state cells: cells("renew", "leased", "expired") → blob/lease/state/renew/leased, …/renew/expired. */
const cells = (act: string, ...states: Column[]) => states.map((s) => `${S}${act}/${s}`);
const ALL: LeaseState[] = ["available", "leased", "breaking", "broken", "expired"];

/**
 * A lease action's outcome inverted: what the target grants is answered 409,
 * what it refuses with 409 is answered as granted (the lease itself is left as
 * the target has it).
 */
function outcomeSwapped(verb: "renew" | "change" | "release", kills: string[]): Mutant {
  return {
    name: `leases-state-${verb}-outcome-inverted`,
    description: `Lease ${verb} has its ID check inverted: a ${verb} the target grants is answered 409 LeaseIdMismatchWithLeaseOperation, one it refuses with 409 is answered 200`,
    kills,
    onResponse(req, res, state) {
      track(req, res, state);
      if (!isLease(req) || action(req) !== verb) return;
      if (res.status === 200) Object.assign(res, errorResponse(req, 409, "LeaseIdMismatchWithLeaseOperation"));
      else if (res.status === 409) {
        const id = req.headers["x-ms-proposed-lease-id"] ?? req.headers["x-ms-lease-id"];
        toSuccess(res, 200, verb === "release" || !id ? {} : { "x-ms-lease-id": id });
      }
    },
  };
}

/**
 * A copy kept pending (Azurite completes copies at once, so Abort Copy Blob
 * could never be tried): Copy Blob answers pending, reads report the copy
 * pending until an Abort Copy Blob, which the proxy answers through `abort`
 * with the lease the target holds on the destination. The same simulation with
 * the catalogue's rules is PENDING_COPY_CONTROL, which the self-test runs to
 * show the simulation alone changes no verdict.
 */
function pendingCopy(name: string, description: string, kills: string[], abort: (req: ProxyRequest, lease: Tracked) => ProxyResponse): Mutant {
  const copyKey = (req: ProxyRequest) => `copy:${segments(req).join("/")}`;
  return {
    name,
    description,
    kills,
    onRequest(req, state) {
      if (blobOp(req) !== "abort-copy-blob" || state.get(copyKey(req)) !== "pending") return;
      const answer = abort(req, tracked(req, state));
      if (ok(answer)) state.set(copyKey(req), "aborted");
      return answer;
    },
    onResponse(req, res, state) {
      track(req, res, state);
      const op = blobOp(req);
      if (op === "copy-blob" && res.status === 202) {
        res.headers["x-ms-copy-status"] = "pending";
        state.set(copyKey(req), "pending");
      } else if ((op === "get-blob" || op === "get-blob-properties") && ok(res) && state.has(copyKey(req))) {
        res.headers["x-ms-copy-status"] = state.get(copyKey(req)) as string;
      }
    },
  };
}

const aborted = (req: ProxyRequest): ProxyResponse => ({
  status: 204,
  headers: { "x-ms-version": req.headers["x-ms-version"] ?? "", date: new Date().toUTCString() },
  body: Buffer.alloc(0),
});

/** Abort Copy Blob as the catalogue has it: the destination's active lease needs its ID; an ID on an unleased blob is refused. */
function abortAsDocumented(req: ProxyRequest, lease: Tracked): ProxyResponse {
  const id = req.headers["x-ms-lease-id"];
  if (locked(lease) && !id) return errorResponse(req, 412, "LeaseIdMissing");
  if (locked(lease) && !sameId(id, lease.holder)) return errorResponse(req, 412, "LeaseIdMismatchWithBlobOperation");
  if (!locked(lease) && id) return errorResponse(req, 412, "LeaseNotPresentWithBlobOperation");
  return aborted(req);
}

const ABORT = "blob/lease-ops/abort-copy-blob/";

/** Not a mutant: the pending-copy simulation with no deviation. Every row it names must PASS through it. */
export const PENDING_COPY_CONTROL: Mutant = pendingCopy(
  "leases-state-pending-copy-control",
  "Control: copies kept pending, Abort Copy Blob answered as documented (204, no ETag, conditions ignored, lease honoured)",
  ["blob/blob-ops/abort-copy-blob/", ABORT],
  abortAsDocumented,
);

const SHARED_READS: BlobOp[] = ["get-blob-properties", "get-blob-metadata", "get-block-list", "get-page-ranges"];
const WITH_ID_OPS = [
  "get-blob",
  "get-blob-properties",
  "set-blob-properties",
  "get-blob-metadata",
  "set-blob-metadata",
  "delete-blob",
  "put-block",
  "put-block-list",
  "get-block-list",
  "put-page",
  "get-page-ranges",
  "snapshot-blob",
  "copy-blob",
];
const CONTAINER_OPS = ["delete-container", "get-container-properties", "get-container-metadata", "set-container-metadata", "get-container-acl", "set-container-acl"];

export const MUTANTS: Mutant[] = [
  // The state read back: every cell checks x-ms-lease-status against the state.
  {
    name: "leases-state-status-unlocked-while-held",
    description: "x-ms-lease-status reads unlocked while the lease is Leased or Breaking (the status is not derived from the state)",
    kills: [
      ...cells("acquire", ...ALL, "expired-modified"),
      ...cells("acquire-same", ...ALL, "expired-modified"),
      ...cells("renew", "leased", "breaking", "expired"),
      ...cells("renew-other", "leased", "breaking"),
      ...cells("change", "leased", "breaking"),
      ...cells("release-other", "leased", "breaking"),
      ...cells("break-period", "leased", "breaking"),
    ],
    onResponse(req, res) {
      const s = res.headers["x-ms-lease-state"];
      if (s === "leased" || s === "breaking") res.headers["x-ms-lease-status"] = "unlocked";
    },
  },
  {
    name: "leases-state-status-locked-while-free",
    description: "x-ms-lease-status reads locked while the lease is Available, Broken or Expired (a lease that ever existed keeps the blob locked)",
    kills: [
      ...cells("renew", "available", "broken", "expired-modified"),
      ...cells("renew-other", "available", "broken", "expired-modified"),
      ...cells("change", "available", "broken", "expired", "expired-modified"),
      ...cells("release", ...ALL),
      ...cells("release-other", "available", "broken", "expired", "expired-modified"),
      ...cells("break-0", ...ALL),
      ...cells("break-period", "available", "broken", "expired"),
    ],
    onResponse(req, res) {
      const s = res.headers["x-ms-lease-state"];
      if (s === "available" || s === "broken" || s === "expired") res.headers["x-ms-lease-status"] = "locked";
    },
  },
  // The action's answer.
  // Expired cells (a 15 s wait each run) are left to the status mutants above
  // and to leases-state-ended-lease-still-present, to keep the self-test short.
  outcomeSwapped("renew", [
    ...cells("renew", "available", "leased", "breaking", "broken"),
    ...cells("renew-other", "available", "leased", "breaking", "broken"),
    "blob/lease-ops/lease-blob/with-id",
    "blob/container-lease/ops/lease-container/with-id",
  ]),
  outcomeSwapped("change", cells("change", "available", "leased", "breaking", "broken")),
  outcomeSwapped("release", [...cells("release", "available", "leased", "breaking", "broken"), ...cells("release-other", "available", "leased", "breaking", "broken")]),
  {
    name: "leases-state-acquire-conflict-412",
    description: "An acquire conflicting with a held lease is refused with 412 instead of 409 LeaseAlreadyPresent",
    kills: cells("acquire", "leased", "breaking"),
    onResponse(req, res) {
      if (isLease(req) && action(req) === "acquire" && res.status === 409) res.status = 412;
    },
  },
  {
    name: "leases-state-ended-lease-still-present",
    description: "A Broken or Expired lease still counts as present: acquire (any ID) is refused 409 LeaseAlreadyPresent until release",
    kills: [...cells("acquire", "broken", "expired"), ...cells("acquire-same", "broken", "expired")],
    onRequest(req, state) {
      const s = tracked(req, state).state;
      if (isLease(req) && action(req) === "acquire" && (s === "broken" || s === "expired")) return errorResponse(req, 409, "LeaseAlreadyPresent");
    },
    onResponse: track,
  },
  {
    name: "leases-state-change-keeps-holder",
    description: "Change answers 200 with the proposed ID but the lease stays with the old ID (the change is applied as a renew)",
    kills: cells("change", "leased", "breaking"),
    onRequest(req, state) {
      if (!isLease(req) || action(req) !== "change" || !req.headers["x-ms-proposed-lease-id"]) return;
      state.set(`proposed:${keyOf(req)}`, req.headers["x-ms-proposed-lease-id"]);
      req.headers["x-ms-lease-action"] = "renew";
      delete req.headers["x-ms-proposed-lease-id"];
    },
    onResponse(req, res, state) {
      track(req, res, state);
      const proposed = state.get(`proposed:${keyOf(req)}`) as string | undefined;
      state.delete(`proposed:${keyOf(req)}`);
      if (proposed && res.status === 200) res.headers["x-ms-lease-id"] = proposed;
    },
  },
  {
    name: "leases-state-break-needs-active-lease",
    description: "Break on a lease that is Breaking, Broken or Expired is refused 409 LeaseNotPresentWithLeaseOperation (only a Leased lease can be broken)",
    kills: [...cells("break-0", "breaking", "broken"), ...cells("break-period", "breaking", "broken")],
    onRequest(req, state) {
      const s = tracked(req, state).state;
      if (isLease(req) && action(req) === "break" && (s === "breaking" || s === "broken" || s === "expired")) return errorResponse(req, 409, "LeaseNotPresentWithLeaseOperation");
    },
    onResponse: track,
  },
  {
    name: "leases-state-break-unleased-accepted",
    description: "Break on a blob with no lease answers 202 (a no-op, x-ms-lease-time 0) instead of 409 LeaseNotPresentWithLeaseOperation",
    kills: cells("break-period", "available"),
    onResponse(req, res) {
      if (isLease(req) && action(req) === "break" && res.status === 409 && code(res) === "LeaseNotPresentWithLeaseOperation") toSuccess(res, 202, { "x-ms-lease-time": "0" });
    },
  },
  // The holder's ID on the other operations.
  {
    name: "leases-state-holder-id-refused",
    description:
      "The holder's own lease ID never matches: every operation but Lease Blob / Lease Container carrying it on a held lease is refused 412 LeaseIdMismatchWithBlobOperation / LeaseIdMismatchWithContainerOperation",
    kills: [
      ...WITH_ID_OPS.map((op) => `blob/lease-ops/${op}/with-id`),
      "blob/lease-ops/copy-blob/finite-lease",
      ...CONTAINER_OPS.map((op) => `blob/container-lease/ops/${op}/with-id`),
      ...cells("acquire", "available"),
      ...cells("acquire-same", "available", "leased"),
    ],
    onRequest(req, state) {
      if (isLease(req) || req.service !== "blob") return;
      const lease = tracked(req, state);
      if (locked(lease) && sameId(req.headers["x-ms-lease-id"], lease.holder)) {
        return errorResponse(req, 412, isContainer(req) ? "LeaseIdMismatchWithContainerOperation" : "LeaseIdMismatchWithBlobOperation");
      }
    },
    onResponse: track,
  },
  {
    name: "leases-state-shared-reads-need-id",
    description: "Reads of a leased blob other than Get Blob (Get Blob Properties, Get Blob Metadata, Get Block List, Get Page Ranges) without the lease ID are refused 412 LeaseIdMissing",
    kills: SHARED_READS.map((op) => `blob/lease-ops/${op}/without-id`),
    onRequest(req, state) {
      const op = blobOp(req);
      if (op && SHARED_READS.includes(op) && !req.headers["x-ms-lease-id"] && locked(tracked(req, state))) return errorResponse(req, 412, "LeaseIdMissing");
    },
    onResponse: track,
  },
  {
    name: "leases-state-snapshot-needs-id",
    description: "Snapshot Blob of a leased blob without the lease ID is refused 412 LeaseIdMissing (the ID is optional)",
    kills: ["blob/lease-ops/snapshot-blob/without-id"],
    onRequest(req, state) {
      if (blobOp(req) === "snapshot-blob" && !req.headers["x-ms-lease-id"] && locked(tracked(req, state))) return errorResponse(req, 412, "LeaseIdMissing");
    },
    onResponse: track,
  },
  // Abort Copy Blob under a lease, on a copy the proxy keeps pending.
  pendingCopy(
    "leases-state-abort-copy-lease-ignored",
    "Abort Copy Blob (of a copy the proxy keeps pending) ignores the destination's lease: aborted (204) without the ID, with a wrong ID, or with an ID on an unleased blob",
    [`${ABORT}without-id`, `${ABORT}wrong-id`, `${ABORT}unleased-with-id`],
    (req) => aborted(req),
  ),
  pendingCopy(
    "leases-state-abort-copy-holder-refused",
    "Abort Copy Blob (of a copy the proxy keeps pending) refuses the holder's own lease ID (412 LeaseIdMismatchWithBlobOperation)",
    [`${ABORT}with-id`],
    (req, lease) => (locked(lease) && req.headers["x-ms-lease-id"] ? errorResponse(req, 412, "LeaseIdMismatchWithBlobOperation") : abortAsDocumented(req, lease)),
  ),
  // An Expired lease whose blob was then written (column expired-modified).
  {
    name: "leases-state-renew-after-write",
    description:
      "A lease that expired and whose blob was then written without a lease ID can still be renewed by its holder: 200, leased again for its old duration (Azurite#2352, fixed in 3.31.0; the proxy sends the renew on as an acquire of A)",
    kills: cells("renew", "expired-modified"),
    onRequest(req, state) {
      const lease = tracked(req, state);
      if (!isLease(req) || action(req) !== "renew" || !lease.writtenAfterExpiry || !sameId(req.headers["x-ms-lease-id"], lease.holder)) return;
      state.set(`renewed:${keyOf(req)}`, true);
      req.headers["x-ms-lease-action"] = "acquire";
      req.headers["x-ms-proposed-lease-id"] = req.headers["x-ms-lease-id"];
      req.headers["x-ms-lease-duration"] = lease.duration ?? "-1";
      delete req.headers["x-ms-lease-id"];
    },
    onResponse(req, res, state) {
      track(req, res, state);
      if (state.get(`renewed:${keyOf(req)}`) !== true) return;
      state.delete(`renewed:${keyOf(req)}`);
      if (res.status === 201) res.status = 200;
    },
  },
  {
    name: "leases-state-renew-after-write-code",
    description:
      "Renewing a lease that expired before its blob was written is refused with the wrong code: 409 LeaseNotPresentWithLeaseOperation instead of LeaseIdMismatchWithLeaseOperation",
    kills: cells("renew", "expired-modified"),
    onResponse(req, res, state) {
      const written = tracked(req, state).writtenAfterExpiry;
      track(req, res, state);
      if (isLease(req) && action(req) === "renew" && written && res.status === 409) {
        Object.assign(res, errorResponse(req, 409, "LeaseNotPresentWithLeaseOperation"));
      }
    },
  },
  {
    name: "leases-state-written-lease-still-present",
    description:
      "A lease that expired and whose blob was then written still counts as present: acquire (another ID or the old one) is refused 409 LeaseAlreadyPresent",
    kills: [...cells("acquire", "expired-modified"), ...cells("acquire-same", "expired-modified")],
    onRequest(req, state) {
      if (isLease(req) && action(req) === "acquire" && tracked(req, state).writtenAfterExpiry) return errorResponse(req, 409, "LeaseAlreadyPresent");
    },
    onResponse: track,
  },
  // Pinned rows: the target answering as the catalogue does must not pass unnoticed.
  {
    name: "leases-state-proposed-id-validated",
    description: "Azurite's pinned deviation absent: an x-ms-proposed-lease-id that is not a GUID is refused 400 InvalidHeaderValue (the pin must turn UNEXPECTED_PASS)",
    kills: [`${S}proposed-id-not-guid`],
    onRequest(req) {
      const p = req.headers["x-ms-proposed-lease-id"];
      if (isLease(req) && p !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(p)) return errorResponse(req, 400, "InvalidHeaderValue");
    },
  },
  {
    name: "leases-state-break-period-range-checked",
    description: "Azurite's pinned deviation absent: x-ms-lease-break-period above 60 is refused 400 InvalidHeaderValue (the pin must turn UNEXPECTED_PASS)",
    kills: [`${S}break-period-61`],
    onRequest(req) {
      if (isLease(req) && action(req) === "break" && Number(req.headers["x-ms-lease-break-period"] ?? "0") > 60) return errorResponse(req, 400, "InvalidHeaderValue");
    },
  },
  {
    name: "leases-state-renew-expired-checks-id",
    description: "Azurite's pinned deviation absent: renewing an Expired lease with another ID is refused 409 LeaseIdMismatchWithLeaseOperation (the pin must turn UNEXPECTED_PASS)",
    kills: cells("renew-other", "expired"),
    onRequest(req, state) {
      const lease = tracked(req, state);
      if (isLease(req) && action(req) === "renew" && lease.state === "expired" && !sameId(req.headers["x-ms-lease-id"], lease.holder)) {
        return errorResponse(req, 409, "LeaseIdMismatchWithLeaseOperation");
      }
    },
    onResponse: track,
  },
  {
    name: "leases-state-finite-lease-copy-refused",
    description: "Azurite's pinned deviation absent: Copy Blob onto a destination held by a finite lease is refused 412 InfiniteLeaseDurationRequired (the pin must turn UNEXPECTED_PASS)",
    kills: ["blob/lease-ops/copy-blob/finite-lease"],
    onRequest(req, state) {
      const lease = tracked(req, state);
      if (blobOp(req) === "copy-blob" && req.headers["x-ms-lease-id"] && locked(lease) && lease.finite) return errorResponse(req, 412, "InfiniteLeaseDurationRequired");
    },
    onResponse: track,
  },
];
