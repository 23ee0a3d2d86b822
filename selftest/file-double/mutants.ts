// Mutants of the file double: each turns on one flag, a documented deviation
// from the FileREST reference, and names the file tests of which at least one
// must FAIL against it (IDs, or prefixes ending in '/').
import type { DoubleFlags } from "./server.ts";

export interface DoubleMutant {
  name: string;
  description: string;
  flags: Partial<DoubleFlags>;
  kills: string[];
}

const WRITES = ["create", "put-range", "set-metadata", "set-properties", "delete"];

export const DOUBLE_MUTANTS: DoubleMutant[] = [
  {
    name: "file-unleased-id-mismatch",
    description:
      "an ID on a file that holds no lease is answered 412 LeaseIdMismatchWithFileOperation, not LeaseNotPresentWithFileOperation",
    flags: { unleasedIdMismatch: true },
    kills: ["file/lease/id-on-unleased", "file/lease/reach/sibling"],
  },
  {
    name: "file-lease-not-enforced",
    description: "writes on a leased file succeed without the lease ID or with a wrong one",
    flags: { leaseNotEnforced: true },
    kills: WRITES.flatMap((w) => [`file/lease/${w}/without-id`, `file/lease/${w}/wrong-id`]),
  },
  {
    name: "file-refused-write-applied",
    description: "a write refused 412 for its lease ID is applied all the same",
    flags: { refusedWriteApplied: true },
    kills: WRITES.flatMap((w) => [`file/lease/${w}/without-id`, `file/lease/${w}/wrong-id`]),
  },
  {
    name: "file-lease-mismatch-as-missing",
    description: "a wrong lease ID is answered 412 LeaseIdMissing instead of LeaseIdMismatchWithFileOperation",
    flags: { mismatchAnsweredAsMissing: true },
    kills: [...WRITES.map((w) => `file/lease/${w}/wrong-id`), "file/lease/change"],
  },
  {
    name: "file-reads-need-lease",
    description: "reads of a leased file without the lease ID are refused 412 LeaseIdMissing",
    flags: { readsNeedLease: true },
    kills: ["file/lease/reads-need-no-id"],
  },
  {
    name: "file-finite-lease-accepted",
    description: "Lease File acquire accepts a finite duration",
    flags: { finiteLeaseAccepted: true },
    kills: ["file/lease/acquire/finite-refused"],
  },
  {
    name: "file-lease-changes-etag",
    description: "lease operations give the file a new ETag and Last-Modified",
    flags: { leaseChangesEtag: true },
    kills: ["file/lease/etag-unchanged"],
  },
  {
    name: "file-release-ignored",
    description: "release answers 200 but the lease stays",
    flags: { releaseIgnored: true },
    kills: ["file/lease/release"],
  },
  {
    name: "file-change-ignored",
    description: "change answers 200 with the new ID but the old ID stays in force",
    flags: { changeIgnored: true },
    kills: ["file/lease/change"],
  },
  {
    name: "file-break-ignored",
    description: "break answers 202 but the lease stays",
    flags: { breakIgnored: true },
    kills: ["file/lease/break"],
  },
  {
    name: "file-etag-unchanged",
    description: "writes leave the file's ETag as it was",
    flags: { etagUnchanged: true },
    kills: ["file/rest/etag"],
  },
  {
    name: "file-etag-missing",
    description: "write responses carry no ETag header",
    flags: { etagMissing: true },
    kills: ["file/rest/etag"],
  },
  {
    name: "file-if-match-evaluated",
    description: "a stale If-Match is evaluated: 412 ConditionNotMet",
    flags: { ifMatchEvaluated: true },
    kills: ["file/rest/last-writer-wins"],
  },
  {
    name: "file-metadata-merged",
    description: "Set File Metadata merges into the old metadata: the earlier writer's keys survive",
    flags: { metadataMerged: true },
    kills: ["file/rest/last-writer-wins"],
  },
  {
    name: "file-deleted-file-listed",
    description: "a deleted file stays in List Files and Directories",
    flags: { deletedFileListed: true },
    kills: ["file/rest/delete-atomic/file"],
  },
  {
    name: "file-deleted-directory-listed",
    description: "a deleted directory stays in List Files and Directories",
    flags: { deletedDirectoryListed: true },
    kills: ["file/rest/delete-atomic/directory"],
  },
  {
    name: "file-delete-pending",
    description: "a deleted file still reads for 3 s after the 202 (a pending-delete state)",
    flags: { deletePending: true },
    kills: ["file/rest/delete-atomic/file"],
  },
  {
    name: "file-not-found-after-overwrite",
    description: "the read right after Create File over an existing file answers 404",
    flags: { notFoundAfterOverwrite: true },
    kills: ["file/rest/not-found-only-when-deleted/file"],
  },
  {
    name: "file-refused-delete-hides",
    description: "a refused Delete Directory (not empty) hides the directory (404) anyway",
    flags: { refusedDeleteHides: true },
    kills: ["file/rest/not-found-only-when-deleted/directory"],
  },
];

/** Whether a test ID is named by a kills entry (exact, or under a prefix ending in '/'). */
export const named = (kills: string[], id: string) => kills.some((k) => (k.endsWith("/") ? id.startsWith(k) : id === k));
