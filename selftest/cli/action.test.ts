// The GitHub Action (action.yml), its steps run as a runner would
// (action-runner.ts): a passing run against the embedded Azurite, a failing
// one through the mutant proxy, and bad input. Each checks the job summary,
// the outputs, what would be uploaded and whether the action fails.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { assert } from "chai";
import type { Report } from "../../model/result.ts";
import { sharedAzurite } from "../azurite-fixture.ts";
import { loadMutants } from "../mutate.ts";
import { startProxy, type MutationProxy } from "../proxy.ts";
import { parse } from "yaml";
import { readAction, runAction, type ActionRun } from "./action-runner.ts";
import { cleanEnv, ROOT } from "./cli-kit.ts";

// A few rows of one table: the Action's plumbing is under test, not the suite.
const GREP = "container-ops/create-container/";
const MUTANT = "etag-create-container-missing";
const KILLED = "blob/container-ops/create-container/etag";

const runnerEnv = () => cleanEnv() as Record<string, string>;
const report = (run: ActionRun): Report => JSON.parse(readFileSync(join(run.outputs["report-dir"], "conformance.json"), "utf8")) as Report;
const stepNames = (run: ActionRun) => run.steps.map((s) => s.name);

describe("GitHub Action (action.yml, its steps run as a runner would)", function () {
  // Its runs are full suite runs: on a loaded machine one takes minutes.
  this.timeout(900_000);
  let passing: ActionRun;
  let failing: ActionRun;
  let bad: ActionRun;
  let proxy: MutationProxy | undefined;

  before(async function () {
    passing = await runAction({ grep: GREP, "artifact-name": "conformance-azurite" }, runnerEnv());
    const azurite = await sharedAzurite();
    const mutant = (await loadMutants()).find((m) => m.name === MUTANT);
    assert.isDefined(mutant, `mutant ${MUTANT}`);
    proxy = await startProxy({ upstream: azurite.ports, mutant });
    failing = await runAction(
      {
        "connection-string": proxy.connectionString,
        grep: GREP,
        expectations: "azurite",
        "report-dir": "out/reports",
        "sweep-older-than": "6h",
      },
      runnerEnv(),
    );
    bad = await runAction({ "max-tries": "many" }, runnerEnv());
  });

  after(async function () {
    await proxy?.stop();
  });

  it("a passing run: every step runs, the action succeeds, the outputs count the rows", function () {
    assert.isUndefined(passing.failed, passing.failed && `${passing.failed.name}: ${passing.failed.stderr.slice(-2000)}`);
    assert.deepEqual(stepNames(passing), ["Install the suite", "Run the suite", "Summary and outputs", "Upload the reports", "Verdict"]);
    const r = report(passing);
    const o = passing.outputs;
    assert.equal(o["exit-code"], "0");
    assert.equal(o["report-dir"], join(passing.workspace, "conformance-reports"));
    assert.equal(o.failed, "0");
    assert.equal(Number(o.passed), r.summary.passed);
    assert.equal(Number(o.total), r.results.length);
    assert.isAbove(Number(o.total), 1);
    assert.isTrue(
      r.results.every((x) => x.id.includes(GREP)),
      "the grep input reached the run",
    );
    assert.equal(r.run.target.kind, "embedded-azurite", "an empty connection string runs the embedded Azurite");
    const doc = r.results.filter((x) => x.level === "doc");
    assert.equal(o["doc-passed"], String(doc.filter((x) => x.status === "PASS").length));
    assert.equal(o["doc-total"], String(doc.length));
    assert.equal(o.badge, join(o["report-dir"], "badge.json"));
    assert.deepInclude(JSON.parse(readFileSync(o.badge, "utf8")), {
      schemaVersion: 1,
      message: `${o["doc-passed"]}/${o["doc-total"]} doc claims`,
    });
    assert.equal(o["proposed-expectations"], "");
  });

  it("a passing run: the summary has the exit status, the doc claims and conformance.md's summary", function () {
    const s = passing.summary;
    const md = readFileSync(join(passing.outputs["report-dir"], "conformance.md"), "utf8");
    assert.include(s, "Exit 0: every result as expected.");
    assert.include(s, `**${passing.outputs["doc-passed"]}/${passing.outputs["doc-total"]} doc claims**`);
    const counts = md.split("\n").find((l) => l.startsWith("| PASS"))!;
    assert.include(s, counts, "the status table of conformance.md");
    assert.include(
      s,
      md.split("\n").find((l) => l.startsWith("Target: "))!,
      "the target line of conformance.md",
    );
    assert.notInclude(s, "## The article's tables");
    assert.include(s, "No row fails the run.");
    assert.include(s, "artifact `conformance-azurite`");
  });

  it("uploads the report directory under the artifact name", function () {
    const upload = passing.steps.find((st) => st.kind === "uses")!;
    assert.match(upload.uses!, /^actions\/upload-artifact@v\d+$/);
    assert.deepInclude(upload.with!, { name: "conformance-azurite", path: "conformance-reports" });
    for (const f of ["conformance.html", "conformance.md", "conformance.json", "junit.xml", "badge.json"])
      assert.isTrue(existsSync(join(passing.workspace, "conformance-reports", f)), f);
  });

  it("a failing run (through the mutant proxy): exit 1, the failing row in the summary, the action fails last", function () {
    assert.isDefined(failing.failed, "the action fails");
    assert.equal(failing.failed!.name, "Verdict", "only the last step fails: the summary and the upload came first");
    assert.deepEqual(stepNames(failing), ["Install the suite", "Run the suite", "Summary and outputs", "Upload the reports", "Verdict"]);
    assert.equal(failing.failed!.code, 1);
    assert.include(failing.failed!.stdout, "::error title=Conformance::A result changed");
    const o = failing.outputs;
    assert.equal(o["exit-code"], "1");
    assert.equal(o["report-dir"], join(failing.workspace, "out", "reports"));
    assert.isAtLeast(Number(o.failed), 1);
    const r = report(failing);
    const row = r.results.find((x) => x.id === KILLED)!;
    assert.equal(row.status, "FAIL");
    assert.equal(r.run.target.kind, "emulator");
    const s = failing.summary;
    assert.include(s, "Exit 1: a result changed");
    assert.include(s, `### Rows that fail the run (${o.failed})`);
    assert.include(s, `| \`${KILLED}\` | FAIL | `);
    assert.include(s, row.message!.slice(0, 60).replace(/\|/g, "\\|"));
  });

  it("sweep-older-than sweeps the target before the run", function () {
    assert.match(
      failing.steps[1].stdout,
      /^Nothing to sweep on emulator account devstoreaccount1 \(blob, queue, table\): no run-prefixed resource older than 6h\.$/m,
    );
    assert.notInclude(passing.steps[1].stdout, "sweep");
  });

  it("a failing run: the expectation files rewritten from it are proposed beside the reports, the suite's own untouched", function () {
    const dir = failing.outputs["proposed-expectations"];
    assert.equal(dir, join(failing.outputs["report-dir"], "proposed-expectations"));
    const pins = Object.assign(
      {},
      ...["azurite.json", "azurite.blob.json"]
        .filter((f) => existsSync(join(dir, f)))
        .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")).pins),
    );
    assert.deepInclude(pins[KILLED], { status: "FAIL", reason: "TODO: explain" });
    assert.include(failing.summary, "proposed-expectations/");
    const own =
      readFileSync(join(ROOT, "expectations", "azurite.blob.json"), "utf8") +
      readFileSync(join(ROOT, "expectations", "azurite.json"), "utf8");
    assert.notInclude(own, `"${KILLED}"`);
  });

  it("bad input: exit 2, the error in the summary, no counts, the action fails", function () {
    assert.equal(bad.failed?.name, "Verdict");
    assert.equal(bad.failed?.code, 2);
    assert.equal(bad.outputs["exit-code"], "2");
    assert.equal(bad.outputs.total, "");
    assert.include(bad.summary, "Exit 2: bad input");
    assert.match(bad.summary, /CONFORMANCE_MAX_TRIES="many" is not a whole number/);
  });
});

