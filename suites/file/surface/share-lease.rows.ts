// Share leases (catalogue S, "Shares"; Lease Share, 2020-02-10+): the lease
// actions follow the blob lease state table (suites/blob/lease-table.ts, a
// row per cell on a share: available, leased, breaking and broken), the
// duration (15–60 s or -1) and break period (0–60) ranges, and what a share
// lease locks: the share's writes, until it is broken; never its reads or files.
import type { RowContext, RowDef } from "../../../fixtures/harness/engine.ts";
import { defineTable } from "../../../fixtures/harness/registry.ts";
import {
  ACTION_LABEL,
  ACTIONS,
  cellAt,
  cellClaims,
  onState,
  SHAPES,
  TABLE,
  type Action,
  type Column,
  type Variation,
} from "../../blob/lease-table.ts";
import { answer, claimOn } from "../../../fixtures/harness/claims.ts";
import {
  cell,
  deleteRequiresId,
  filesUnlocked,
  lostAfterBreak,
  othersShared,
  range,
  renewAfterRelease,
  setRequiresId,
  SHARE_STATES,
} from "./share-lease-kit.ts";

const P = "file/share-lease/";
const source = (rest: string) => `catalogue S (Shares); REST: Lease Share, ${rest}`;

/** The one request a share cell sends (share-lease-kit.ts actionHeaders): the table's first shape, an acquire's for an infinite lease, on an infinite lease. */
const sentOnShare = (action: Action, state: Column): Variation => ({
  lease: state === "available" ? "none" : "infinite",
  shape: { ...SHAPES[action][0], ...(action.startsWith("acquire") ? { duration: -1 } : {}) },
});

const cells: RowDef[] = ACTIONS.flatMap((action) =>
  SHARE_STATES.map((state) => {
    const o = TABLE[action][state];
    const after = `${[o.after].flat().join(" or ")}${o.holder ? ` held by ${o.holder}` : ""}`;
    return {
      id: `${P}state/${action}/${state}`,
      claim: cellAt(action, state),
      title: `Lease Share ${ACTION_LABEL[action]} on ${onState(state)} → ${o.status}${o.code ? " " + o.code : ""}, then ${after}`,
      level: "rest" as const,
      source: source("the blob lease state table (catalogue L) on a share"),
      service: "file" as const,
      answers: cellClaims("share", action, state, [o], [sentOnShare(action, state)]),
      run: (t: RowContext) => cell(t, action, state),
    };
  }),
);

/** The share requests the rows claim answers for, on a placeholder share (the request classifier names them). */
const SHARE = (method: string, comp?: string, headers: Record<string, string> = {}) => ({
  method,
  path: "/s",
  query: { restype: "share", ...(comp ? { comp } : {}) },
  headers,
});
const SETS = [SHARE("PUT", "metadata"), SHARE("PUT", "properties"), SHARE("PUT", "acl")];
const READS = [SHARE("GET"), SHARE("GET", "metadata"), SHARE("GET", "acl"), SHARE("GET", "stats")];
const LEASE = (action: string) => SHARE("PUT", "lease", { "x-ms-lease-action": action });

