// Targets, run info and secrets, through the CLI:
// - an embedded run (no connection string: the installed package's run,
//   cli/installed-run.ts) and a run against a second Azurite started
//   separately (an external emulator, by connection string, with its own
//   account and key, through the proxy with no mutant: cli/external-run.ts)
//   give the same status for every ID;
// - the run info says what ran against what;
// - the account key, Shared Key signatures, Authorization headers and SAS
//   signatures appear in no output and no artefact (also with a SAS
//   connection string);
// - nothing with a run prefix is left on either external emulator.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  AccountSASPermissions,
  AccountSASResourceTypes,
  AccountSASServices,
  generateAccountSASQueryParameters,
  StorageSharedKeyCredential,
} from "@azure/storage-blob";
import { assert } from "chai";
import type { EmbeddedAzurite } from "../../fixtures/azurite/azurite.ts";
import { NAME_PREFIX } from "../../fixtures/wire/names.ts";
import { exitCodeOf, SCHEMA, type Report } from "../../model/result.ts";
import {
  accountConnectionString,
  artefacts,
  endedWithReport,
  privateAzurite,
  readReport,
  ROOT,
  runCli,
  tmpDir,
  toldExitCode,
  toldIds,
  tooLateIn,
  type CliResult,
} from "./cli-kit.ts";
import { EXTERNAL_ACCOUNT, externalRun, leftOn } from "./external-run.ts";
import { embeddedRun } from "./installed-run.ts";

// A subset touching every service and both SDK and raw requests.
const SAS_GREP = "container-ops|blob-ops/put-blob/|queue/|table/entity-ops/(insert|update)";

interface Run {
  dir: string;
  cli: CliResult;
  report: Report;
}

