// The blob lease model's checker (catalogue M, `blob/lease/model`): a
// sequence's state, and each answer and the lease read back after it judged
// against the reference (lease-reference.ts) at the server's time. A departure
// fails with the sequence's steps so far.
import { AssertionError } from "chai";
import type { RowContext } from "../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { leaseViewOf, readLease, serverDate, type LeaseTarget, type LeaseView } from "./lease-kit.ts";
import {
  describeModel,
  readBackAgrees,
  settle,
  stepModel,
  wantedAt,
  type LeaseCommand as Cmd,
  type LeaseModel,
  type Who,
} from "./lease-reference.ts";

/** A sequence's state: the reference's (lease-reference.ts) and what runs the sequence. */
export interface Model {
  ref: LeaseModel;
  waited: boolean;
  /** A wait to a break's last seconds was made (one per sequence, like the wait past an end). */
  nearEnd: boolean;
  /** Left the model at a deviation pinned for its own state row: the sequence stops there. */
  off?: string;
  /** Server time of the last answer, and the time after which no command starts (BUDGET_MS). */
  now: number;
  deadline: number;
  /** Shared by the row's sequences: once one failed in a run that does not shrink, the verdict is FAIL and the others start no more commands. */
  row: { stopped: boolean };
}

/** Commands start while the sequence's time budget lasts. */
export const open = (m: Readonly<Model>) => !m.off && !m.row.stopped && m.now < m.deadline;

export interface Step {
  action: string;
  expected: string;
  observed: string;
}

export interface Real {
  t: RowContext;
  x: LeaseTarget;
  ids: Record<Who, string>;
  steps: Step[];
  writes: number;
  /** Commands executed, waits made (past an end, and to a break's last seconds), and sequences the time budget ended (across every sequence of the row). */
  executed: { n: number; waits: number; nearEnd: number; cut: number };
}

export const show = (res: RawResponse) => `${res.status}${res.errorCode ? " " + res.errorCode : ""}`;
const TABLE_TEXT = {
  blob: "the Lease Blob table and the lease-ops rules",
  container: "the Lease Container table and the container lease rules",
} as const;

export const fail = (r: Real, m: Model, step: Step): never => {
  r.steps.push(step);
  const table = r.steps
    .map((s, i) => `${String(i + 1).padStart(2)}. ${s.action} | expected ${s.expected} | observed ${s.observed}`)
    .join("\n");
  // Its sequence runs beside others: the departing step's own data, not the row's current step.
  throw new AssertionError(
    `the target departed from the lease model (${TABLE_TEXT[m.ref.resource]})\nin state ${describeModel(m.ref)}:\n${table}`,
    {
      failure: { step: step.action, expected: step.expected, got: step.observed },
    },
  );
};

/** What the reference reads of an answer: a container's read shows its metadata value, a blob's its content. */
const answerOf = (r: Real, res: RawResponse) => ({
  headers: res.headers,
  body: r.x.kind === "container" ? (res.headers["x-ms-meta-state"] ?? "") : res.body,
});

/**
 * Sends a request, finds a state (of those the server's time allows) whose
 * expected answer it is (lease-reference.ts), then reads the lease back and
 * checks it too.
 */
export async function step(
  m: Model,
  r: Real,
  action: string,
  cmd: Cmd,
  send: () => Promise<RawResponse>,
  pinnedCell?: (c: LeaseModel, res: RawResponse) => string | undefined,
): Promise<Model> {
  r.t.step(action);
  r.executed.n++;
  const res = await send();
  const now = serverDate(res).getTime();
  const options = stepModel(m.ref, cmd, now, res.status, res.errorCode, answerOf(r, res));
  const wanted = wantedAt(m.ref, cmd, now);
  if (options.length === 0) {
    const pinned = settle(m.ref, now)
      .map((c) => pinnedCell?.(c, res))
      .find(Boolean);
    if (pinned) {
      r.steps.push({ action, expected: wanted.join(" or "), observed: `${show(res)}, as pinned for ${pinned}` });
      r.t.note("pinned deviations met", [...new Set([...((r.t.notes["pinned deviations met"] as string[]) ?? []), pinned])]);
      return { ...m, off: pinned };
    }
    fail(r, m, { action, expected: wanted.join(" or "), observed: show(res) });
  }
  const v = leaseIn(res) ?? (r.t.step(`${action}: read the lease back`), await readLease(r.t, r.x));
  const agreeing = options.flatMap((c) => settle(c, v.date!.getTime())).filter((c) => readBackAgrees(c, v));
  const seen = `${show(res)}, then ${v.state}/${v.status}${v.duration ? "/" + v.duration : ""}${v.etag === m.ref.etag ? "" : ", ETag changed"}`;
  if (agreeing.length === 0)
    fail(r, m, { action, expected: `${wanted.join(" or ")}, then ${options.map(describeModel).join(" or ")}`, observed: seen });
  r.steps.push({ action, expected: wanted.join(" or "), observed: seen });
  return { ...m, ref: agreeing[0], now: v.date!.getTime() };
}

/** The lease read back, as state/status ("none" for a header the answer lacks). */
export const leaseShown = (v: LeaseView) => `${v.state ?? "none"}/${v.status ?? "none"}`;

/** A read that succeeded reads the lease itself (x-ms-lease-state, -status, -duration, ETag): no second read is needed. */
function leaseIn(res: RawResponse): LeaseView | undefined {
  if (res.status !== 200 || !res.headers["x-ms-lease-state"]) return undefined;
  // The model's clock is the answer's Date: one without it fails the row, naming it.
  return { ...leaseViewOf(res), date: serverDate(res) };
}
