// The answers the hand-written rows claim, as data (model/answers.ts,
// fixtures/harness/claims.ts), by row ID: the rows a claim table generates
// state theirs beside their generator. Loaded with the row files
// (loadAllSuites, fixtures/harness/registry.ts), which adds each entry to
// its row's `answers`; the catalogue's lint sets every claim against Azure's
// recorded answers (selftest/unit/azure-answers.test.ts) and fails on an ID
// no row has.
import { answer, claimOn, SUCCESS, type ClaimedAnswer } from "../fixtures/harness/claims.ts";
import { defineClaimedAnswers } from "../fixtures/harness/registry.ts";
import type { LeaseStateOf } from "../model/answers.ts";

const BLOB = "/c/b";
const put = { method: "PUT", path: BLOB, headers: { "x-ms-blob-type": "BlockBlob" } };
const get = { method: "GET", path: BLOB };
const head = { method: "HEAD", path: BLOB };
const copy = { method: "PUT", path: BLOB, headers: { "x-ms-copy-source": "https://a.blob.core.windows.net/c/s" } };
const blockList = { method: "PUT", path: BLOB, query: { comp: "blocklist" } };
const metadata = { method: "PUT", path: BLOB, query: { comp: "metadata" } };
const blobLease = (action: string) => ({ method: "PUT", path: BLOB, query: { comp: "lease" }, headers: { "x-ms-lease-action": action } });
const containerLease = (action: string) => ({
  method: "PUT",
  path: "/c",
  query: { restype: "container", comp: "lease" },
  headers: { "x-ms-lease-action": action },
});
const deleteContainer = { method: "DELETE", path: "/c", query: { restype: "container" } };
const tags = { method: "PUT", path: BLOB, query: { comp: "tags" } };
const tier = { method: "PUT", path: BLOB, query: { comp: "tier" } };
const putPage = { method: "PUT", path: BLOB, query: { comp: "page" }, headers: { "x-ms-page-write": "update" } };
const getMessages = { method: "GET", path: "/q/messages" };
const deleteEntity = { method: "DELETE", path: "/t(PartitionKey='p',RowKey='r')" };
const FILE = "/s/f";
const putRange = { method: "PUT", path: FILE, query: { comp: "range" } };
const fileMetadata = { method: "PUT", path: FILE, query: { comp: "metadata" } };
const fileLease = (action: string) => ({ method: "PUT", path: FILE, query: { comp: "lease" }, headers: { "x-ms-lease-action": action } });
const share = (comp: string) => ({ method: "PUT", path: "/s", query: { restype: "share", comp } });

const fresh = { lease: "available" as const, exists: true };
const unleased: LeaseStateOf[] = ["available", "released"];
const PROPOSED = { "x-ms-proposed-lease-id": ["holder", "other"] };
const notMet = [answer(412, "ConditionNotMet")];

/** The acquire and break ranges of a lease: out of range refused 400, in range granted, on a fresh or a leased resource. */
function ranges(lease: (action: string) => object): ClaimedAnswer[] {
  const acquire = lease("acquire") as never;
  return [
    claimOn("blob", acquire, { params: { "x-ms-lease-duration": "out-of-range" }, also: PROPOSED, lease: unleased }, [answer(400)]),
    claimOn("blob", acquire, { params: { "x-ms-lease-duration": ["in-range", "infinite"] }, also: PROPOSED, lease: unleased }, [
      answer(201),
    ]),
  ];
}

/** Another's acquire, finite or infinite, on a leased resource: 409 LeaseAlreadyPresent. */
function acquireWhenLeased(lease: (action: string) => object): ClaimedAnswer[] {
  const params = { "x-ms-lease-duration": ["in-range", "infinite"] };
  return [
    claimOn("blob", lease("acquire") as never, { params, also: { "x-ms-proposed-lease-id": ["other"] }, lease: "leased" }, [
      answer(409, "LeaseAlreadyPresent"),
    ]),
  ];
}

/** Break with a period out of its range refused 400 wherever a break is allowed, one in range granted 202. */
function breakRange(lease: (action: string) => object): ClaimedAnswer[] {
  const brk = lease("break") as never;
  const where: LeaseStateOf[] = ["leased", "breaking", "broken", "expired"];
  return [
    claimOn("blob", brk, { params: { "x-ms-lease-break-period": "out-of-range" }, lease: where }, [answer(400)]),
    claimOn("blob", brk, { params: { "x-ms-lease-break-period": ["zero", "in-range"] }, lease: where }, [answer(202)]),
  ];
}

