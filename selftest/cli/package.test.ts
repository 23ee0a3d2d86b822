// The package as a user gets it (made once, cli/installed-run.ts: `npm
// pack`, `npm i --omit=dev <tarball>` in an empty directory, the installed
// command's full run), and the installed commands run with plain node:
// - the tarball holds the compiled runtime and the data it reads, nothing
//   else (no self-tests, benches or TypeScript sources), within its budget;
// - every installed command answers --help; bad input is one line, exit 2;
// - the programmatic API runs the suite and resolves to its report, and its
//   types resolve for a TypeScript consumer;
// - a full run against the embedded Azurite gives the verdicts of a run from
//   source (the shared external run, cli/external-run.ts, with the same
//   seed: an Azurite of the same version by connection string, through the
//   proxy with no mutant, which runs.test.ts and mutation.test.ts show
//   change no verdict), and writes every report.
// The time to the first row, installed and from source, is a figure of the
// bench (bench/first-row.ts), not a self-test.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assert } from "chai";
import { embeddedPackage } from "../../fixtures/azurite/azurite.ts";
import { STATUSES, type Report } from "../../model/result.ts";
import { oneLine, readReport, ROOT, tmpDir, toldExitCode, toldIds, tooLateIn, type CliResult } from "./cli-kit.ts";
import { externalRun } from "./external-run.ts";
import { binIn, embeddedRun, installedRun, PACKAGE_NAME, sh, type Packed } from "./installed-run.ts";
import { ALLOWED_IN_TARBALL, FORBIDDEN_IN_TARBALL, UNPACKED_BUDGET_BYTES } from "./package-facts.ts";

/** One quick row, which the API test runs. */
const ONE_ROW = "create-container/etag:";
const verdicts = (r: Report) => Object.fromEntries(r.results.map((x) => [x.id, `${x.status}${x.signature ? ` ${x.signature}` : ""}`]));

