// Makes the shared runs (shared.ts) when `npm run selftest` starts, in a
// process of its own: the installed package's run (cli/installed-run.ts) and
// the external run (cli/external-run.ts), whose proxy then lives in a process
// with nothing else to do. The files that read them wait for them; run.ts
// starts the model kill rates once they are made (see there). A run that
// could not be made fails the files that read it, with its error: here it
// counts nothing.
//   node --import tsx selftest/shared-runs.ts --tally <path>
import { externalRun } from "./cli/external-run.ts";
import { installedRun } from "./cli/installed-run.ts";
import { cpuSeconds, writeTally } from "./tally.ts";

const at = process.argv.indexOf("--tally");
const tally = at < 0 ? undefined : process.argv[at + 1];
await Promise.allSettled([installedRun(), externalRun()]);
writeTally(tally, { passes: 0, failures: 0, pending: 0, cpuSeconds: cpuSeconds() });
