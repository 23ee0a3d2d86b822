// The package as a user gets it: `npm pack`, then in an empty directory
// `npm i <tarball>` and `npx azure-storage-concurrency-conformance`, which
// starts the embedded Azurite (the newest this Node supports) and writes its
// reports there. npm installs from its cache where it can (--prefer-offline).
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { assert } from "chai";
import { embeddedPackage } from "../../fixtures/azurite.ts";
import { cleanEnv, collect, readReport, ROOT, tmpDir, type CliResult } from "./cli-kit.ts";

/**
 * What npm needs to reach the registry from this machine (a proxy, the CA of a
 * TLS-inspecting one, the registry); the suite's variables and npm's run-script
 * ones (npm_config_local_prefix would install into this repository) stay out.
 */
const NETWORK = /^(https?_proxy|no_proxy|node_extra_ca_certs|ssl_cert_file|ssl_cert_dir|npm_config_(registry|cafile|ca|strict_ssl|https?_proxy|proxy|noproxy))$/i;

/** Runs a command with this process's node first on PATH (npm, npx and the installed bin use it). */
function sh(cmd: string, args: string[], cwd: string, timeoutMs: number): Promise<CliResult> {
  const PATH = `${dirname(process.execPath)}:${process.env.PATH ?? "/usr/bin:/bin"}`;
  const network = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => NETWORK.test(e[0]) && e[1] !== undefined));
  return collect(spawn(cmd, args, { cwd, env: cleanEnv({ ...network, PATH }), stdio: ["ignore", "pipe", "pipe"] }), timeoutMs);
}

describe("package: npm pack, npm i <tarball>, npx azure-storage-concurrency-conformance", function () {
  this.timeout(540_000);

  it("installs into an empty directory and runs against the embedded Azurite, writing its reports", async function () {
    const packed = tmpDir("pack");
    const pack = await sh("npm", ["pack", "--pack-destination", packed, "--loglevel", "error"], ROOT, 120_000);
    assert.equal(pack.code, 0, pack.stderr);
    const tarball = readdirSync(packed).find((f) => f.endsWith(".tgz"));
    assert.isDefined(tarball, "npm pack wrote a tarball");

    const app = tmpDir("app");
    const install = await sh("npm", ["i", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel", "error", join(packed, tarball!)], app, 360_000);
    assert.equal(install.code, 0, install.stderr.slice(-2000));

    const run = await sh("npx", ["--no-install", "azure-storage-concurrency-conformance"], app, 300_000);
    assert.equal(run.code, 0, `${run.stdout.slice(-3000)}\n${run.stderr.slice(-2000)}`);
    assert.match(run.stdout.trim().split("\n").at(-1)!, /^\d+ passed, 0 failed, \d+ skipped$/);
    for (const f of ["conformance.json", "conformance.md", "conformance.html", "junit.xml"]) assert.isTrue(existsSync(join(app, "reports", f)), f);
    const report = readReport(join(app, "reports"));
    assert.equal(report.run.target.kind, "embedded-azurite");
    assert.equal(report.run.target.azuriteVersion, embeddedPackage().version, "the newest Azurite this Node supports");
    assert.isUndefined(report.run.suite.commit, "installed: the consumer's repository is not the suite's");
    assert.equal(report.run.expectations, "expectations/azurite.json");
  });
});
