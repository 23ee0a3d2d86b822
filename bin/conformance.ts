#!/usr/bin/env node
// Command line: `npm test` (this file, through tsx), or
// `npx azure-storage-concurrency-conformance …` (its compiled dist/bin/conformance.js).
// Exit codes: 0 all good, 1 a FAIL or UNEXPECTED_PASS, 2 bad input (one line
// on stderr, before any test runs), 3 internal error (one line; the stack with
// CONFORMANCE_DEBUG=1), 4 incomplete (rows INCONCLUSIVE, none failing), 130
// interrupted.
import { Command } from "commander";
import dotenv from "dotenv";
import { resolveConfig, type Flags } from "../fixtures/run/config.ts";
import { ConfigError, resolveConnectionString } from "../fixtures/wire/target.ts";
import { parseArgs, withOneLineErrors, withRunOptions } from "./cli-kit.ts";

const program = withOneLineErrors(
  withRunOptions(new Command())
    .name("azure-storage-concurrency-conformance")
    .description(
      "Checks that an Azure Storage endpoint keeps the documented concurrency promises (ETags, conditional requests, leases, pop receipts, visibility timeouts).\n" +
        "With no connection string it starts an embedded Azurite. Flags override environment variables (see .env.example).",
    )
    .option("--list", "list the selected rows (ID, level, file:line of its code, title) and run nothing")
    .option("--env-file <path>", "dotenv file to read", ".env"),
);

const SOURCE_LINE = new RegExp("\\.(ts|mjs|js):\\d+");

/** One line for a crash of the suite itself (not the target's fault, not the input's). */
function internalError(err: unknown): number {
  const e = err as Error;
  const where = e?.stack
    ?.split("\n")
    .find((l) => SOURCE_LINE.test(l) && !l.includes("node_modules"))
    ?.trim();
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
      const { listRows } = await import("../fixtures/run/list-rows.ts");
      return await listRows(config);
    }
    // A malformed connection string is reported before anything heavy loads.
    if (config.connectionString) resolveConnectionString(config.connectionString);
    // The embedded Azurite starts while the SDKs and suites load: they take about as long.
    const early = config.connectionString ? undefined : import("../fixtures/azurite/azurite.ts").then((m) => m.startAzurite());
    early?.catch(() => undefined);
    // Loaded only now: --help and bad settings answer without loading the SDKs.
    const { runSuite } = await import("../fixtures/run/run-suite.ts");
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
