// Progress of a run: rows done/total, waits still pending (rows that must let
// a lease lapse or a message reappear), FAILs so far. On a terminal one live
// line under the row lines (log-update); elsewhere (CI, a pipe) a plain line
// every few seconds.
import logUpdate from "log-update";
import { failsRun, type RowResult } from "../model/result.ts";

export const PLAIN_EVERY_MS = 10_000;

export class Progress {
  private done = 0;
  private fails = 0;
  private waitsLeft: Set<string>;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private write: (line: string) => void;
  readonly live: boolean;

  constructor(
    private total: number,
    waits: Iterable<string>,
    opts: { live?: boolean; write?: (line: string) => void } = {},
  ) {
    this.waitsLeft = new Set(waits);
    this.live = opts.live ?? (!!process.stdout.isTTY && !process.env.CI);
    this.write = opts.write ?? ((line) => console.log(line));
    if (!this.live) this.timer = setInterval(() => this.write(`progress: ${this.text()}`), PLAIN_EVERY_MS).unref();
  }

  text(): string {
    const waits = this.waitsLeft.size;
    return `${this.done}/${this.total} rows done, ${waits} wait${waits === 1 ? "" : "s"} pending, ${this.fails} FAIL${this.fails === 1 ? "" : "s"} so far`;
  }

  /** A row's final result (after expectations). */
  result(r: RowResult): void {
    this.done++;
    if (failsRun(r)) this.fails++;
    this.waitsLeft.delete(r.id);
    if (this.live && !this.stopped) logUpdate(this.text());
  }

  /** Prints a line above the live line. */
  print(line: string): void {
    if (!this.live || this.stopped) return this.write(line);
    logUpdate.clear();
    this.write(line);
    logUpdate(this.text());
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    if (this.live) {
      logUpdate.clear();
      logUpdate.done();
    }
  }
}
