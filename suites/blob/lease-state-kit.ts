// The lease actions × lease states tables (lease-table.ts; REST "Lease Blob"
// and "Lease Container" outcome tables) as rows, for lease-state.rows.ts
// (blobs) and lease-state-container.rows.ts (containers): one test per cell,
// each on its own resource put into the state first. The state after the
// action is read back (x-ms-lease-state, x-ms-lease-status) and, where a
// lease is held, so is its holder. A cell's test sends every variation the
// cell covers (catalogue L: finite and infinite leases, another ID and none,
// both durations). Expired cells wait for 15 s leases to lapse; they start at
// once and run side by side. Column expired-modified: the lease expired, then
// a write without a lease ID (Put Blob, Set Container Metadata) changed the
// resource. Also here: each table's matrix. The break period's range, checked
// on both resources too, is in lease-break-range.ts.
import { eachVariation, expectRawStatus, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { currentEvidence } from "../../fixtures/wire/evidence.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { defineMatrix } from "../../fixtures/harness/registry.ts";
import {
  acquireOverExpired,
  blobLeaseSource,
  blobTarget,
  containerLeaseSource,
  containerTarget,
  guid,
  lapses,
  leaseAction,
  LEASE_OF,
  REACQUIRE_TOLERANCE_MS,
  readLease,
  SHORTEST,
  type LeaseView,
  type LeaseAction,
  type LeaseArgs,
  type LeaseTarget,
  type StatedResource,
} from "./lease-kit.ts";
import { beforeLapse, checkLeaseState, expectHolder, stillBreaking, whileBreaking } from "./lease-checks.ts";
import { leasesInState } from "./lease-setup.ts";
import { newBlockBlob } from "./blob-kit.ts";
import {
  ACTION_LABEL,
  ACTIONS,
  BREAK_PERIOD,
  cellAt,
  cellClaims,
  cellOf,
  columnsOf,
  COLUMNS,
  onState,
  variationsOf,
  type Action,
  type Column,
  type LeaseResource,
  type Outcome,
  type Shape,
  type Variation,
} from "./lease-table.ts";

/** What differs between the two resources a lease table applies to. */
export interface Resource {
  /** ID prefix of its state cells. */
  prefix: string;
  operation: string;
  table: string;
  source: string;
  create(t: RowContext): Promise<LeaseTarget>;
}

const resource = (kind: LeaseResource, source: string, create: Resource["create"]): Resource => ({
  prefix: `${LEASE_OF[kind].ids}state/`,
  operation: LEASE_OF[kind].operation,
  table: LEASE_OF[kind].stateTable,
  source,
  create,
});
export const RESOURCES: Record<LeaseResource, Resource> = {
  blob: resource("blob", blobLeaseSource("Lease Blob, outcomes of lease operations on blobs by lease state"), async (t) =>
    blobTarget(await newBlockBlob(t)),
  ),
  container: resource(
    "container",
    containerLeaseSource("Lease Container, outcomes of lease operations on containers by lease state"),
    async (t) => containerTarget(await t.newContainer()),
  ),
};

/** The request of an action, with the IDs of a resource in its state. */
function request(action: Action, s: StatedResource, shape: Shape): { verb: LeaseAction; args: LeaseArgs } {
  switch (action) {
    case "acquire":
      return { verb: "acquire", args: { proposed: shape.proposed === "none" ? undefined : s.other, duration: shape.duration } };
    case "acquire-same":
      return { verb: "acquire", args: { proposed: s.a, duration: shape.duration } };
    case "renew":
      return { verb: "renew", args: { id: s.a } };
    case "renew-other":
      return { verb: "renew", args: { id: s.other } };
    case "change":
      return { verb: "change", args: { id: s.a, proposed: s.other } };
    case "change-other":
      return { verb: "change", args: { id: s.other, proposed: guid() } };
    case "release":
      return { verb: "release", args: { id: s.a } };
    case "release-other":
      return { verb: "release", args: { id: s.other } };
    case "break-0":
      return { verb: "break", args: { breakPeriod: 0 } };
    case "break-period":
      return { verb: "break", args: { breakPeriod: BREAK_PERIOD } };
  }
}

const LEASE_TEXT = { none: "", finite: "a finite lease", infinite: "an infinite lease" } as const;
/** A variation in words, for a cell that sends more than one. */
function variationText(v: Variation, column: Column): string {
  const parts: string[] = [column === "available" || column === "expired" || column === "expired-modified" ? "" : LEASE_TEXT[v.lease]];
  if (v.shape.proposed === "none") parts.push("no proposed ID");
  if (v.shape.duration !== undefined)
    parts.push(v.shape.duration === -1 ? "acquiring an infinite lease" : `acquiring a ${v.shape.duration} s lease`);
  return parts.filter(Boolean).join(", ");
}

const claimText = (o: Outcome) =>
  `${o.status}${o.code ? " " + o.code : ""}${o.status < 300 ? ` → ${Array.isArray(o.after) ? "unlocked" : o.after}` : ""}`;
const cellText = (outcomes: Outcome[]) => outcomes.map(claimText).join(" or ");
const stateLabel = (state: Column) => (state === "expired-modified" ? "expired, then written without a lease ID" : state);

/**
 * One variation of a cell: the action on a resource in its state, the answer,
 * the state and the holder read back. `alone`: the cell's only variation (its
 * note is then plain "response").
 */
async function act(
  t: RowContext,
  action: Action,
  column: Column,
  outcomes: Outcome[],
  s: StatedResource,
  v: Variation,
  what: string,
  alone: boolean,
): Promise<void> {
  const { verb, args } = request(action, s, v.shape);
  t.step(what);
  // A new lease over an expired one may be granted up to a minute after the expiry (catalogue L).
  const overExpired = verb === "acquire" && lapses(column) && s.expiredAt;
  const { res, delayS } = overExpired
    ? await acquireOverExpired(t, s.x, args, s.expiredAt!)
    : { res: await leaseAction(t, s.x, verb, args), delayS: undefined };
  t.note(alone ? "response" : `response (${what})`, {
    status: res.status,
    code: res.errorCode ?? null,
    leaseTime: res.headers["x-ms-lease-time"] ?? null,
  });
  if (delayS !== undefined) t.note(alone ? "granted after the expiry (s)" : `granted after the expiry (s) (${what})`, delayS);
  const since = currentEvidence()?.exchanges.length ?? 0;
  t.step("read the lease back");
  const view = await readLease(t, s.x);
  if (column === "breaking") stillBreaking(s, view);
  if (v.outOfRange) return outOfRange(t, column, s, res, view, since, what);
  // A disputed cell accepts either outcome; the answer's status says which one it is.
  const expected = outcomes.find((o) => o.status === res.status) ?? outcomes[0];
  if (outcomes.length > 1) {
    t.note("disputed", `${claimText(expected)}${expected === outcomes[0] ? " (the Lease Container page)" : " (the Lease Blob rule)"}`);
    const [wanted, got] = [
      outcomes.map((o) => `${o.status}${o.code ? " " + o.code : ""}`).join(" or "),
      `${res.status} ${res.errorCode ?? ""}`.trim(),
    ];
    expectTrue(
      `${what}: expected ${wanted}, got ${got}`,
      outcomes.some((o) => o.status === res.status),
      { expected: wanted, got },
    );
  }
  expectRawStatus(what, res, { status: expected.status, code: expected.code });
  // The lease the action left: a load that delays these checks past a finite lease's end makes them tell nothing.
  await beforeLapse(res, since, async () => {
    checkLeaseState(`after ${what}`, view, expected.after);
    if (action === "break-period" && column === "leased") {
      // The break period is measured by the server: x-ms-lease-time is the time left.
      const left = Number(res.headers["x-ms-lease-time"]);
      const [wanted, got] = [`${BREAK_PERIOD - 1}–${BREAK_PERIOD} s`, res.headers["x-ms-lease-time"] ?? "none"];
      expectTrue(`x-ms-lease-time after ${what}: expected ${wanted}, got ${got}`, left >= BREAK_PERIOD - 1 && left <= BREAK_PERIOD, {
        expected: wanted,
        got,
      });
    }
    if (expected.holder) {
      // B: the ID the action brought (the target's own when the acquire proposed none).
      const granted = args.proposed ?? res.headers["x-ms-lease-id"];
      if (expected.holder === "B") expectTrue(`${what}: the answer names no x-ms-lease-id`, !!granted);
      const [holder, other] = expected.holder === "A" ? [s.a, s.other] : [granted!, s.a];
      const holds = () => expectHolder(t, s.x, `after ${what}`, holder, other);
      await (column === "breaking" ? whileBreaking(s, res, holds) : holds());
    }
  });
}

/** A duration out of range where the cell grants an acquire: 400, the lease read back as the column left it, its holder kept. */
async function outOfRange(
  t: RowContext,
  column: Column,
  s: StatedResource,
  res: RawResponse,
  view: LeaseView,
  since: number,
  what: string,
): Promise<void> {
  expectRawStatus(what, res, { status: 400 });
  await beforeLapse(res, since, async () => {
    checkLeaseState(`after ${what}`, view, column === "expired-modified" ? ["expired", "available"] : column);
    if (column === "leased") await expectHolder(t, s.x, `after ${what}`, s.a, s.other);
  });
}

async function runStateCell(t: RowContext, resource: LeaseResource, action: Action, column: Column): Promise<void> {
  const { outcomes } = cellOf(resource, action, column)!;
  const r = RESOURCES[resource];
  const variations = variationsOf(action, column);
  const alone = variations.length === 1;
  const whatOf = (v: Variation) => `${ACTION_LABEL[action]} on ${onState(column)}${alone ? "" : ` (${variationText(v, column)})`}`;
  // Every variation is acted on at once, each a strand of the evidence (in lapsing states, once all their leases lapsed together).
  const stated = lapses(column) ? await leasesInState(t, await Promise.all(variations.map(() => r.create(t))), column, true) : undefined;
  const checks = variations.map((v, i) => ({
    label: whatOf(v),
    run: async () => {
      const s = stated?.[i] ?? (await leasesInState(t, [await r.create(t)], column, v.lease === "finite"))[0];
      await act(t, action, column, outcomes, s, v, whatOf(v), alone);
    },
  }));
  // Each variation fails on its own: the failure names every one that fails (a pin then names exactly those).
  return alone ? checks[0].run() : eachVariation(checks, { together: true });
}

const matrixKey = (resource: LeaseResource) => (resource === "blob" ? "L-lease-states" : "L-container-lease-states");

/** The rows of a resource's table, one per cell, in the table's order (actions, then states). */
export function stateCellRows(resource: LeaseResource): RowDef[] {
  const r = RESOURCES[resource];
  return ACTIONS.flatMap((action) =>
    columnsOf(resource, action).map((column): RowDef => {
      const cell = cellOf(resource, action, column)!;
      return {
        id: `${r.prefix}${action}/${column}`,
        claim: cellAt(action, column),
        title: `${r.operation} ${ACTION_LABEL[action]}, lease ${stateLabel(column)}: ${cellText(cell.outcomes)}${action.startsWith("acquire") && lapses(column) ? " (409 LeaseAlreadyPresent within a minute of the expiry passes when a retry in that minute gets 201)" : ""}`,
        level: cell.level,
        source: r.source,
        service: "blob",
        waitSeconds: lapses(column) ? SHORTEST : undefined,
        // An acquire over an expired lease may wait out the minute the Lease Blob page allows.
        ...(action.startsWith("acquire") && lapses(column) ? { timeoutMs: 60_000 + SHORTEST * 1000 + REACQUIRE_TOLERANCE_MS } : {}),
        matrix: [{ section: matrixKey(resource), row: ACTION_LABEL[action], column, claim: cellText(cell.outcomes) }],
        answers: cellClaims(resource, action, column, cell.outcomes),
        run: (t: RowContext) => runStateCell(t, resource, action, column),
      };
    }),
  );
}

/** The matrix of a resource's table (the report's grid; its cells are the rows' places). */
export function defineStateMatrix(resource: LeaseResource, order: number): void {
  const r = RESOURCES[resource];
  defineMatrix({
    key: matrixKey(resource),
    title: `Lease actions × lease states (${r.operation})`,
    source: `REST: ${r.operation}, outcomes of lease operations on ${resource}s by lease state; A = the holder's ID, B = another ID; each cell sends every variation it covers`,
    order,
    columns: COLUMNS.map((state) => ({
      key: state,
      header:
        state === "available"
          ? "Available"
          : state === "expired-modified"
            ? "Expired(A), then written"
            : `${state[0].toUpperCase()}${state.slice(1)}(A)`,
    })),
    rowOrder: ACTIONS.map((action) => ACTION_LABEL[action]),
  });
}
