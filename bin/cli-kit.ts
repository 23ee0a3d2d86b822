// What the command-line tools share: commander's errors on one line, and
// parsing that yields an exit code instead of exiting (0 for --help, 2 for a
// bad flag).
import type { Command } from "commander";

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
