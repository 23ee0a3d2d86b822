// Mutants generated from the lease outcome table (suites/blob/lease-table.ts),
// one per cell of each resource's table: a target that answers that one cell
// the other way. What the catalogue grants is refused (409 with a code the
// cell does not accept), what it refuses is granted; the target's own answer
// is rewritten, so a cell on which the target already deviates (pinned) is
// left alone (equivalent). Each is killed by the cell's row. Which cell a
// request reaches comes from the lease as the target holds it (lease-kit.ts,
// track()); on an Available resource the holder's ID and another are the same
// request on the wire, so a mutant for either fires on both.
import { randomUUID } from "node:crypto";
import { LEASE_OF } from "../../suites/blob/lease-kit.ts";
import { ACTION_LABEL, ACTIONS, cellOf, columnsOf, type Action, type Column, type LeaseResource } from "../../suites/blob/lease-table.ts";
import { errorResponse } from "./blob-kit.ts";
import { action, actionsOf, columnOf, isContainer, isLease, track, tracked } from "./lease-kit.ts";
import { toSuccess, type ClaimTable, type Mutant, type ProxyRequest } from "./types.ts";

/** What a granted action answers (the lease headers the suite reads). */
function granted(req: ProxyRequest): { status: number; headers: Record<string, string> } {
  switch (action(req)) {
    case "acquire":
      return { status: 201, headers: { "x-ms-lease-id": req.headers["x-ms-proposed-lease-id"] ?? randomUUID() } };
    case "change":
      return { status: 200, headers: { "x-ms-lease-id": req.headers["x-ms-proposed-lease-id"] ?? "" } };
    case "break":
      return { status: 202, headers: { "x-ms-lease-time": req.headers["x-ms-lease-break-period"] ?? "0" } };
    default:
      return { status: 200, headers: req.headers["x-ms-lease-id"] ? { "x-ms-lease-id": req.headers["x-ms-lease-id"] } : {} };
  }
}

function cell(resource: LeaseResource, act: Action, column: Column): Mutant {
  const { outcomes } = cellOf(resource, act, column)!;
  const grants = outcomes.some((o) => o.status < 300);
  // A refusal no outcome of the cell accepts.
  const codes = outcomes.filter((o) => o.status === 409).map((o) => o.code);
  // Over an expired lease a LeaseAlreadyPresent may come for a minute (catalogue L): refuse with a code never allowed there.
  const overExpired = act.startsWith("acquire") && (column === "expired" || column === "expired-modified");
  const refusal =
    act.startsWith("acquire") && !overExpired
      ? "LeaseAlreadyPresent"
      : codes.includes("LeaseIdMismatchWithLeaseOperation")
        ? "LeaseNotPresentWithLeaseOperation"
        : "LeaseIdMismatchWithLeaseOperation";
  const row = `${LEASE_OF[resource].ids}state/${act}/${column}`;
  const on = `${ACTION_LABEL[act]} on ${resource === "blob" ? "a blob" : "a container"} whose lease is ${column}`;
  return {
    name: `lease-cell-${resource}-${act}-${column}-${grants ? "refused" : "granted"}`,
    description: grants
      ? `${on} is refused (409 ${refusal}), where the catalogue grants it`
      : `${on} is granted, where the catalogue refuses it with 409`,
    kills: [row],
    cell: row,
    onResponse(req, res, state) {
      const before = tracked(req, state);
      track(req, res, state);
      if (!isLease(req) || isContainer(req) !== (resource === "container")) return;
      if (columnOf(before) !== column || !actionsOf(req, before).includes(act)) return;
      if (grants && res.status >= 200 && res.status < 300) Object.assign(res, errorResponse(req, 409, refusal));
      else if (!grants && res.status === 409) {
        const g = granted(req);
        toSuccess(res, g.status, g.headers);
      }
    },
  };
}

const GENERATED = (["blob", "container"] as const).flatMap((resource) =>
  ACTIONS.flatMap((act) => columnsOf(resource, act).map((column) => ({ resource, act, column, mutant: cell(resource, act, column) }))),
);

/**
 * An acquire over an expired lease answered 409 LeaseAlreadyPresent for good:
 * the minute the Lease Blob page allows after an expiry runs out, and the
 * lease is still not granted (catalogue L: a 409 after 60 s fails).
 */
const REACQUIRE_NEVER: Mutant = {
  name: "lease-reacquire-refused-past-a-minute",
  description:
    "Acquire over an expired blob lease is refused with 409 LeaseAlreadyPresent for longer than the minute after the expiry that the Lease Blob page allows",
  kills: ["blob/lease/state/acquire/expired"],
  onRequest(req, state) {
    const lease = tracked(req, state);
    if (isLease(req) && !isContainer(req) && action(req) === "acquire" && lease.state === "expired" && !lease.writtenAfterExpiry)
      return errorResponse(req, 409, "LeaseAlreadyPresent");
  },
  onResponse: (req, res, state) => track(req, res, state),
};

export const MUTANTS: Mutant[] = [...GENERATED.map((g) => g.mutant), REACQUIRE_NEVER];

export const CLAIM_TABLES: ClaimTable[] = (["blob", "container"] as const).map((resource) => ({
  table: LEASE_OF[resource].stateTable,
  kind: "action × lease state",
  claims: GENERATED.filter((g) => g.resource === resource).map((g) => ({
    claim: `${ACTION_LABEL[g.act]} on ${g.column}`,
    row: g.mutant.cell!,
    mutants: [g.mutant.name],
  })),
}));
