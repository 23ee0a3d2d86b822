// The file double's own flags (DoubleFlags), all off in NO_FLAGS: each makes
// the double (server.ts and the modules beside it) deviate from the FileREST
// reference in one documented way, for the self-tests' mutants (mutants.ts).
// The added operations' flags (ExtraFlags) are in double-types.ts.
import type { ExtraFlags } from "./double-types.ts";

export interface DoubleFlags extends ExtraFlags {
  /** Writes on a leased file succeed without (or with any) lease ID. */
  leaseNotEnforced: boolean;
  /** A write refused for its lease ID is applied anyway (the 412 is still sent). */
  refusedWriteApplied: boolean;
  /** A wrong lease ID is answered 412 LeaseIdMissing instead of LeaseIdMismatchWithFileOperation. */
  mismatchAnsweredAsMissing: boolean;
  /** Reads of a leased file without the lease ID are refused 412 LeaseIdMissing. */
  readsNeedLease: boolean;
  /** Acquire accepts a finite duration. */
  finiteLeaseAccepted: boolean;
  /** Lease operations give the file a new ETag. */
  leaseChangesEtag: boolean;
  /** Release answers 200 but the lease stays. */
  releaseIgnored: boolean;
  /** Change answers 200 with the new ID but the old ID stays in force. */
  changeIgnored: boolean;
  /** Break answers 202 but the lease stays. */
  breakIgnored: boolean;
  /** Writes keep the file's ETag. */
  etagUnchanged: boolean;
  /** Write responses carry no ETag header. */
  etagMissing: boolean;
  /** A stale If-Match is evaluated: 412 ConditionNotMet. */
  ifMatchEvaluated: boolean;
  /** Set File Metadata merges into the existing metadata instead of replacing it. */
  metadataMerged: boolean;
  /** Deleted files stay in List Files and Directories. */
  deletedFileListed: boolean;
  /** Deleted directories stay in List Files and Directories. */
  deletedDirectoryListed: boolean;
  /** A deleted file still reads (200) for a while after the 202: a pending-delete state. */
  deletePending: boolean;
  /** The read after Create File over an existing file answers 404 (file briefly absent). */
  notFoundAfterOverwrite: boolean;
  /** A refused Delete Directory (not empty) hides the directory anyway (404). */
  refusedDeleteHides: boolean;
}

export const NO_FLAGS: DoubleFlags = {
  leaseNotEnforced: false,
  refusedWriteApplied: false,
  mismatchAnsweredAsMissing: false,
  readsNeedLease: false,
  finiteLeaseAccepted: false,
  leaseChangesEtag: false,
  releaseIgnored: false,
  changeIgnored: false,
  breakIgnored: false,
  etagUnchanged: false,
  etagMissing: false,
  ifMatchEvaluated: false,
  metadataMerged: false,
  deletedFileListed: false,
  deletedDirectoryListed: false,
  deletePending: false,
  notFoundAfterOverwrite: false,
  refusedDeleteHides: false,
};
