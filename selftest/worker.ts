// One self-test process: runs the given test files under mocha (spec
// reporter) and writes its tallies to the file named by --tally, for
// selftest/run.ts, which runs several of these side by side.
//   node --import tsx selftest/worker.ts --tally <path> [--grep <re>] <file>...
import Mocha from "mocha";
import dotenv from "dotenv";
import { loadMochaFiles } from "./mocha-load.ts";
import { stopSharedAzurite } from "./azurite-fixture.ts";
import { cpuSeconds, writeTally, type Tally } from "./tally.ts";

dotenv.config({ path: "/dev/null", quiet: true });
const args = process.argv.slice(2);
const take = (flag: string) => {
  const i = args.indexOf(flag);
  return i < 0 ? undefined : args.splice(i, 2)[1];
};
const tally = take("--tally");
const grep = take("--grep");
const mocha = new Mocha({ reporter: "spec", timeout: 15 * 60_000, grep });
await loadMochaFiles(mocha, args);
/** Seconds spent in each file's top-level suites (a process may run several files). */
const perFile: Record<string, number> = {};
const began = new Map<Mocha.Suite, number>();
const topLevel = (s: Mocha.Suite) => !!s.file && !!s.parent?.root;
/** Each failing test with the head of its error (see tally.ts). */
const failing: NonNullable<Tally["failing"]> = [];
const stats = await new Promise<Mocha.Stats>((done) => {
  const runner = mocha.run(() => done(runner.stats!));
  runner.on("fail", (test, err: Error) => failing.push({ title: test.fullTitle(), error: String(err?.message ?? err).slice(0, 2000) }));
  runner.on("suite", (s) => void (topLevel(s) && began.set(s, Date.now())));
  runner.on("suite end", (s) => {
    if (topLevel(s)) perFile[s.file!] = (perFile[s.file!] ?? 0) + (Date.now() - began.get(s)!) / 1000;
  });
});
// Stopped (and reaped) before the CPU time is read, so the figure includes it.
await stopSharedAzurite();
writeTally(tally, { passes: stats.passes, failures: stats.failures, pending: stats.pending, cpuSeconds: cpuSeconds(), perFile, failing });
process.exit(stats.failures > 0 ? 1 : 0);
