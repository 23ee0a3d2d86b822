// The blob lease model's plan (catalogue M, `blob/lease/model`): how many
// sequences of which commands (lease-model-commands.ts) on which resource, and
// the time budget each sequence keeps. fast-check draws each sequence's
// commands from these with the run's seed; lease-model-driver.ts runs them.
import fc from "fast-check";
import { SHORTEST } from "./lease-kit.ts";
import type { Model, Real } from "./lease-model-check.ts";
import { LeaseCommand, NearEndWait, ReadCommand, Then, WaitCommand, WriteCommand, type IdMode, type Role } from "./lease-model-commands.ts";
import { MARGIN_MS, type Verb } from "./lease-reference.ts";

/**
 * Sequences per run (side by side, one resource each) and commands per
 * sequence: SEQUENCES draw from COMMANDS on blobs (half of them start from a
 * 15 s lease, so an expiry is always within their budget), BREAK_END_SEQUENCES
 * more begin by breaking a lease with a short period and waiting to the
 * break's last seconds (a wait that would leave no budget for the expiry the
 * others wait across), and CONTAINER_SEQUENCES act on container leases (the
 * last of them a break-end one, the second starting from a 15 s lease).
 */
export const SEQUENCES = 16;
export const BREAK_END_SEQUENCES = 4;
export const CONTAINER_SEQUENCES = 4;
export const MAX_COMMANDS = 40;
/**
 * A sequence starts no command later than this after its setup (server time):
 * one expiry and its margin, plus 2 s. Locally all commands fit long before;
 * against a slow target (100-300 ms per request) a sequence runs the prefix
 * that fits, so the row costs one expiry, not MAX_COMMANDS round trips on top.
 */
export const BUDGET_MS = (SHORTEST + 4) * 1000;
/**
 * The round trips a sequence makes outside its budget: its setup's (a blob
 * written twice in the row's container, its lease acquired) and those the
 * last command begun within the budget may still take (a wait's write and
 * renew, each read back). Against a slow target the deadline comes that much
 * sooner, at most TAIL_MAX_MS (so a wait across a 15 s lease's expiry and its
 * margin still fits a sequence that starts from one: 15 + 2 s of a 19 s
 * budget), and a sequence ends about when a local one does. The round trip is
 * the setup's quicker write, by the local clock (scheduling only: the budget
 * itself is the server's clock).
 */
export const ROUND_TRIPS_OUTSIDE = 8;
export const TAIL_MAX_MS = BUDGET_MS - SHORTEST * 1000 - MARGIN_MS;
/** The time after which a sequence starts no command: `now` (server time) + BUDGET_MS, less its round trips outside the budget. */
export const deadlineFrom = (now: number, roundTripMs: number): number =>
  now + BUDGET_MS - Math.min(ROUND_TRIPS_OUTSIDE * roundTripMs, TAIL_MAX_MS);
const BREAK_PERIOD = 60;
/**
 * A break period short enough to wait to its last seconds within the budget,
 * long enough that a break ending at half of it is over well before (server
 * clock): one ending at 7 s reads Broken from then until the wait stops at
 * 11 s (the end less the margin less 1 s). With 10 s that was 5 s to 7 s,
 * which a loaded target's slow reads could miss altogether.
 */
const SHORT_BREAK = 14;

