// `npm run selftest`: the suite's own tests (selftest/**/*.test.ts): unit
// tests, the catalogue lint, the mutant proxy, transport faults, the file
// double. Ends with the line `N passed, N failed, N skipped`.
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import Mocha from "mocha";
import dotenv from "dotenv";
import { filesEndingWith, loadMochaFiles } from "../fixtures/mocha-load.ts";

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
