// Mutants for the lease rows the first lease mutants left unkilled: the cells of
// the lease-state table (suites/blob/lease-state.rows.ts), the "with the
// lease ID" and shared-read cases of suites/blob/lease-ops.rows.ts and
// suites/blob/container-lease.rows.ts, Abort Copy Blob under a lease (on a
// copy the proxy keeps pending), and the pinned lease rows (a mutant that
// answers as the catalogue does must turn their pin into UNEXPECTED_PASS).
//
// Most mutants need to know a resource's lease as the target sees it
// (lease-kit.ts, track()).
import { blobOp, errorResponse } from "./blob-kit.ts";
import { action, code, isContainer, isLease, keyOf, locked, sameId, track, tracked, type Column, type LeaseState } from "./lease-kit.ts";
import { toSuccess, type Mutant } from "./types.ts";

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
const CONTAINER_OPS = [
  "delete-container",
  "get-container-properties",
  "get-container-metadata",
  "set-container-metadata",
  "get-container-acl",
  "set-container-acl",
];

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
    description:
      "x-ms-lease-status reads locked while the lease is Available, Broken or Expired (a lease that ever existed keeps the blob locked)",
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
  outcomeSwapped("release", [
    ...cells("release", "available", "leased", "breaking", "broken"),
    ...cells("release-other", "available", "leased", "breaking", "broken"),
  ]),
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
      if (isLease(req) && action(req) === "acquire" && (s === "broken" || s === "expired"))
        return errorResponse(req, 409, "LeaseAlreadyPresent");
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
    description:
      "Break on a lease that is Breaking, Broken or Expired is refused 409 LeaseNotPresentWithLeaseOperation (only a Leased lease can be broken)",
    kills: [...cells("break-0", "breaking", "broken"), ...cells("break-period", "breaking", "broken")],
    onRequest(req, state) {
      const s = tracked(req, state).state;
      if (isLease(req) && action(req) === "break" && (s === "breaking" || s === "broken" || s === "expired"))
        return errorResponse(req, 409, "LeaseNotPresentWithLeaseOperation");
    },
    onResponse: track,
  },
  {
    name: "leases-state-break-unleased-accepted",
    description: "Break on a blob with no lease answers 202 (a no-op, x-ms-lease-time 0) instead of 409 LeaseNotPresentWithLeaseOperation",
    kills: cells("break-period", "available"),
    onResponse(req, res) {
      if (isLease(req) && action(req) === "break" && res.status === 409 && code(res) === "LeaseNotPresentWithLeaseOperation")
        toSuccess(res, 202, { "x-ms-lease-time": "0" });
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
  // An Expired lease whose blob was then written (column expired-modified).
  {
    name: "leases-state-renew-after-write",
    description:
      "A lease that expired and whose blob was then written without a lease ID can still be renewed by its holder: 200, leased again for its old duration (Azurite#2352, fixed in 3.31.0; the proxy sends the renew on as an acquire of A)",
    kills: cells("renew", "expired-modified"),
    onRequest(req, state) {
      const lease = tracked(req, state);
      if (!isLease(req) || action(req) !== "renew" || !lease.writtenAfterExpiry || !sameId(req.headers["x-ms-lease-id"], lease.holder))
        return;
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
      if (isLease(req) && action(req) === "acquire" && tracked(req, state).writtenAfterExpiry)
        return errorResponse(req, 409, "LeaseAlreadyPresent");
    },
    onResponse: track,
  },
  // Pinned rows: the target answering as the catalogue does must not pass unnoticed.
  {
    name: "leases-state-proposed-id-validated",
    description:
      "Azurite's pinned deviation absent: an x-ms-proposed-lease-id that is not a GUID is refused 400 InvalidHeaderValue (the pin must turn UNEXPECTED_PASS)",
    kills: [`${S}proposed-id-not-guid`],
    onRequest(req) {
      const p = req.headers["x-ms-proposed-lease-id"];
      if (isLease(req) && p !== undefined && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(p))
        return errorResponse(req, 400, "InvalidHeaderValue");
    },
  },
  {
    name: "leases-state-break-period-range-checked",
    description:
      "Azurite's pinned deviation absent: x-ms-lease-break-period above 60 is refused 400 InvalidHeaderValue (the pin must turn UNEXPECTED_PASS)",
    kills: [`${S}break-period-61`, "blob/container-lease/state/break-period-61"],
    onRequest(req) {
      if (isLease(req) && action(req) === "break" && Number(req.headers["x-ms-lease-break-period"] ?? "0") > 60)
        return errorResponse(req, 400, "InvalidHeaderValue");
    },
  },
  {
    name: "leases-state-renew-expired-checks-id",
    description:
      "Azurite's pinned deviation absent: renewing an Expired lease with another ID is refused 409 LeaseIdMismatchWithLeaseOperation (the pin must turn UNEXPECTED_PASS)",
    kills: [...cells("renew-other", "expired"), "blob/container-lease/state/renew-other/expired"],
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
    description:
      "Azurite's pinned deviation absent: Copy Blob onto a destination held by a finite lease is refused 412 InfiniteLeaseDurationRequired (the pin must turn UNEXPECTED_PASS)",
    kills: ["blob/lease-ops/copy-blob/finite-lease"],
    onRequest(req, state) {
      const lease = tracked(req, state);
      if (blobOp(req) === "copy-blob" && req.headers["x-ms-lease-id"] && locked(lease) && lease.finite)
        return errorResponse(req, 412, "InfiniteLeaseDurationRequired");
    },
    onResponse: track,
  },
];
