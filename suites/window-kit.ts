// Timed claims, both ends (catalogue L break-period-holds and expiry-frees,
// for blobs and containers; Q invisible-until-end, initial-invisibility,
// message-ttl/expiry): a window a request opens (a break period, a finite
// lease, a visibility timeout, a message's time to live) holds until its end,
// by the server's clock, and lapses after it. Here: what a window claim is
// (how a row opens it and probes it, and how it looks on the wire: which
// request opens it, the parameter that sets its length, where the answer
// states its end, from which selftest/mutants/windows.ts generates a target
// that ends it early and the legal variation that ends it one second late),
// and the run of both ends. The claims and their openers are their
// service's: suites/blob/window*.ts, suites/queue/window*.ts.
import type { RowContext, RowDef } from "../fixtures/harness/engine.ts";
import { expectTrue, judgedBefore } from "../fixtures/harness/assert.ts";
import { defineTable } from "../fixtures/harness/registry.ts";
import type { WireRequest } from "../fixtures/wire/operations.ts";
import type { MatrixPlace } from "../model/matrix.ts";
import type { Level, Service } from "../model/result.ts";

export type WindowKind = "break-period" | "lease-expiry" | "get-visibility" | "update-visibility" | "put-visibility" | "message-ttl";

/** A window as the row opened it. */
export interface OpenWindow {
  /** Its end by the server's clock (ms): the opening answer's Date + the length asked, or the end the answer states. */
  end: number;
  /** Probes that the window is in force, sent together; they throw (an AssertionError) when it is not. */
  held(phase: "start" | "late"): Promise<void>;
  /** One probe after the end: whether the window has lapsed, and the server's Date of the answer. */
  lapsed(): Promise<{ lapsed: boolean; date: number }>;
  /** What must hold once it lapsed (a write without the ID succeeds; the message comes back with its text). */
  after(): Promise<void>;
  /** The server's Date, from a request that changes nothing. */
  clock(): Promise<number>;
}

export interface WindowWire {
  service: Service;
  /** Whether a request opens a window of this kind. */
  opens(req: WireRequest): boolean;
  /** What sets its length, in seconds, and the longest (and shortest, if any) the operation accepts. */
  length: { in: "header" | "query"; name: string; max: number; min?: number };
  /** Where the answer states its end: seconds left, or an HTTP date (a header or an XML element of the body). None: the answer's Date + the length asked. */
  end?: { in: "header" | "body"; name: string; form: "seconds-left" | "http-date" };
  /**
   * How a target that ends the window early is simulated: by asking for half
   * the length while the answer states the full one, or, where the operation
   * refuses a shorter length (a lease lasts 15 s at least), by reads that
   * report the window lapsed from halfway.
   */
  early: "shorter-length" | "reads-lapsed";
}

export interface WindowClaim {
  id: string;
  kind: WindowKind;
  /** For a lease window: whose lease. */
  resource?: "blob" | "container";
  /** Catalogue table the row belongs to. */
  table: string;
  service: Service;
  level: Level;
  title: string;
  source: string;
  /** The length the row asks for, in seconds (long enough to probe its last part). */
  seconds: number;
  wire: WindowWire;
  /** Its cells in the report's matrix, if the article's tables have it. */
  matrix?: MatrixPlace[];
}

/** One second for the granularity of the server's clock at each end (catalogue L, Q). */
export const GRANULARITY_MS = 1000;
/** A window may end this late and still be legal (a self-test variation; it must fail nothing). */
export const LEGAL_LATE_MS = 1000;

/**
 * The late probe starts this long before the window's end (server clock): in
 * its last part, yet with two seconds for a loaded target to answer before the
 * last one, where the end may legally have come (granularity).
 */
const LATE_PROBE_LEAD_MS = 3000;
/** The end an answer states is its own Date plus the length asked (one second allowed for the clock's granularity). */
export const expectStatedEnd = (what: string, end: number, answered: number, seconds: number) =>
  expectTrue(`${what} is not the answer's Date + ${seconds} s (±1 s)`, Math.abs(end - answered - seconds * 1000) <= GRANULARITY_MS);
export const when = (phase: "start" | "late") => (phase === "start" ? "right after the window opened" : "in the window's last part");

/**
 * A probe that the window holds. One answered only in the window's last second
 * or after it (server clock) proves nothing, at either end: the end may legally
 * have come, so a loaded target leaves the row without a verdict.
 */
async function probe(w: OpenWindow, phase: "start" | "late"): Promise<void> {
  // Dates are whole milliseconds: at or after end - GRANULARITY_MS + 1 is after end - GRANULARITY_MS.
  await judgedBefore(
    w.end - GRANULARITY_MS + 1,
    phase === "late"
      ? "the probe of the window's last part was answered only in its last second (server clock): too slow a target to tell"
      : "the probe right after the window opened was answered only in its last second or after its end (server clock): too slow a target to tell",
    () => w.held(phase),
  );
}

async function bothEnds(
  t: RowContext,
  claim: WindowClaim,
  open: (t: RowContext, claim: WindowClaim) => Promise<OpenWindow>,
): Promise<void> {
  const w = await open(t, claim);
  t.step("probe right after the window opened");
  await probe(w, "start");
  t.step("wait for the window's last part (server clock)");
  await t.waitForServerTime("the server's clock 3 s before the window's end", w.clock, (d) => d, w.end - LATE_PROBE_LEAD_MS, {
    timeoutMs: claim.seconds * 1000 + 20_000,
    intervalMs: 250,
  });
  t.step("probe in the window's last part");
  await probe(w, "late");
  t.step("after the window's end: lapsed by its end + 2 s (server clock)");
  await t.waitForServerTime("the server's clock past the window's end", w.clock, (d) => d, w.end, { timeoutMs: 20_000, intervalMs: 250 });
  const by = w.end + GRANULARITY_MS + LEGAL_LATE_MS;
  await t.waitFor(
    "the window lapsing",
    async () => {
      const p = await w.lapsed();
      expectTrue("the window was still in force 2 s after its end (server clock)", p.lapsed || p.date < by);
      return p.lapsed ? true : undefined;
    },
    { timeoutMs: 20_000, intervalMs: 250 },
  );
  await w.after();
}

/** Registers a service's window rows, each opened by its kind's opener. */
export function defineWindowRows(
  claims: WindowClaim[],
  openers: Partial<Record<WindowKind, (t: RowContext, claim: WindowClaim) => Promise<OpenWindow>>>,
): void {
  for (const table of [...new Set(claims.map((w) => w.table))]) {
    const rows: RowDef[] = claims
      .filter((w) => w.table === table)
      .map((claim) => ({
        id: claim.id,
        title: claim.title,
        level: claim.level,
        source: claim.source,
        service: claim.service,
        // Starts at once, outside the pool: the window's length plus its last second and the legal late one.
        waitSeconds: claim.seconds + 3,
        ...(claim.matrix ? { matrix: claim.matrix } : {}),
        run: (t) => bothEnds(t, claim, openers[claim.kind]!),
      }));
    defineTable({ table, service: rows[0].service }, rows);
  }
}
