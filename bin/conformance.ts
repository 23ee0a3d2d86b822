#!/usr/bin/env node
// Command line: `npm test` (this file, through tsx), or
// `npx azure-storage-concurrency-conformance …` (its compiled dist/bin/conformance.js).
// Exit codes: 0 all good, 1 a FAIL or UNEXPECTED_PASS, 2 bad input (one line
// on stderr, before any test runs), 3 internal error (one line; the stack with
// CONFORMANCE_DEBUG=1), 4 incomplete (rows INCONCLUSIVE, none failing), 130
// interrupted.
import { Command, Option } from "commander";
import dotenv from "dotenv";
import { resolveConfig, type Flags } from "../fixtures/config.ts";
import { ConfigError, resolveConnectionString } from "../fixtures/target.ts";
import { parseArgs, withOneLineErrors } from "./cli-kit.ts";

const program = withOneLineErrors(
  new Command()
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
    .option("--concurrency <n|auto>", "rows run at once (env CONFORMANCE_CONCURRENCY; default auto: sized from the target's round trip)")
    .option("--request-timeout <ms>", "per-try request timeout (env CONFORMANCE_REQUEST_TIMEOUT_MS, default 10000)")
    .option("--max-tries <n>", "tries per request; 500, 502, 503, 504, 408 and resets are retried (env CONFORMANCE_MAX_TRIES, default 4)")
    .option("--seed <n>", "seed of the model rows' random sequences, to replay a run (env CONFORMANCE_SEED; default a fresh one, printed in each model row's notes)")
    .option("--list", "list the selected rows (ID, level, file:line of its code, title) and run nothing")
    .addOption(new Option("--no-cleanup", "keep what the run created (env CONFORMANCE_CLEANUP=false)"))
    .option("--env-file <path>", "dotenv file to read", ".env"),
);

const SOURCE_LINE = new RegExp("\\.(ts|mjs|js):\\d+");

/** One line for a crash of the suite itself (not the target's fault, not the input's). */
function internalError(err: unknown): number {
  const e = err as Error;
  const where = e?.stack?.split("\n").find((l) => SOURCE_LINE.test(l) && !l.includes("node_modules"))?.trim();
  console.error(
    `internal error: ${(e?.message ?? String(err)).split("\n")[0]}${where ? ` (${where})` : ""}; ` +
      "this is a bug in the suite, please report it (CONFORMANCE_DEBUG=1 prints the stack).",
  );
  if (process.env.CONFORMANCE_DEBUG) console.error(e?.stack ?? err);
  return 3;
}

const crash = (err: unknown) => process.exit(internalError(err));
process.on("uncaughtException", crash);
process.on("unhandledRejection", crash);

async function main(): Promise<number> {
  const stop = parseArgs(program);
  if (stop !== undefined) return stop;
  const opts = program.opts<Flags & { envFile: string; cleanup: boolean; list?: boolean }>();
  dotenv.config({ path: opts.envFile, quiet: true });
  try {
    const config = resolveConfig({ ...opts, cleanup: opts.cleanup === false ? false : undefined });
    if (opts.list) {
      const { listRows } = await import("../fixtures/list-rows.ts");
      return await listRows(config);
    }
    // A malformed connection string is reported before anything heavy loads.
    if (config.connectionString) resolveConnectionString(config.connectionString);
    // The embedded Azurite starts while the SDKs and suites load: they take about as long.
    const early = config.connectionString ? undefined : import("../fixtures/azurite.ts").then((m) => m.startAzurite());
    early?.catch(() => undefined);
    // Loaded only now: --help and bad settings answer without loading the SDKs.
    const { runSuite } = await import("../fixtures/run-suite.ts");
    return await runSuite(config, early);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`error: ${err.message}`);
      return 2;
    }
    return internalError(err);
  }
}

main().then((code) => process.exit(code));