const rows: RowDef[] = [
  ...cells,
  {
    id: "file/share-lease/duration-range",
    title: "Lease Share acquire: duration 14, 61 or 0 → 400 and the share stays unleased; 15, 60 (fixed) and -1 (infinite) → 201",
    level: "rest",
    source: source("x-ms-lease-duration: 15–60 or -1"),
    service: "file",
    answers: [
      claimOn(
        "file",
        LEASE("acquire"),
        {
          params: { "x-ms-lease-duration": "out-of-range" },
          also: { "x-ms-proposed-lease-id": ["other"] },
          lease: ["available", "released"],
        },
        [answer(400)],
      ),
      claimOn(
        "file",
        LEASE("acquire"),
        {
          params: { "x-ms-lease-duration": ["in-range", "infinite"] },
          also: { "x-ms-proposed-lease-id": ["other", "holder"] },
          lease: ["available", "released"],
        },
        [answer(201)],
      ),
    ],
    run: (t) => range(t, "duration"),
  },
  {
    id: "file/share-lease/break-period-range",
    title: "Lease Share break: period 61 or -1 → 400 and the lease stays; 60 → 202 breaking (x-ms-lease-time 60); 0 → 202 broken",
    level: "rest",
    source: source("x-ms-lease-break-period: 0–60"),
    service: "file",
    answers: [
      claimOn("file", LEASE("break"), { params: { "x-ms-lease-break-period": "out-of-range" }, lease: "leased" }, [answer(400)]),
      claimOn("file", LEASE("break"), { params: { "x-ms-lease-break-period": ["in-range", "zero"] }, lease: "leased" }, [answer(202)]),
    ],
    run: (t) => range(t, "break-period"),
  },
  {
    id: "file/share-lease/delete-requires-id",
    title:
      "Delete Share without the lease ID → 412 LeaseIdMissing while the lease is leased or breaking, the share kept; once broken it deletes",
    level: "rest",
    source: source("Delete Share (x-ms-lease-id), a share lease locks deletion"),
    service: "file",
    answers: [
      claimOn("file", SHARE("DELETE"), { params: {}, lease: ["leased", "breaking"] }, [answer(412, "LeaseIdMissing")]),
      claimOn("file", SHARE("DELETE"), { params: {}, lease: "broken" }, [answer(202)]),
    ],
    run: deleteRequiresId,
  },
  {
    id: "file/share-lease/others-shared",
    title: "On a leased share the reads (Get Share Properties, Metadata, ACL, Stats) succeed without the lease ID, and the lease stays",
    level: "rest",
    source: source("a share lease leaves the share's reads open"),
    service: "file",
    answers: READS.map((r) => claimOn("file", r, { params: {}, lease: "leased" }, [answer(200)])),
    run: othersShared,
  },
  {
    id: "file/share-lease/set-requires-id",
    title:
      "Set Share Properties, Metadata and ACL without the lease ID on a leased or breaking share → 412 LeaseIdMissing, the share unchanged; with the holder's ID → applied",
    level: "rest",
    source: source("set operations require the lease ID (live: Set Share Metadata → 412 LeaseIdMissing)"),
    service: "file",
    answers: SETS.flatMap((r) => [
      claimOn("file", r, { params: {}, lease: ["leased", "breaking"] }, [answer(412, "LeaseIdMissing")]),
      claimOn("file", r, { params: { "x-ms-lease-id": "holder" }, lease: ["leased", "breaking"] }, [answer(200)]),
    ]),
    run: setRequiresId,
  },
  {
    id: "file/share-lease/lost-after-break",
    title: "The holder's lease ID on a share whose lease was broken → 412 LeaseLost (Get Share Properties, Set Share Metadata), unchanged",
    level: "rest",
    source: source("a share answers the container's codes (live: LeaseLost after a break)"),
    service: "file",
    answers: [READS[0], SETS[0]].map((r) =>
      claimOn("file", r, { params: { "x-ms-lease-id": "holder" }, lease: "broken" }, [answer(412, "LeaseLost")]),
    ),
    run: lostAfterBreak,
  },
  {
    id: "file/share-lease/files-unlocked",
    title:
      "A share lease leaves its files and directories alone: Create Directory, Create File, Put Range, Set File Metadata, Delete File and Delete Directory without any lease ID succeed and read back applied",
    level: "rest",
    source: source("a share lease locks the share, not what it holds"),
    service: "file",
    run: filesUnlocked,
  },
  {
    id: "file/share-lease/renew-after-release",
    title: "Renew after release → 409 and the share stays unleased; another ID acquires at once",
    level: "rest",
    source: source("renew, release"),
    service: "file",
    answers: [claimOn("file", LEASE("renew"), { params: { "x-ms-lease-id": "holder" }, lease: "released" }, [answer(409)])],
    run: renewAfterRelease,
  },
];

defineTable({ table: "S Share leases (file)", service: "file" }, rows);
