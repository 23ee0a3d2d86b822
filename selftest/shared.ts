// A costly result several self-test files use (the whole suite through the
// proxy with no mutant, a run of the CLI from source), made once per
// `npm run selftest`. selftest/run.ts runs each file in a process of its own
// and names a directory they share (SELFTEST_SHARED_DIR): the first process
// to ask makes the result and writes it there as JSON, the others wait for
// it. Without that directory (a file run on its own) the process makes it
// once for itself.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const WAIT_MS = 600_000;
const made = new Map<string, Promise<unknown>>();

async function waitFor<T>(result: string, failed: string): Promise<T> {
  const until = Date.now() + WAIT_MS;
  for (;;) {
    if (existsSync(result)) return JSON.parse(readFileSync(result, "utf8")) as T;
    if (existsSync(failed)) throw new Error(`the shared ${result} could not be made: ${readFileSync(failed, "utf8")}`);
    if (Date.now() > until) throw new Error(`the shared ${result} was not made within ${WAIT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** `make()`'s result (plain data), made once by whichever process asks first; `make` gets a directory of its own. */
export function sharedOnce<T>(name: string, make: (dir: string) => Promise<T>): Promise<T> {
  let p = made.get(name) as Promise<T> | undefined;
  if (!p) {
    p = (async () => {
      const shared = process.env.SELFTEST_SHARED_DIR;
      const home = join(shared ?? mkdtempSync(join(tmpdir(), "selftest-shared-")), name);
      const result = join(home, "result.json");
      const failed = join(home, "failed.txt");
      try {
        mkdirSync(home); // whoever makes the directory makes the result
      } catch {
        return waitFor<T>(result, failed);
      }
      try {
        const value = await make(home);
        writeFileSync(`${result}.part`, JSON.stringify(value));
        renameSync(`${result}.part`, result);
        return value;
      } catch (err) {
        writeFileSync(failed, String((err as Error).stack ?? err));
        throw err;
      }
    })();
    made.set(name, p);
  }
  return p;
}
