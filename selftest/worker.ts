// One self-test process: runs the given test files under mocha (spec
// reporter) and writes its tallies to the file named by --tally, for
// selftest/run.ts, which runs several of these side by side.
//   node --import tsx selftest/worker.ts --tally <path> [--grep <re>] <file>...
import { writeFileSync } from "node:fs";
import Mocha from "mocha";
import dotenv from "dotenv";
import { loadMochaFiles } from "../fixtures/mocha-load.ts";

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
const failures = await new Promise<number>((done) => {
  const runner = mocha.run((n) => done(n));
  runner.on("end", () => {
    const s = runner.stats!;
    if (tally) writeFileSync(tally, JSON.stringify({ passes: s.passes, failures: s.failures, pending: s.pending }));
  });
});
process.exit(failures > 0 ? 1 : 0);
