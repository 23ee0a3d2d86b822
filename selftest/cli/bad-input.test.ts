// Bad input to the CLI: one clear line on stderr, exit code 2, no stack
// trace, before any test runs. An internal crash: one line, exit code 3.
import { spawn } from "node:child_process";
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { assert } from "chai";
import getPort from "get-port";
import pLimit from "p-limit";
import { DEV_ACCOUNT } from "../../fixtures/wire/target.ts";
import { sharedAzurite } from "../azurite-fixture.ts";
import { accountConnectionString, cleanEnv, collect, oneLine, ROOT, runCli, tmpDir, type CliResult } from "./cli-kit.ts";

const WRONG_KEY = Buffer.from("this is not the key of devstoreaccount1").toString("base64");
const STARTED = /rows against/; // the line printed when rows start

function assertBadInput(r: CliResult, pattern: RegExp): string {
  assert.equal(r.code, 2, `exit code (stderr: ${r.stderr.slice(0, 500)})`);
  const line = oneLine(r.stderr);
  assert.match(line, /^error: /);
  assert.match(line, pattern);
  assert.notMatch(r.stderr, /^\s+at /m, "no stack trace");
  assert.notMatch(r.stdout, STARTED, "no test ran");
  assert.notInclude(r.stderr + r.stdout, WRONG_KEY, "the key is never printed");
  return line;
}