/** What must never be printed for the account with this key, with what it is (for the failure message). */
function forbidden(key: string, extra: [string, string][] = []): [RegExp, string][] {
  return [
    [new RegExp(key.replace(/[+/=]/g, (c) => `\\${c}`)), "the account key"],
    [new RegExp(encodeURIComponent(key).replace(/[%]/g, "%")), "the account key, URL-encoded"],
    [/SharedKey(Lite)? [a-z0-9]+:/i, "a Shared Key signature"],
    [/["']?authorization["']?\s*[:=]\s*["']?(SharedKey|Bearer|Basic)/i, "an Authorization header"],
    [/[?&]sig=(?!REDACTED)[^&\s"'<]+/i, "a SAS signature"],
    ...extra.map(([s, what]) => [new RegExp(s.replace(/[.*+?^${}()|[\]\\/%]/g, (c) => `\\${c}`)), what] as [RegExp, string]),
  ];
}

function leaks(run: Run, rules: [RegExp, string][]): string[] {
  const places = [{ path: "stdout", text: run.cli.stdout }, { path: "stderr", text: run.cli.stderr }, ...artefacts(run.dir)];
  const out: string[] = [];
  for (const { path, text } of places) for (const [re, what] of rules) if (re.test(text)) out.push(`${what} in ${path}`);
  return out;
}

const statuses = (r: Report) => Object.fromEntries(r.results.map((x) => [x.id, x.status]));

describe("CLI: targets, run info and secrets", function () {
  this.timeout(300_000);
  let azurite: EmbeddedAzurite;
  let sas: string;
  let embedded: Run;
  let external: Run;
  let viaSas: Run;
  let key: string;
  let leftOnExternal: Record<string, string[]>;

  before(async function () {
    const shared = await externalRun();
    key = shared.key;
    leftOnExternal = shared.left;
    external = { dir: shared.dir, cli: shared.cli, report: readReport(shared.dir) };
    azurite = await privateAzurite(`${EXTERNAL_ACCOUNT}:${key}`);
    sas = generateAccountSASQueryParameters(
      {
        expiresOn: new Date(Date.now() + 3_600_000),
        permissions: AccountSASPermissions.parse("rwdlacupx"),
        services: AccountSASServices.parse("bqt").toString(),
        resourceTypes: AccountSASResourceTypes.parse("sco").toString(),
      },
      new StorageSharedKeyCredential(EXTERNAL_ACCOUNT, key),
    ).toString();
    assert.match(sas, /(^|&)sig=/);
    const run = async (args: string[], env: Record<string, string>): Promise<Run> => {
      const dir = tmpDir("run");
      const cli = await runCli(["--report-dir", dir, ...args], env, 280_000);
      endedWithReport(cli, "the run");
      return { dir, cli, report: readReport(dir) };
    };
    [embedded, viaSas] = await Promise.all([
      embeddedRun().then(({ dir, cli }) => ({ dir, cli, report: readReport(dir) })),
      run(["--grep", SAS_GREP], { AZURE_STORAGE_CONNECTION_STRING: accountConnectionString(azurite, EXTERNAL_ACCOUNT, { sas }) }),
    ]);
  });

  after(async function () {
    await azurite?.stop();
  });

  it("an external emulator by connection string gives the embedded run's status for every ID", function () {
    const a = statuses(embedded.report);
    const b = statuses(external.report);
    assert.isAbove(Object.keys(a).length, 0);
    assert.deepEqual(Object.keys(b).sort(), Object.keys(a).sort(), "the same rows ran");
    const told = toldIds("the embedded and the external run", Object.keys(a), tooLateIn(embedded.report, external.report));
    const differ = told.filter((id) => a[id] !== b[id]).map((id) => `${id}: embedded ${a[id]}, external ${b[id]}`);
    assert.deepEqual(differ, []);
    // A row too late to tell makes its run incomplete (exit 4) by the machine's load alone: the
    // exit codes compared are those the rows that told decide (a 4 is still checked to be one).
    for (const run of [embedded, external])
      if (run.cli.code === 4) assert.equal(exitCodeOf(run.report.results), 4, "exit 4 only for a run left incomplete");
    assert.equal(toldExitCode(external.cli.code, external.report), toldExitCode(embedded.cli.code, embedded.report), "the same exit code");
  });

  it("the run info records target kind, Server header, API versions, suite version and commit, services answered", function () {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { name: string; version: string };
    for (const [r, kind, account] of [
      [embedded.report, "embedded-azurite", "devstoreaccount1"],
      [external.report, "emulator", EXTERNAL_ACCOUNT],
    ] as const) {
      const run = r.run;
      assert.equal(r.schema, SCHEMA);
      assert.equal(run.target.kind, kind);
      assert.equal(run.target.account, account);
      assert.deepEqual(run.suite.name, pkg.name);
      assert.deepEqual(run.suite.version, pkg.version);
      if (run.suite.commit !== undefined) assert.match(run.suite.commit, /^[0-9a-f]{40}$/);
      for (const svc of ["blob", "queue", "table"]) {
        assert.match(run.target.server[svc] ?? "", /^Azurite-(Blob|Queue|Table)\/\d+\.\d+\.\d+$/, `${svc} Server header`);
        const probe = run.target.services.find((p) => p.service === svc);
        assert.isTrue(probe?.available, `${svc} answered`);
        assert.match(run.apiVersionsSent[svc]?.sdk?.[0] ?? "", /^\d{4}-\d\d-\d\d$/, `${svc} SDK x-ms-version from the evidence`);
      }
      const file = run.target.services.find((p) => p.service === "file");
      assert.isFalse(file?.available, "Azurite has no File service");
      assert.match(file?.reason ?? "", /no file endpoint/);
      assert.isTrue(
        r.results.filter((x) => x.service === "file").every((x) => x.status === "NOT_AVAILABLE"),
        "file rows are NOT_AVAILABLE",
      );
      assert.equal(run.expectations, "expectations/azurite.json", "an Azurite by Server header gets Azurite's expectations");
      assert.equal(run.leftovers, 0, "nothing left behind");
      assert.match(run.runPrefix, new RegExp(`^${NAME_PREFIX}[0-9a-z]{7}[0-9a-f]{6}$`));
      assert.equal(r.summary.total, r.results.length);
    }
    assert.match(embedded.report.run.target.azuriteVersion ?? "", /^\d+\.\d+\.\d+$/);
    assert.isUndefined(external.report.run.target.azuriteVersion);
  });

  it("every artefact is written: JSON, Markdown, HTML, JUnit with one testcase per result, the badge", function () {
    for (const r of [embedded, external, viaSas]) {
      const names = artefacts(r.dir)
        .map((a) => a.path.slice(r.dir.length + 1))
        .sort();
      assert.deepEqual(names, ["badge.json", "conformance.html", "conformance.json", "conformance.md", "junit.xml"]);
      const doc = r.report.results.filter((x) => x.level === "doc");
      const badge = JSON.parse(readFileSync(join(r.dir, "badge.json"), "utf8")) as { message: string };
      assert.equal(badge.message, `${doc.filter((x) => x.status === "PASS").length}/${doc.length} doc claims`);
      const junit = readFileSync(join(r.dir, "junit.xml"), "utf8");
      assert.equal((junit.match(/<testcase /g) ?? []).length, r.report.results.length);
      assert.match(r.cli.stdout.trim().split("\n").at(-1)!, /^\d+ passed, \d+ failed, \d+ skipped$/);
    }
  });

  it("the leak detector itself finds each kind of secret", function () {
    const sig = "AbC+dEf/123=";
    const planted: Run = {
      dir: embedded.dir,
      report: embedded.report,
      cli: {
        code: 0,
        signal: null,
        ms: 0,
        stdout: `key ${key}\nAuthorization: SharedKey certacct1:xyz=\n"authorization": "SharedKey x:y"\nGET /c?sv=1&sig=${encodeURIComponent(sig)}&se=2`,
        stderr: `enc ${encodeURIComponent(key)}`,
      },
    };
    const found = leaks(
      planted,
      forbidden(key, [
        [sig, "the SAS signature"],
        [encodeURIComponent(sig), "the SAS signature, URL-encoded"],
      ]),
    );
    for (const what of [
      "the account key",
      "the account key, URL-encoded",
      "a Shared Key signature",
      "an Authorization header",
      "a SAS signature",
      "the SAS signature, URL-encoded",
    ]) {
      assert.isTrue(
        found.some((f) => f.startsWith(what + " in ")),
        `${what} detected: ${found.join("; ")}`,
      );
    }
  });

  it("no key, Shared Key signature or Authorization header in any output or artefact (account key run)", function () {
    // The key did reach the target: the run signed requests with it and they were accepted.
    assert.isAbove(external.report.summary.PASS, 0);
    assert.deepEqual(leaks(external, forbidden(key)), []);
  });

  it("with a SAS connection string, the signature appears nowhere (only sig=REDACTED)", function () {
    const sig = new URLSearchParams(sas).get("sig")!;
    assert.isAbove(viaSas.report.summary.PASS, 0, "the SAS run did run rows");
    const all = [viaSas.cli.stdout, ...artefacts(viaSas.dir).map((a) => a.text)].join("\n");
    assert.match(all, /[?&]sig=REDACTED/, "the evidence records SAS URLs, redacted");
    assert.deepEqual(
      leaks(
        viaSas,
        forbidden(key, [
          [sig, "the SAS signature"],
          [encodeURIComponent(sig), "the SAS signature, URL-encoded"],
        ]),
      ),
      [],
    );
    assert.equal(viaSas.report.run.target.kind, "emulator");
  });

  it("nothing with a run prefix is left on either external emulator (the account key run's, the SAS run's)", async function () {
    assert.deepEqual(leftOnExternal, { blob: [], queue: [], table: [], file: [] }, "after the account key run");
    assert.deepEqual(await leftOn(azurite, key), { blob: [], queue: [], table: [], file: [] }, "after the SAS run");
  });
});
