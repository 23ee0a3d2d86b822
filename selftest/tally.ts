// What a self-test process reports to selftest/run.ts through the file named
// by --tally: its tests' counts, its CPU time, the failing tests.
import { readFileSync, writeFileSync } from "node:fs";

export interface Tally {
  passes: number;
  failures: number;
  pending: number;
  /** CPU seconds of the process and of the children it has waited for (Azurite, CLI runs, npm). */
  cpuSeconds?: number;
  /** Seconds per file, where a process ran several. */
  perFile?: Record<string, number>;
  /** The failing tests and the head of each error (run.ts prints them again at the very end: a CI log keeps only its tail). */
  failing?: { title: string; error: string }[];
}

/** CPU time of this process and of the children it has waited for, from /proc where there is one. */
export function cpuSeconds(): number {
  const own = process.cpuUsage();
  let children = 0;
  try {
    // Fields after the command's closing parenthesis: cutime and cstime are the 14th and 15th, in clock ticks (100 a second on Linux).
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    children = (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    // no /proc: our own time only
  }
  return (own.user + own.system) / 1e6 + children;
}

export function writeTally(path: string | undefined, tally: Tally): void {
  if (path) writeFileSync(path, JSON.stringify(tally));
}