describe("CLI: bad input", function () {
  this.timeout(120_000);
  const servers: { close(): void }[] = [];
  const results = new Map<string, CliResult>();
  const sockets: net.Socket[] = [];

  before(async function () {
    const azurite = await sharedAzurite();
    const closedPort = await getPort();
    // Accepts connections, never answers.
    const blackhole = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => blackhole.listen(0, "127.0.0.1", r));
    servers.push(blackhole);
    // Answers like an Azurite too old for this suite's API version.
    const old = http.createServer((req, res) => {
      const msg = `The API version ${req.headers["x-ms-version"]} is not supported by Azurite. Please upgrade Azurite to latest version and retry. Azurite command line parameter "--skipApiVersionCheck" can skip this error.`;
      res.writeHead(400, { "content-type": "application/xml", "x-ms-error-code": "InvalidHeaderValue", server: "Azurite-Blob/3.14.0" });
      res.end(`<?xml version="1.0" encoding="utf-8"?><Error><Code>InvalidHeaderValue</Code><Message>${msg}</Message></Error>`);
    });
    await new Promise<void>((r) => old.listen(0, "127.0.0.1", r));
    servers.push(old);
    const at = (port: number) =>
      `DefaultEndpointsProtocol=http;AccountName=${DEV_ACCOUNT};AccountKey=${WRONG_KEY};BlobEndpoint=http://127.0.0.1:${port}/${DEV_ACCOUNT};QueueEndpoint=http://127.0.0.1:${port}/${DEV_ACCOUNT}`;
    const devAt = (port: number) =>
      at(port).replace(WRONG_KEY, "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==");
    const report = tmpDir("badinput");
    const cases: Record<string, () => Promise<CliResult>> = {
      help: () => runCli(["--help"]),
      malformed: () => runCli(["--report-dir", report], { AZURE_STORAGE_CONNECTION_STRING: "AccountName=x;AccountKey" }),
      concurrency: () => runCli(["--report-dir", report], { CONFORMANCE_CONCURRENCY: "abc" }),
      services: () => runCli(["--report-dir", report], { CONFORMANCE_SERVICES: "blobb" }),
      unknownFlag: () => runCli(["--report-dri", report]),
      noMatch: () => runCli(["--report-dir", report, "--grep", "^no-such-row$", "--connection-string", azurite.connectionString]),
      reportDir: () => runCli(["--report-dir", "/dev/null/reports", "--connection-string", azurite.connectionString]),
      expectations: () => runCli(["--report-dir", report, "-e", "/nonexistent/pins.json", "--connection-string", azurite.connectionString]),
      expectationsName: () => runCli(["--report-dir", report], { CONFORMANCE_EXPECTATIONS: "azurit" }),
      closedPort: () => runCli(["--report-dir", report], { AZURE_STORAGE_CONNECTION_STRING: devAt(closedPort) }),
      blackhole: () =>
        runCli(["--report-dir", report], { AZURE_STORAGE_CONNECTION_STRING: devAt((blackhole.address() as AddressInfo).port) }),
      wrongKey: () =>
        runCli(["--report-dir", report], {
          AZURE_STORAGE_CONNECTION_STRING: accountConnectionString(azurite, DEV_ACCOUNT, { key: WRONG_KEY }),
        }),
      oldApi: () => runCli(["--report-dir", report], { AZURE_STORAGE_CONNECTION_STRING: devAt((old.address() as AddressInfo).port) }),
      crash: () =>
        collect(
          spawn(
            process.execPath,
            [
              "--import",
              "tsx",
              "--import",
              "./selftest/cli/crash-hook.ts",
              "bin/conformance.ts",
              "--env-file",
              "/dev/null",
              "--report-dir",
              report,
              "--grep",
              "create-container/etag",
            ],
            { cwd: ROOT, env: cleanEnv({ AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString }), stdio: ["ignore", "pipe", "pipe"] },
          ),
        ),
    };
    // A few at a time (the machine is shared); SELFTEST_TIMINGS prints how long each took (`reportDir` loads everything and fails before contacting any target: the CLI's start-up).
    const limit = pLimit(3);
    const entries = await Promise.all(Object.entries(cases).map(([k, fn]) => limit(async () => [k, await fn()] as const)));
    for (const [k, r] of entries) results.set(k, r);
    if (process.env.SELFTEST_TIMINGS) console.log(entries.map(([k, r]) => `${k} ${r.ms} ms`).join(", "));
  });

  after(function () {
    for (const s of sockets) s.destroy();
    for (const s of servers) s.close();
  });

  it("--help exits 0 and lists the options", function () {
    const r = results.get("help")!;
    assert.equal(r.code, 0);
    for (const flag of ["--connection-string", "--report-dir", "--services", "--grep", "--expectations"]) assert.include(r.stdout, flag);
  });

  it("a malformed connection string", function () {
    assertBadInput(results.get("malformed")!, /Malformed connection string: segment "AccountKey" is not Key=Value/);
  });

  it("CONFORMANCE_CONCURRENCY=abc", function () {
    assertBadInput(results.get("concurrency")!, /CONFORMANCE_CONCURRENCY="abc" is not a whole number/);
  });

  it("CONFORMANCE_SERVICES=blobb", function () {
    assertBadInput(results.get("services")!, /CONFORMANCE_SERVICES: unknown service blobb \(choose from blob, queue, table, file\)/);
  });

  it("an unknown flag suggests the right one", function () {
    assertBadInput(results.get("unknownFlag")!, /unknown option '--report-dri'.*--report-dir/);
  });

  it("a selection no test matches", function () {
    assertBadInput(results.get("noMatch")!, /No test matches the selection/);
  });

  it("a report directory that cannot be written", function () {
    assertBadInput(results.get("reportDir")!, /Report directory "\/dev\/null\/reports" cannot be written/);
  });

  it("an expectation file that does not exist", function () {
    assertBadInput(results.get("expectations")!, /Expectation file \/nonexistent\/pins.json does not exist/);
  });

  it("an expectation file named by a misspelt name", function () {
    assertBadInput(
      results.get("expectationsName")!,
      /Expectation file "azurit" not found \(expectations\/azurit.json\); use one of azurite, .*none, or a path/,
    );
  });

  it("an unreachable endpoint (a closed port) fails at once, not once per test", function () {
    const r = results.get("closedPort")!;
    // assertBadInput: no row started. How long it takes is the bench's business (SELFTEST_TIMINGS prints it).
    assertBadInput(r, /No service of the target answered .*ECONNREFUSED.*check the endpoints/);
  });

  it("an endpoint that accepts connections but never answers fails after the preflight's bound", function () {
    const r = results.get("blackhole")!;
    assertBadInput(r, /No service of the target answered .*no answer within 4 s/);
    // The preflight's probes, one per service configured (blob and queue), were all that was sent.
    assert.isAtMost(sockets.length, 2, "connections the black hole accepted");
  });

  it("credentials the target rejects (an Azurite, another key)", function () {
    assertBadInput(
      results.get("wrongKey")!,
      /Credentials rejected by http:\/\/127\.0\.0\.1:\d+\/devstoreaccount1 \(403 AuthorizationFailure\): the account key or SAS/,
    );
  });

  it("an API version the target refuses: says so, and how to fix it", function () {
    const line = assertBadInput(
      results.get("oldApi")!,
      /API version refused by .*\(Azurite-Blob\/3\.14\.0\): it does not accept x-ms-version \d{4}-\d\d-\d\d/,
    );
    assert.include(line, "--skipApiVersionCheck");
    assert.include(line, "Upgrade Azurite");
  });

  it("an internal crash: one line, exit code 3, no stack", function () {
    const r = results.get("crash")!;
    assert.equal(r.code, 3, r.stderr);
    const line = oneLine(r.stderr);
    assert.match(line, /^internal error: simulated bug: cannot serialise the report \(at .*\); this is a bug in the suite/);
    assert.match(r.stdout, STARTED, "it crashed after the rows ran");
  });
});
