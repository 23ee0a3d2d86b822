// A headless Chromium for the report tests (the HTML report and the compare
// view are checked as a browser renders them), or a skip saying how to get one.
import { execFile } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { promisify } from "node:util";
import { tmpDir } from "../cli/cli-kit.ts";

const run = promisify(execFile);

export function findChromium(): string | undefined {
  const candidates = [
    process.env.CHROME_BIN,
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
    "/usr/bin/google-chrome-stable",
  ];
  return candidates.find((c) => c && existsSync(c));
}

/** For a suite's `before`: the Chromium to use, or the suite is skipped with a line saying how to get one. */
export function chromiumOrSkip(ctx: Mocha.Context): string {
  const bin = findChromium();
  if (!bin) {
    console.log("    (skipped: no Chromium found; install the Debian package `chromium` or set CHROME_BIN)");
    ctx.skip();
  }
  return bin!;
}

/** Runs Chromium headless with a throw-away profile; its stdout (e.g. --dump-dom). */
export async function chromium(bin: string, args: string[]): Promise<string> {
  const profile = tmpDir("chromium");
  try {
    const { stdout } = await run(
      bin,
      [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        `--user-data-dir=${profile}`,
        ...args,
      ],
      { timeout: 60_000, maxBuffer: 256 * 1024 * 1024 },
    );
    return stdout;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}
