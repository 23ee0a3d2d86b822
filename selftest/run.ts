// `npm run selftest`: the suite's own tests (selftest/**/*.test.ts): unit
// tests, the catalogue lint, the mutant proxy, transport faults, the file
// double. Ends with the line `N passed, N failed, N skipped`.
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import Mocha from "mocha";
import dotenv from "dotenv";
import { filesEndingWith, loadMochaFiles } from "../fixtures/mocha-load.ts";

if (process.argv[2] === "--help" || process.argv[2] === "-h") {
  console.log("Usage: npm run selftest [-- <grep>]\n\nRuns the suite's own tests (selftest/**/*.test.ts), or those whose title matches <grep> (a regular expression).\nSELFTEST_CHAOS=1 adds the busy-target runs. Ends with `N passed, N failed, N skipped`.");
  process.exit(0);
}
dotenv.config({ path: "/dev/null", quiet: true });
const here = dirname(fileURLToPath(import.meta.url));
const grep = process.argv[2];
const mocha = new Mocha({ reporter: "spec", timeout: 15 * 60_000, grep });
await loadMochaFiles(mocha, filesEndingWith(here, ".test.ts"));
const started = Date.now();
const failures = await new Promise<number>((done) => {
  const runner = mocha.run((n) => done(n));
  runner.on("end", () => {
    const s = runner.stats!;
    console.log(`\nselftest wall time: ${Math.round((Date.now() - started) / 1000)} s`);
    console.log(`${s.passes} passed, ${s.failures} failed, ${s.pending} skipped`);
  });
});
process.exit(failures > 0 ? 1 : 0);
