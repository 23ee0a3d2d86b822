// A run's timeline, from its report (each row's startedMs and durationMs, each
// exchange's `at` and `ms`): how many requests were in flight over time, which
// rows ended last, and the floor a run cannot go under at a latency (the
// longest chain of a row: its mandated waits plus its sequential requests ×
// latency, or what the row took where its requests ran while it waited). For `npm run bench`; no test asserts on these figures.
import type { Exchange } from "../model/result.ts";

export interface TimedRow {
  id: string;
  startedMs?: number;
  durationMs: number;
  evidence: Exchange[];
}

/** The most requests in flight at once within each `bucketMs` of the run. */
export function inFlight(rows: TimedRow[], bucketMs: number): number[] {
  const events: [number, number][] = [];
  for (const r of rows) {
    if (r.startedMs === undefined) continue;
    for (const e of r.evidence) {
      if (e.at === undefined) continue;
      const start = r.startedMs + e.at;
      events.push([start, 1], [start + Math.max(e.ms, 1), -1]);
    }
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: number[] = [];
  let now = 0;
  for (const [t, d] of events) {
    now += d;
    const i = Math.floor(t / bucketMs);
    while (out.length <= i) out.push(0);
    out[i] = Math.max(out[i], now);
  }
  return out;
}

/** Requests a row made one after another, outside its waits' polls (requests sent together count once). */
export function sequentialRequests(evidence: Exchange[]): number {
  const spans = evidence
    .filter((e) => !e.poll && e.at !== undefined)
    .map((e) => [e.at!, e.at! + e.ms])
    .sort((a, b) => a[1] - b[1]);
  let n = 0;
  let end = -Infinity;
  for (const [s, e] of spans) {
    if (s < end) continue;
    n++;
    end = e;
  }
  return n;
}

export interface Chain {
  id: string;
  waitS: number;
  sequential: number;
  /** When the row ended, s from the run's start. */
  endS: number;
  durationS: number;
}

/** Each row's chain: its mandated wait, its sequential requests, when it ended. */
export function chainsOf(rows: TimedRow[], waitOf: (id: string) => number): Chain[] {
  return rows.map((r) => ({
    id: r.id,
    waitS: waitOf(r.id),
    sequential: sequentialRequests(r.evidence),
    endS: ((r.startedMs ?? 0) + r.durationMs) / 1000,
    durationS: r.durationMs / 1000,
  }));
}

/**
 * A row's chain at a latency: its mandated waits plus its sequential requests
 * × the latency, but never more than the row took (a row that sends its
 * requests while it waits, as the lease model does within its time budget,
 * pays the wait once).
 */
export const chainAt = (c: Chain, latencyMs: number): number => Math.min(c.durationS, c.waitS + (c.sequential * latencyMs) / 1000);

/** The floor at a latency: the longest chain (chainAt), and its row. */
export function floorAt(chains: Chain[], latencyMs: number): { s: number; row: Chain } {
  const row = [...chains].sort((a, b) => chainAt(b, latencyMs) - chainAt(a, latencyMs))[0];
  return { s: Math.round(chainAt(row, latencyMs) * 10) / 10, row };
}

/** The rows that ended last, latest first. */
export const endedLast = (chains: Chain[], n: number): Chain[] => [...chains].sort((a, b) => b.endS - a.endS).slice(0, n);

/** In words: "in flight (max per 2 s): 8 40 130 …" and the rows that ended last with their chains. */
export function describeTimeline(rows: TimedRow[], chains: Chain[], latencyMs: number): string[] {
  const flight = inFlight(rows, 2000);
  const last = endedLast(chains, 5).map(
    (c) =>
      `${c.id} at ${c.endS.toFixed(1)} s (${c.waitS} s of waits, ${c.sequential} sequential requests: a chain of ${chainAt(c, latencyMs).toFixed(1)} s at ${latencyMs} ms; took ${c.durationS.toFixed(1)} s)`,
  );
  return [
    `requests in flight, most per 2 s: ${flight.join(" ")} (peak ${Math.max(0, ...flight)})`,
    `rows that ended last: ${last.join("; ")}`,
  ];
}
