// One run of the CLI from source against an external emulator: a second
// Azurite of the embedded version with an account and key of its own, by
// connection string, through the proxy with no mutant, which serves the
// account below a path as a gateway does (every request must go below it,
// signed for it), with the seed of the installed package's embedded run
// (cli/installed-run.ts). Shared
// (selftest/shared.ts) by the files that compare with a correct target:
// cli/package.test.ts (the installed package gives a run from source's
// verdicts), cli/runs.test.ts (an external emulator gives the embedded run's
// verdicts, and leaks no secret), mutation.test.ts (the proxy changes no
// verdict), concurrency.test.ts and, through baseline.ts, those that compare
// a deviating target with it. One full run serves them
// all: a difference still names its rows, and the run's evidence says which
// account, endpoint and proxy it went through.
import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { EmbeddedAzurite } from "../../fixtures/azurite/azurite.ts";
import { Clients } from "../../fixtures/wire/clients.ts";
import { listOurs } from "../../fixtures/wire/cleanup.ts";
import { NAME_PREFIX } from "../../fixtures/wire/names.ts";
import { resolveConnectionString } from "../../fixtures/wire/target.ts";
import { prefixedConnectionString, startProxy } from "../proxy.ts";
import { sharedOnce } from "../shared.ts";
import { accountConnectionString, endedWithReport, privateAzurite, runCliFromSource, type CliResult } from "./cli-kit.ts";
import { RUN_SEED } from "./installed-run.ts";

export const EXTERNAL_ACCOUNT = "certacct1";
/** The path the proxy serves the account below, as a gateway does: every request of the run must go below it, signed for it. */
export const GATEWAY_PATH = "gateway/storage";

export interface ExternalRun {
  /** Its report directory. */
  dir: string;
  cli: CliResult;
  /** The account's key (a secret no output may show). */
  key: string;
  /** Resources with the suite's name prefix on the emulator after the run. */
  left: Record<string, string[]>;
}

/** Resources with the suite's name prefix on an Azurite of EXTERNAL_ACCOUNT with this key. */
export function leftOn(azurite: Pick<EmbeddedAzurite, "ports">, key: string): Promise<Record<string, string[]>> {
  const clients = new Clients(resolveConnectionString(accountConnectionString(azurite, EXTERNAL_ACCOUNT, { key })));
  return listOurs(clients, ["blob", "queue", "table"], NAME_PREFIX);
}

export function externalRun(): Promise<ExternalRun> {
  return sharedOnce("external-run", async (home) => {
    const dir = join(home, "reports");
    mkdirSync(dir);
    const key = randomBytes(64).toString("base64");
    const azurite = await privateAzurite(`${EXTERNAL_ACCOUNT}:${key}`);
    try {
      const proxy = await startProxy({ upstream: azurite.ports, pathPrefix: GATEWAY_PATH, accountKey: key });
      let cli: CliResult;
      try {
        const connectionString = prefixedConnectionString(proxy.ports, GATEWAY_PATH, EXTERNAL_ACCOUNT, key);
        cli = await runCliFromSource(
          ["--seed", RUN_SEED, "--report-dir", dir],
          { AZURE_STORAGE_CONNECTION_STRING: connectionString },
          300_000,
        );
      } finally {
        await proxy.stop();
      }
      endedWithReport(cli, "the external run");
      if (proxy.stats.outsidePrefix)
        throw new Error(`the external run sent ${proxy.stats.outsidePrefix} request(s) outside the endpoint's path /${GATEWAY_PATH}`);
      return { dir, cli, key, left: await leftOn(azurite, key) };
    } finally {
      await azurite.stop();
    }
  });
}
