// One run of the CLI from source against the embedded Azurite (a fixed seed,
// every report written), shared (selftest/shared.ts) by the self-test files
// that compare another run with it: cli/runs.test.ts (an external emulator)
// and cli/package.test.ts (the installed package).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { sharedOnce } from "../shared.ts";
import { runCli, type CliResult } from "./cli-kit.ts";

/** The seed of the shared run's model rows (a run to compare with it uses the same). */
export const SOURCE_SEED = "20261124";

export interface SourceRun {
  /** Its report directory. */
  dir: string;
  cli: CliResult;
}

export function sourceRun(): Promise<SourceRun> {
  return sharedOnce("source-run", async (home) => {
    const dir = join(home, "reports");
    mkdirSync(dir);
    return { dir, cli: await runCli(["--seed", SOURCE_SEED, "--report-dir", dir], {}, 300_000) };
  });
}