describe("workflows: the nightly template, CI and release", function () {
  const workflow = (name: string) =>
    parse(readFileSync(join(ROOT, ".github", "workflows", name), "utf8")) as {
      on: unknown;
      jobs: Record<
        string,
        { needs?: string; permissions?: Record<string, string>; steps: { uses?: string; run?: string; with?: Record<string, string> }[] }
      >;
    };
  const steps = (w: ReturnType<typeof workflow>) => Object.values(w.jobs).flatMap((j) => j.steps);

  it("the nightly template runs the suite through the Action, not its own steps", function () {
    const w = workflow("nightly.yml");
    const uses = steps(w).filter((s) => s.uses?.includes("azure-storage-concurrency-conformance"));
    assert.lengthOf(uses, 2, "the embedded Azurite and the live account");
    assert.isTrue(
      steps(w).every((s) => !s.run || /^echo /.test(s.run)),
      "no run step but a notice",
    );
    for (const u of uses) for (const k of Object.keys(u.with ?? {})) assert.include(Object.keys(readAction().inputs), k);
  });

  it("CI runs .ci/run (type-check, build, publish dry run, tests) and the Action from the checkout", function () {
    const w = workflow("ci.yml");
    assert.isTrue(steps(w).some((s) => s.run === ".ci/run"));
    assert.isTrue(steps(w).some((s) => s.uses === "./"));
    const ci = readFileSync(join(ROOT, ".ci", "run"), "utf8");
    for (const cmd of ["npm run typecheck", "npm run build", "npm publish --dry-run", "npm test", "npm run selftest"])
      assert.include(ci, cmd);
  });

  it("a v* tag runs the tests, then publishes with provenance", function () {
    const w = workflow("release.yml");
    assert.deepEqual(w.on, { push: { tags: ["v*"] } });
    assert.isTrue(w.jobs.test.steps.some((s) => s.run === ".ci/run"));
    assert.equal(w.jobs.publish.needs, "test");
    assert.equal(w.jobs.publish.permissions?.["id-token"], "write");
    assert.isTrue(w.jobs.publish.steps.some((s) => s.run === "npm publish --provenance --access public"));
  });
});
