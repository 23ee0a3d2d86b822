// Ctrl-C: the CLI removes what the run created (leases broken first), stops
// its embedded Azurite, and exits 130.
import { readdirSync, readFileSync } from "node:fs";
import { assert } from "chai";
import type { EmbeddedAzurite } from "../../fixtures/azurite/azurite.ts";
import { Clients } from "../../fixtures/wire/clients.ts";
import { listOurs } from "../../fixtures/wire/cleanup.ts";
import { NAME_PREFIX } from "../../fixtures/wire/names.ts";
import { resolveConnectionString } from "../../fixtures/wire/target.ts";
import { collect, privateAzurite, spawnScript, tmpDir } from "./cli-kit.ts";

const STARTED = /rows against/;

/** PIDs whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(d));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("CLI: Ctrl-C", function () {
  this.timeout(120_000);
  let azurite: EmbeddedAzurite | undefined;
  after(async function () {
    await azurite?.stop();
  });

  it("with the embedded Azurite: exits 130 and no Azurite process remains", async function () {
    if (process.platform !== "linux") this.skip();
    const child = spawnScript("bin/conformance.ts", ["--report-dir", tmpDir("sigint")]);
    const done = collect(child);
    let out = "";
    child.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    await until("the run starts its rows", () => (STARTED.test(out) ? true : undefined), 60_000);
    const azurites = childrenOf(child.pid!).filter((p) => readFileSync(`/proc/${p}/cmdline`, "utf8").includes("azurite-host.cjs"));
    assert.lengthOf(azurites, 1, "the CLI runs one embedded Azurite");
    child.kill("SIGINT");
    const r = await done;
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stderr, /SIGINT: removing this run's resources and stopping/);
    assert.notMatch(r.stderr, /^\s+at /m, "no stack trace");
    await until("the embedded Azurite exits", () => (azurites.every((p) => !alive(p)) ? true : undefined), 5_000);
  });

  it("against an external emulator: nothing with the run prefix is left, leased or not", async function () {
    azurite = await privateAzurite();
    const clients = new Clients(resolveConnectionString(azurite.connectionString));
    const ours = async () => Object.values(await listOurs(clients, ["blob", "queue", "table"], NAME_PREFIX)).flat();
    assert.deepEqual(await ours(), [], "a fresh emulator");
    const child = spawnScript("bin/conformance.ts", ["--report-dir", tmpDir("sigint"), "--connection-string", azurite.connectionString]);
    const done = collect(child);
    // Interrupt once the rows have created resources (lease rows hold theirs for their waits).
    const created = await until("the run creates resources", async () => ((await ours()).length >= 5 ? await ours() : undefined), 60_000);
    assert.isTrue(created.every((n) => n.startsWith(NAME_PREFIX)));
    child.kill("SIGINT");
    const r = await done;
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stderr, /resources with prefix cc[0-9a-z]{13} removed/);
    assert.deepEqual(await ours(), [], "every resource of the run was removed");
  });
});
