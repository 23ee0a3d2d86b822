// Mutants generated from the duration range's ends (suites/blob/lease-table.ts,
// DURATION_ENDS and variationsOf): for each cell that grants an acquire, a
// target whose range check is off in that lease state alone: the longest
// finite lease (60 s) refused 400, or a duration just outside the range
// (14 or 61 s) granted as a 15 s lease. Each is killed by the cell's row,
// which sends both ends (catalogue L: "the duration range wherever an
// acquire is allowed").
import { LEASE_OF } from "../../suites/blob/lease-kit.ts";
import {
  ACTION_LABEL,
  ACTIONS,
  columnsOf,
  DURATION_ENDS,
  variationsOf,
  type Action,
  type Column,
  type LeaseResource,
} from "../../suites/blob/lease-table.ts";
import { errorResponse } from "./blob-kit.ts";
import { action, actionsOf, columnOf, isContainer, isLease, track, tracked } from "./lease-kit.ts";
import type { ClaimTable, Mutant, ProxyRequest } from "./types.ts";
import { BREAK_60_STATES } from "../../suites/blob/lease-break-range.ts";

const duration = (req: ProxyRequest) => Number(req.headers["x-ms-lease-duration"]);
const outside = DURATION_ENDS.outside as readonly number[];

function mutants(resource: LeaseResource, act: Action, column: Column): Mutant[] {
  const row = `${LEASE_OF[resource].ids}state/${act}/${column}`;
  const on = `${ACTION_LABEL[act]} on ${resource === "blob" ? "a blob" : "a container"} whose lease is ${column}`;
  const meets = (req: ProxyRequest, state: Map<string, unknown>) => {
    const lease = tracked(req, state);
    return (
      isLease(req) &&
      isContainer(req) === (resource === "container") &&
      action(req) === "acquire" &&
      columnOf(lease) === column &&
      actionsOf(req, lease).includes(act)
    );
  };
  const base = { kills: [row], cell: row, onResponse: track };
  return [
    {
      ...base,
      name: `lease-range-${resource}-${act}-${column}-end-refused`,
      description: `${on} with a ${DURATION_ENDS.inside} s duration (the range's end) is refused 400 InvalidHeaderValue`,
      onRequest(req, state) {
        if (meets(req, state) && duration(req) === DURATION_ENDS.inside) return errorResponse(req, 400, "InvalidHeaderValue");
      },
    },
    {
      ...base,
      name: `lease-range-${resource}-${act}-${column}-outside-granted`,
      description: `${on} with a duration just outside the range (${outside.join(" or ")} s) is granted as a 15 s lease`,
      onRequest(req, state) {
        if (meets(req, state) && outside.includes(duration(req))) req.headers["x-ms-lease-duration"] = "15";
      },
    },
  ];
}

const GENERATED = (["blob", "container"] as const).flatMap((resource) =>
  ACTIONS.flatMap((act) =>
    columnsOf(resource, act)
      .filter((column) => variationsOf(act, column).some((v) => v.outOfRange))
      .map((column) => ({ resource, act, column, mutants: mutants(resource, act, column) })),
  ),
);

/** The break period's upper end refused in one lease state (lease-break-range.ts, BREAK_60_STATES), on each resource. */
const BREAK_60 = (["blob", "container"] as const).flatMap((resource) =>
  [...new Set(BREAK_60_STATES.map((v) => v.column))].map((column) => {
    const row = `${LEASE_OF[resource].ids}state/break-period-61`;
    return {
      resource,
      column,
      row,
      mutant: {
        kills: [row],
        cell: row,
        name: `lease-range-${resource}-break-60-${column}-refused`,
        description: `a break with period 60 (the range's end) on ${resource === "blob" ? "a blob" : "a container"} whose lease is ${column} is refused 400 InvalidHeaderValue`,
        onRequest(req, state) {
          const lease = tracked(req, state);
          if (
            isLease(req) &&
            isContainer(req) === (resource === "container") &&
            action(req) === "break" &&
            req.headers["x-ms-lease-break-period"] === "60" &&
            columnOf(lease) === column
          )
            return errorResponse(req, 400, "InvalidHeaderValue");
        },
        onResponse: track,
      } satisfies Mutant,
    };
  }),
);

export const MUTANTS: Mutant[] = [...GENERATED.flatMap((g) => g.mutants), ...BREAK_60.map((b) => b.mutant)];

export const CLAIM_TABLES: ClaimTable[] = (["blob", "container"] as const).map((resource) => ({
  table: LEASE_OF[resource].stateTable,
  kind: "the duration and break period ranges at both ends, where the action is allowed",
  claims: [
    ...GENERATED.filter((g) => g.resource === resource).map((g) => ({
      claim: `${ACTION_LABEL[g.act]} on ${g.column}: durations ${DURATION_ENDS.inside} and ${outside.join(", ")}`,
      row: `${LEASE_OF[resource].ids}state/${g.act}/${g.column}`,
      mutants: g.mutants.map((m) => m.name),
    })),
    ...BREAK_60.filter((b) => b.resource === resource).map((b) => ({
      claim: `break with period 60 on ${b.column}`,
      row: b.row,
      mutants: [b.mutant.name],
    })),
  ],
}));
