// What the command-line tools share: commander's errors on one line, parsing
// that yields an exit code instead of exiting (0 for --help, 2 for a bad
// flag), and one line instead of a stack trace when a command fails.
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Option, type Command } from "commander";
import { helpOf, OPTIONS, type OptionSpec } from "../fixtures/options.ts";
import { ConfigError } from "../fixtures/wire/target.ts";

/** Commander's error (and its "Did you mean" hint) on one line. */
export function oneLineError(text: string): string {
  const line = text.trim().split("\n").filter(Boolean).join(" ");
  return (line.endsWith(".") ? line.slice(0, -1) : line) + " (see --help)\n";
}

/** Makes a program report usage errors on one line and throw instead of exiting. */
export function withOneLineErrors(program: Command): Command {
  return program
    .showSuggestionAfterError()
    .configureOutput({ outputError: (str, write) => write(oneLineError(str)) })
    .exitOverride();
}

/** Adds the run's options to a command, from their one table (fixtures/options.ts). */
export function withRunOptions(command: Command): Command {
  for (const o of Object.values(OPTIONS) as OptionSpec[]) command.addOption(new Option(o.flags, helpOf(o)));
  return command;
}

/** Parses argv; returns an exit code when the program should stop (help shown, or bad flags). */
export function parseArgs(program: Command): number | undefined {
  try {
    program.parse();
    return undefined;
  } catch (err) {
    const code = (err as { code?: string }).code;
    return code === "commander.helpDisplayed" || code === "commander.version" ? 0 : 2;
  }
}

/** The real path of a file (npm's bin links are symlinks to the package's file). */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** Whether a module is the program Node was started with (directly, or through npm's bin link). */
export function isMain(moduleUrl: string): boolean {
  return !!process.argv[1] && real(process.argv[1]) === real(fileURLToPath(moduleUrl));
}

/**
 * Runs a tool's main when its file is the one Node was started with (not when
 * a self-test imports it), and exits with its code: a ConfigError is the
 * user's to fix (one line, exit 2), anything else a bug in the suite (exit 3;
 * CONFORMANCE_DEBUG=1 shows the stack).
 */
export async function runMain(moduleUrl: string, main: () => number | Promise<number>): Promise<void> {
  if (!isMain(moduleUrl)) return;
  try {
    process.exit(await main());
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`error: ${err.message}`);
      process.exit(2);
    }
    console.error(`internal error: ${(err as Error).message?.split("\n")[0]}; this is a bug in the suite, please report it.`);
    if (process.env.CONFORMANCE_DEBUG) console.error(err);
    process.exit(3);
  }
}