export const CLAIMED_ANSWERS: Record<string, ClaimedAnswer[]> = {
  // T2, REST details (catalogue T2: If-None-Match: * over an existing blob, If-Match where no blob exists).
  "blob/blob-ops/put-blob/if-none-match-star": [
    claimOn("blob", put, { params: { "if-none-match": "*" }, ...fresh }, [answer(409, "BlobAlreadyExists")]),
  ],
  "blob/blob-ops/put-block-list/if-none-match-star": [
    claimOn("blob", blockList, { params: { "if-none-match": "*" }, ...fresh }, [answer(409, "BlobAlreadyExists")]),
  ],
  "blob/blob-ops/copy-blob/if-none-match-star": [
    claimOn("blob", copy, { params: { "if-none-match": "*" }, ...fresh }, [answer(409, "BlobAlreadyExists")]),
  ],
  "blob/blob-ops/put-blob/if-match-missing-blob": [claimOn("blob", put, { params: { "if-match": "other" }, exists: false }, notMet)],
  "blob/blob-ops/put-blob/if-match-star-missing-blob": [claimOn("blob", put, { params: { "if-match": "*" }, exists: false }, notMet)],
  "blob/blob-ops/get-blob/if-match-missing-blob": [
    claimOn("blob", get, { params: { "if-match": ["other", "*"] }, exists: false }, [answer(404, "BlobNotFound")]),
  ],
  "blob/blob-ops/get-blob-properties/if-match-missing-blob": [
    claimOn("blob", head, { params: { "if-match": ["other", "*"] }, exists: false }, [answer(404, "BlobNotFound")]),
  ],
  // The rows check the status (catalogue T2, C); the /error-code rows the code.
  "blob/blob-ops/copy-blob/source-conditional": [claimOn("blob", copy, { params: { "x-ms-source-if-match": "other" } }, [answer(412)])],
  "blob/blob-ops/copy-blob/source-conditional/if-none-match": [
    claimOn("blob", copy, { params: { "x-ms-source-if-none-match": "current" } }, [answer(412)]),
  ],
  "blob/blob-ops/copy-blob/source-conditional/error-code": [
    claimOn("blob", copy, { params: { "x-ms-source-if-match": "other" } }, [answer(412, "SourceConditionNotMet")]),
  ],
  "blob/blob-ops/copy-blob/destination-conditional": [claimOn("blob", copy, { params: { "if-match": "other" }, ...fresh }, [answer(412)])],
  "blob/blob-ops/copy-blob/destination-conditional/if-none-match": [
    claimOn("blob", copy, { params: { "if-none-match": "current" }, ...fresh }, [answer(412)]),
  ],
  "blob/blob-ops/copy-blob/destination-conditional/error-code": [
    claimOn("blob", copy, { params: { "if-match": "other" }, ...fresh }, [answer(412, "TargetConditionNotMet")]),
  ],
  // L, blob leases.
  "blob/lease/duration-range": ranges(blobLease),
  "blob/lease/acquire-when-leased": acquireWhenLeased(blobLease),
  "blob/lease/write-without-id": [claimOn("blob", put, { params: {}, lease: ["leased", "breaking"] }, [answer(412, "LeaseIdMissing")])],
  "blob/lease/write-with-id": [
    claimOn("blob", put, { params: { "x-ms-lease-id": "holder" }, lease: ["leased", "breaking"] }, [answer(201)]),
  ],
  "blob/lease/write-with-expired-id": [claimOn("blob", put, { params: { "x-ms-lease-id": "holder" }, lease: "expired" }, [answer(412)])],
  "blob/lease/read-without-id": [claimOn("blob", get, { params: {}, lease: "leased" }, SUCCESS)],
  "blob/lease/renew-extends": [
    claimOn("blob", blobLease("renew"), { params: { "x-ms-lease-id": "holder" }, lease: "leased" }, [answer(200)]),
  ],
  "blob/lease/release-frees": [
    claimOn("blob", blobLease("release"), { params: { "x-ms-lease-id": "holder" }, lease: "leased" }, [answer(200)]),
    claimOn("blob", put, { params: {}, lease: "released" }, [answer(201)]),
  ],
  "blob/lease/state/proposed-id-not-guid": [
    claimOn(
      "blob",
      blobLease("acquire"),
      { params: { "x-ms-proposed-lease-id": "not-guid" }, also: { "x-ms-lease-duration": ["in-range", "infinite"] }, lease: unleased },
      [answer(400)],
    ),
  ],
  "blob/lease/state/writes-on-breaking": [
    claimOn("blob", put, { params: {}, lease: "breaking" }, [answer(412, "LeaseIdMissing")]),
    claimOn("blob", put, { params: { "x-ms-lease-id": "holder" }, lease: "breaking" }, [answer(201)]),
  ],
  "blob/lease/state/writes-on-broken": [claimOn("blob", put, { params: {}, lease: "broken" }, [answer(201)])],
  "blob/lease/state/writes-on-expired": [claimOn("blob", put, { params: {}, lease: "expired" }, [answer(201)])],
  "blob/lease/state/break-period-61": breakRange(blobLease),
  // L, container leases.
  "blob/container-lease/duration-range": ranges(containerLease),
  "blob/container-lease/acquire-when-leased": acquireWhenLeased(containerLease),
  "blob/container-lease/renew-extends": [
    claimOn("blob", containerLease("renew"), { params: { "x-ms-lease-id": "holder" }, lease: "leased" }, [answer(200)]),
  ],
  "blob/container-lease/release-frees": [
    claimOn("blob", containerLease("release"), { params: { "x-ms-lease-id": "holder" }, lease: "leased" }, [answer(200)]),
    claimOn("blob", deleteContainer, { params: {}, lease: "released" }, [answer(202)]),
  ],
  "blob/container-lease/state/break-period-61": breakRange(containerLease),
  // X-N snapshots: a snapshot takes no lease.
  "blob/snapshot/lease-refused": [
    claimOn(
      "blob",
      blobLease("acquire"),
      { params: { "x-ms-lease-duration": ["in-range", "infinite"] }, also: PROPOSED, shape: ["snapshot"] },
      [answer(400)],
    ),
  ],
  // X-T tag predicates beyond the generated family.
  "blob/tags/if-tags/set-blob-tags": [
    claimOn("blob", tags, { params: { "x-ms-if-tags": "false" }, lease: "available" }, notMet),
    claimOn("blob", tags, { params: { "x-ms-if-tags": "true" }, lease: "available" }, [answer(204)]),
  ],
  "blob/tags/if-tags/set-blob-tier": [claimOn("blob", tier, { params: { "x-ms-if-tags": "false" }, lease: "available" }, notMet)],
  "blob/tags/if-tags/invalid": [
    claimOn("blob", metadata, { params: { "x-ms-if-tags": "invalid" } }, [answer(400)]),
    claimOn("blob", get, { params: { "x-ms-if-tags": "invalid" } }, [answer(400)]),
  ],
  "blob/tags/source-if-tags/copy-blob": [claimOn("blob", copy, { params: { "x-ms-source-if-tags": "false" } }, notMet)],
  // X-S: the optimistic flow on sequence numbers.
  "blob/page-sequence/optimistic-flow": [
    claimOn("blob", putPage, { params: { "x-ms-if-sequence-number-eq": "fails" }, lease: "available" }, [
      answer(412, "SequenceNumberConditionNotMet"),
    ]),
  ],
  // G: the article's optimistic flow and race.
  "general/optimistic-flow": [claimOn("blob", put, { params: { "if-match": "other" }, ...fresh }, notMet)],
  "general/optimistic-race": [claimOn("blob", put, { params: { "if-match": "other" }, ...fresh }, notMet)],
  // Q: Get Messages' visibility timeout, 1 s to 7 days.
  "queue/visibility-range": [
    claimOn("queue", getMessages, { params: { visibilitytimeout: ["zero", "out-of-range"] } }, [answer(400)]),
    claimOn("queue", getMessages, { params: { visibilitytimeout: "in-range" } }, [answer(200)]),
  ],
  // TB: Delete Entity needs If-Match.
  "table/entity-ops/delete-entity/if-match/absent": [claimOn("table", deleteEntity, { params: {}, exists: true }, [answer(400)])],
  // F, Lease File.
  "file/lease/change": [
    claimOn("file", putRange, { params: { "x-ms-lease-id": "other" }, lease: "leased" }, [answer(412, "LeaseIdMismatchWithFileOperation")]),
  ],
  "file/lease/release": [
    claimOn("file", fileLease("release"), { params: { "x-ms-lease-id": "holder" }, lease: "leased" }, [answer(200)]),
    claimOn("file", putRange, { params: {}, lease: "released" }, [answer(201)]),
  ],
  "file/lease/break": [
    claimOn("file", fileLease("break"), { params: {}, lease: "leased" }, [answer(202)]),
    claimOn("file", fileMetadata, { params: {}, lease: "broken" }, [answer(200)]),
  ],
  "file/lease/reach/share": [share("metadata"), share("properties")].map((r) =>
    claimOn("file", r, { params: {}, lease: unleased }, [answer(200)]),
  ),
};

defineClaimedAnswers(CLAIMED_ANSWERS);
