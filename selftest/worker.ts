// One self-test process: runs the given test files under mocha (spec
// reporter) and writes its tallies to the file named by --tally, for
// selftest/run.ts, which runs several of these side by side.
//   node --import tsx selftest/worker.ts --tally <path> [--grep <re>] <file>...
import { readFileSync, writeFileSync } from "node:fs";
import Mocha from "mocha";
import dotenv from "dotenv";
import { loadMochaFiles } from "../fixtures/mocha-load.ts";
import { stopSharedAzurite } from "./azurite-fixture.ts";

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
/** CPU time of this process and of the children it has waited for (Azurite, CLI runs, npm), from /proc where there is one. */
function cpuSeconds(): number {
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
/** Seconds spent in each file's top-level suites (a process may run several files). */
const perFile: Record<string, number> = {};
const began = new Map<Mocha.Suite, number>();
const topLevel = (s: Mocha.Suite) => !!s.file && !!s.parent?.root;
/** Each failing test with the head of its error, for run.ts to print again at the very end (a CI log keeps only its tail). */
const failing: { title: string; error: string }[] = [];
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
if (tally) writeFileSync(tally, JSON.stringify({ passes: stats.passes, failures: stats.failures, pending: stats.pending, cpuSeconds: cpuSeconds(), perFile, failing }));
process.exit(stats.failures > 0 ? 1 : 0);