describe("package: npm pack, npm i --omit=dev <tarball>, the installed commands with plain node", function () {
  this.timeout(600_000);
  let packed: Packed;
  let app: string;
  let install: CliResult;
  const bin = (name: string) => binIn(app, name);

  before(async function () {
    const made = await installedRun();
    assert.equal(made.pack.code, 0, made.pack.stderr);
    assert.equal(made.install?.code, 0, made.install?.stderr.slice(-2000));
    packed = made.packed!;
    app = made.app;
    install = made.install!;
  });

  it("the tarball holds the compiled runtime and its data only: no self-tests, benches or sources", function () {
    const paths = packed.files.map((f) => f.path);
    assert.deepEqual(
      paths.filter((p) => FORBIDDEN_IN_TARBALL.some((re) => re.test(p))),
      [],
      "forbidden",
    );
    assert.deepEqual(
      paths.filter((p) => !ALLOWED_IN_TARBALL.some((re) => re.test(p))),
      [],
      "not needed at run time",
    );
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
      bin: Record<string, string>;
      exports: Record<string, string | Record<string, string>>;
    };
    const targets = [
      ...Object.values(pkg.bin),
      ...Object.values(pkg.exports).flatMap((e) => (typeof e === "string" ? [e] : Object.values(e))),
    ];
    for (const t of targets) assert.include(paths, t.replace(/^\.\//, ""), `${t} (bin or exports) is in the tarball`);
    for (const p of ["dist/fixtures/azurite/azurite-host.cjs", "expectations/azurite.json", "catalogue/required-ids.txt", "LICENSE"])
      assert.include(paths, p);
    assert.isTrue(
      paths.some((p) => p.endsWith(".rows.js")),
      "the compiled suites",
    );
    const runtime = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    assert.deepEqual(
      ["mocha", "tsx", "typescript", "p-limit"].filter((d) => d in runtime.dependencies),
      [],
      "test tools among the runtime dependencies",
    );
  });

  it(`the unpacked size is within its budget (${UNPACKED_BUDGET_BYTES / 1e6} MB)`, function () {
    console.log(`      unpacked ${(packed.unpackedSize / 1e6).toFixed(2)} MB, ${packed.files.length} files`);
    assert.isAtMost(packed.unpackedSize, UNPACKED_BUDGET_BYTES);
  });

  it("installs without dev dependencies (no tsx, no TypeScript) and without engine warnings", function () {
    for (const dev of ["tsx", "typescript", "yaml"]) assert.isFalse(existsSync(join(app, "node_modules", dev)), `${dev} is not installed`);
    assert.notMatch(install.stderr, /EBADENGINE/, "every installed package supports this Node");
    assert.equal(
      readFileSync(join(app, "node_modules", PACKAGE_NAME, "dist", "bin", "conformance.js"), "utf8").split("\n")[0],
      "#!/usr/bin/env node",
    );
  });

  it("every installed command answers --help (npx)", async function () {
    const bins = Object.keys((JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string> }).bin);
    for (const b of bins) {
      const r = await sh("npx", ["--no-install", b, "--help"], app, 60_000);
      assert.equal(r.code, 0, `${b}: ${r.stderr}`);
      assert.match(r.stdout, /^Usage: /, b);
    }
  });

  it("bad input from another directory: one line, exit 2", async function () {
    const r = await sh(bin(PACKAGE_NAME), ["--report-dir", tmpDir("bad")], app, 60_000, { CONFORMANCE_SERVICES: "blob,fil" });
    assert.equal(r.code, 2, r.stderr);
    assert.match(oneLine(r.stderr), /CONFORMANCE_SERVICES: unknown service fil/);
  });

  it("the programmatic API: run(options) resolves to the report; its types resolve for a TypeScript consumer", async function () {
    const script = [
      `import { run, STATUSES } from "${PACKAGE_NAME}";`,
      `const report = await run({ grep: ${JSON.stringify(ONE_ROW)}, reportDir: "api-reports", output: "ignore" });`,
      `let refused = "";`,
      `try { await run({ services: ["blobb"], output: "ignore" }); } catch (err) { refused = err.name + ": " + err.message; }`,
      `console.log(JSON.stringify({ ids: report.results.map((r) => r.id + " " + r.status), failed: report.summary.failed, statuses: STATUSES.length, refused }));`,
    ].join("\n");
    writeFileSync(join(app, "api.mjs"), script);
    const r = await sh(process.execPath, ["api.mjs"], app, 120_000);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { ids: string[]; failed: number; statuses: number; refused: string };
    assert.deepEqual(out.ids, ["blob/container-ops/create-container/etag PASS"]);
    assert.equal(out.failed, 0);
    assert.equal(out.statuses, STATUSES.length);
    assert.match(out.refused, /^ConfigError: --services: unknown service blobb/);
    assert.isTrue(existsSync(join(app, "api-reports", "conformance.json")));

    writeFileSync(
      join(app, "consumer.ts"),
      [
        `import { run, type Report, type RowResult, type RunOptions } from "${PACKAGE_NAME}";`,
        `const options: RunOptions = { connectionString: "UseDevelopmentStorage=true", services: ["blob"], maxTries: 2 };`,
        `const report: Promise<Report> = run(options);`,
        `export const firstFailure = (r: Report): RowResult | undefined => r.results.find((x) => x.status === "FAIL");`,
        `void report;`,
      ].join("\n"),
    );
    const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
    const types = await sh(
      process.execPath,
      [
        tsc,
        "--noEmit",
        "--strict",
        "--module",
        "nodenext",
        "--moduleResolution",
        "nodenext",
        "--target",
        "es2022",
        "--types",
        "node",
        "--typeRoots",
        join(ROOT, "node_modules", "@types"),
        "--skipLibCheck",
        "consumer.ts",
      ],
      app,
      120_000,
    );
    assert.equal(types.code, 0, types.stdout + types.stderr);
  });

  it("a full run against the embedded Azurite gives the verdicts of a run from source, and writes every report", async function () {
    const [{ dir: reports, cli: installed }, { dir: sourceReports, cli: source }] = await Promise.all([embeddedRun(), externalRun()]);
    for (const f of ["conformance.json", "conformance.md", "conformance.html", "junit.xml", "badge.json"])
      assert.isTrue(existsSync(join(reports, f)), f);
    const report = readReport(reports);
    assert.equal(toldExitCode(installed.code, report), 0, `${installed.stdout.slice(-3000)}\n${installed.stderr.slice(-2000)}`);
    const fromSource = readReport(sourceReports);
    assert.equal(toldExitCode(source.code, fromSource), 0, source.stderr.slice(-2000));
    assert.match(installed.stdout.trim().split("\n").at(-1)!, /^\d+ passed, 0 failed, \d+ skipped$/);
    assert.equal(report.run.target.kind, "embedded-azurite");
    assert.equal(report.run.target.azuriteVersion, embeddedPackage().version, "the newest Azurite this Node supports");
    assert.isUndefined(report.run.suite.commit, "installed: the consumer's repository is not the suite's");
    assert.equal(report.run.expectations, "expectations/azurite.json");
    const a = verdicts(report);
    const b = verdicts(fromSource);
    assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort(), "the same rows");
    const told = toldIds("the installed package's run and the source's", Object.keys(a), tooLateIn(report, fromSource));
    assert.deepEqual(
      told.filter((id) => a[id] !== b[id]).map((id) => `${id}: installed ${a[id]}, source ${b[id]}`),
      [],
    );
  });
});