const RENEW_AFTER_WRITE = new Then(new WaitCommand(), new WriteCommand("none", "none"), new LeaseCommand("renew", "holder", 0, 0));
// An infinite lease broken with the short period, then a wait to its last seconds.
export const NEAR_BREAK_END = new Then(
  new LeaseCommand("acquire", "holder", -1, 0),
  new LeaseCommand("break", "holder", 0, SHORT_BREAK),
  new NearEndWait(),
);
// The wait, alone or followed by a write without a lease ID (column
// expired-modified) and renew with the old ID there (Azurite#2352's path), which half of the waits take.
const EXPIRY_WAITS = [
  fc.constant(new WaitCommand()),
  fc.constantFrom(new Then(new WaitCommand(), new WriteCommand("none", "none")), RENEW_AFTER_WRITE),
  fc.constant(RENEW_AFTER_WRITE),
];
// Weighted towards the holder's ID, so sequences go deep into the table rather than stay refused.
const role = fc.constantFrom<Role>("holder", "holder", "other");
const COMMANDS = [
  fc.tuple(role, fc.constantFrom(SHORTEST, SHORTEST, -1)).map(([r, d]) => new LeaseCommand("acquire", r, d, 0)),
  fc.tuple(role, fc.constantFrom(SHORTEST, SHORTEST, -1)).map(([r, d]) => new LeaseCommand("acquire", r, d, 0)),
  role.map((r) => new LeaseCommand("renew", r, 0, 0)),
  fc.constant(new LeaseCommand("change", "holder", 0, 0)),
  role.map((r) => new LeaseCommand("release", r, 0, 0)),
  fc.constantFrom(0, BREAK_PERIOD).map((p) => new LeaseCommand("break", "holder", 0, p)),
  fc
    .tuple(
      fc.constantFrom<IdMode>("none", "holder", "holder", "other"),
      fc.constantFrom("none", "none", "current", "stale") as fc.Arbitrary<"none" | "current" | "stale">,
    )
    .map(([id, c]) => new WriteCommand(id, c)),
  fc
    .tuple(
      fc.constantFrom<IdMode>("none", "holder", "other"),
      fc.constantFrom("none", "if-none-match-current", "if-match-stale") as fc.Arbitrary<
        "none" | "if-none-match-current" | "if-match-stale"
      >,
    )
    .map(([id, c]) => new ReadCommand(id, c)),
  ...EXPIRY_WAITS,
  // After a change the old ID is "another ID": acting with it must be refused.
  fc
    .constantFrom<Verb>("renew", "release")
    .map((v) => new Then(new LeaseCommand("change", "holder", 0, 0), new LeaseCommand(v, "other", 0, 0))),
];
/**
 * The same but the expiry waits, and a short break period with a wait near its
 * end, alone (on whatever Breaking lease the sequence has) or after breaking a lease.
 */
const BREAK_END_COMMANDS = [
  ...COMMANDS.filter((c) => !EXPIRY_WAITS.includes(c)),
  fc.constant(new LeaseCommand("break", "holder", 0, SHORT_BREAK)),
  fc.constantFrom<fc.AsyncCommand<Model, Real>>(new NearEndWait(), NEAR_BREAK_END),
  fc.constant(NEAR_BREAK_END),
];

/**
 * Container sequences: the same, with more of the writes a container lease
 * leaves shared (Set Container Metadata takes no ETag condition, so the
 * conditional writes drawn above do not run there).
 */
const SHARED_WRITES = fc.constantFrom<IdMode>("none", "none", "holder").map((id) => new WriteCommand(id, "none"));
const CONTAINER_COMMANDS = [...COMMANDS, SHARED_WRITES, SHARED_WRITES];
const CONTAINER_BREAK_END_COMMANDS = [...BREAK_END_COMMANDS, SHARED_WRITES, SHARED_WRITES];

// Blob sequences first (their seeds are the run's seed + 0..19), then the container ones.
export const PLANS = [
  ...Array.from({ length: SEQUENCES }, (_, i) => ({
    resource: "blob" as const,
    commands: COMMANDS,
    start: i % 2 === 1 ? ("leased" as const) : ("available" as const),
  })),
  ...Array.from({ length: BREAK_END_SEQUENCES }, () => ({
    resource: "blob" as const,
    commands: BREAK_END_COMMANDS,
    start: "near-break-end" as const,
  })),
  ...Array.from({ length: CONTAINER_SEQUENCES }, (_, i) =>
    i < CONTAINER_SEQUENCES - 1
      ? { resource: "container" as const, commands: CONTAINER_COMMANDS, start: i % 2 === 1 ? ("leased" as const) : ("available" as const) }
      : { resource: "container" as const, commands: CONTAINER_BREAK_END_COMMANDS, start: "near-break-end" as const },
  ),
];
