#!/usr/bin/env -S node --import tsx
// Command line: `npm test`, or `npx azure-storage-concurrency-conformance …`.
import { Command, Option } from "commander";
import dotenv from "dotenv";
import { resolveConfig, type Flags } from "../fixtures/config.ts";
import { runSuite } from "../fixtures/run-suite.ts";
import { ConfigError } from "../fixtures/target.ts";

const program = new Command()
  .name("azure-storage-concurrency-conformance")
  .description(
    "Checks that an Azure Storage endpoint keeps the documented concurrency promises (ETags, conditional requests, leases, pop receipts, visibility timeouts).\n" +
      "With no connection string it starts an embedded Azurite. Flags override environment variables (see .env.example).",
  )
  .option("-c, --connection-string <cs>", "target connection string (env AZURE_STORAGE_CONNECTION_STRING)")
  .option("-r, --report-dir <dir>", "where reports are written (env CONFORMANCE_REPORT_DIR, default reports)")
  .option("-s, --services <list>", "comma-separated services to run: blob,queue,table,file (env CONFORMANCE_SERVICES)")
  .option("-g, --grep <pattern>", "run only rows whose ID or title matches (env CONFORMANCE_GREP)")
  .option("-e, --expectations <name|path|none>", "expectation file (env CONFORMANCE_EXPECTATIONS; default chosen from the target)")
  .option("--concurrency <n>", "rows run at once (env CONFORMANCE_CONCURRENCY, default 8)")
  .option("--request-timeout <ms>", "per-try request timeout (env CONFORMANCE_REQUEST_TIMEOUT_MS, default 10000)")
  .option("--max-tries <n>", "tries per request (env CONFORMANCE_MAX_TRIES, default 3)")
  .addOption(new Option("--no-cleanup", "keep what the run created (env CONFORMANCE_CLEANUP=false)"))
  .option("--env-file <path>", "dotenv file to read (default .env)", ".env")
  .showHelpAfterError()
  .configureOutput({ outputError: (str, write) => write(str.split("\n")[0] + "\n") })
  .exitOverride();

async function main(): Promise<number> {
  try {
    program.parse();
  } catch (err) {
    const e = err as { exitCode?: number; code?: string };
    return e.code === "commander.helpDisplayed" || e.code === "commander.version" ? 0 : 2;
  }
  const opts = program.opts<Flags & { envFile: string; cleanup: boolean }>();
  dotenv.config({ path: opts.envFile, quiet: true });
  try {
    const config = resolveConfig({ ...opts, cleanup: opts.cleanup === false ? false : undefined });
    return await runSuite(config);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`error: ${err.message}`);
      return 2;
    }
    console.error(`error: ${(err as Error).message}`);
    return 2;
  }
}

main().then((code) => process.exit(code));
