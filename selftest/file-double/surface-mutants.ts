// Mutants of the file double generated from the data the surface rows are
// generated from: for every (operation, parameter) pair of the file surface
// (suites/file/surface/surface-claims.ts) the parameter ignored, a refusal
// it draws answered with another status, a holding value refused; for every
// cell of the share lease table (suites/blob/lease-table.ts on the share
// states) the cell answered the other way; one per share lease rule; and
// for every file operation that takes a lease ID (ID_TAKERS), one that
// ignores an ID on a file without a lease; for every resource a lease must
// leave alone (suites/file/reach-claims.ts), a lease that locks it, and where
// its ID is refused there, one whose ID opens it.
// Each names the rows of which at least one must FAIL against it, and runs
// only those.
import { ACTIONS, TABLE } from "../../suites/blob/lease-table.ts";
import { ID_TAKERS } from "../../suites/file/lease-reach.rows.ts";
import { FILE_REACH } from "../../suites/file/reach-claims.ts";
import { SHARE_STATES } from "../../suites/file/surface/share-lease-kit.ts";
import { CLAIMS, failingRefusal, opSlug, rowsOf } from "../../suites/file/surface/surface-claims.ts";
import { mayPermitFailing } from "../../suites/file/surface/surface-rules.ts";
import type { Deviation } from "./double-types.ts";
import type { DoubleMutant } from "./mutants.ts";

const HOW: Record<Deviation["how"], string> = {
  ignored: "the double acts as if the parameter were absent",
  "wrong-refusal": "a refusal of a request carrying it gets another status (412↔409, 400→409)",
  "holding-refused": "every request carrying it is refused, a holding value too",
};

// A pair whose failing value may be permitted (disputed) has no "ignored" mutant: ignoring it is an answer the claim accepts.
const hows = (c: (typeof CLAIMS)[number]) =>
  (Object.keys(HOW) as Deviation["how"][]).filter((how) => how !== "ignored" || !mayPermitFailing(c));

const pairMutants: DoubleMutant[] = CLAIMS.flatMap((c) =>
  hows(c).map((how) => ({
    name: `file-surface-${opSlug(c.op)}-${c.parameter}-${how}`,
    description: `${c.op} / ${c.parameter}: ${HOW[how]}`,
    flags: { deviation: { operation: c.op, parameter: c.parameter, how, refusal: failingRefusal(c) } },
    kills: rowsOf(c),
  })),
);

const cellMutants: DoubleMutant[] = ACTIONS.flatMap((action) =>
  SHARE_STATES.map((state) => ({
    name: `file-share-lease-${action}-${state}`,
    description: `Lease Share ${action} on ${state === "available" ? "an" : "a"} ${state} lease answered the other way (${TABLE[action][state].status < 300 ? "409" : "success"}, nothing applied)`,
    flags: { shareLeaseCell: { action, state } },
    kills: [`file/share-lease/state/${action}/${state}`],
  })),
);

const ruleMutants: DoubleMutant[] = [
  {
    name: "file-share-lease-duration-unchecked",
    description: "Lease Share acquire accepts any duration (14, 61, 0)",
    flags: { shareDurationUnchecked: true },
    kills: ["file/share-lease/duration-range", "file/surface/lease-share-acquire/x-ms-lease-duration"],
  },
  {
    name: "file-share-lease-break-period-unchecked",
    description: "Lease Share break accepts any period (61, -1)",
    flags: { shareBreakPeriodUnchecked: true },
    kills: ["file/share-lease/break-period-range", "file/surface/lease-share-break/x-ms-lease-break-period"],
  },
  {
    name: "file-share-delete-unguarded",
    description: "Delete Share ignores the share's lease",
    flags: { shareDeleteUnguarded: true },
    kills: ["file/share-lease/delete-requires-id", "file/surface/delete-share/x-ms-lease-id"],
  },
  {
    name: "file-share-reads-need-lease",
    description:
      "a share lease locks the share's reads too: Get Share Properties, Metadata, ACL and Stats without the ID → 412 LeaseIdMissing",
    flags: { shareReadsNeedLease: true },
    kills: ["file/share-lease/others-shared"],
  },
  {
    name: "file-share-sets-unguarded",
    description: "a share lease locks deletion only: Set Share Properties, Metadata and ACL need no lease ID on a leased share",
    flags: { shareSetsUnguarded: true },
    kills: ["file/share-lease/set-requires-id"],
  },
  {
    name: "file-share-broken-id-accepted",
    description: "the holder's ID on a share whose lease was broken is taken as if the lease held (not 412 LeaseLost)",
    flags: { shareBrokenIdAccepted: true },
    kills: ["file/share-lease/lost-after-break"],
  },
  {
    name: "file-share-release-keeps-id",
    description: "a released share lease keeps its ID: renew with it leases the share again",
    flags: { shareReleaseKeepsId: true },
    kills: ["file/share-lease/renew-after-release"],
  },
];

/** An ID on a file without a lease (file/lease/id-on-unleased): each operation that takes one, ignoring it. */
const idTakerMutants: DoubleMutant[] = ID_TAKERS.map((o) => ({
  name: `file-unleased-id-ignored-${o.counted.replace(/[A-Z]/g, (c, i: number) => `${i ? "-" : ""}${c.toLowerCase()}`)}`,
  description: `${o.operation} ignores a lease ID on a file that holds no lease (as if none were sent)`,
  flags: { unleasedIdIgnoredOn: o.counted },
  kills: ["file/lease/id-on-unleased"],
}));

/** How far a lease reaches (suites/file/reach-claims.ts): each resource it must leave alone locked, and where its ID is refused, opened by it. */
const reachMutants: DoubleMutant[] = FILE_REACH.flatMap((r) =>
  (r.idRefused ? (["locks", "id-opens"] as const) : (["locks"] as const)).map((how) => ({
    name: `${r.lock === "file" ? "file" : "file-share"}-lease-${how}-${r.relation}`,
    description:
      how === "locks"
        ? `a ${r.lock} lease locks ${r.label}: writes there without a lease ID → 412 LeaseIdMissing`
        : `a leased file's ID sent to ${r.label} is taken as if none were sent (not 412 LeaseNotPresentWithFileOperation)`,
    flags: { reachTooFar: { relation: r.relation, how } },
    kills: [r.row],
  })),
);

/** The generated mutants: each runs only the rows it names. */
export const SURFACE_MUTANTS: DoubleMutant[] = [...pairMutants, ...cellMutants, ...ruleMutants, ...idTakerMutants, ...reachMutants];
