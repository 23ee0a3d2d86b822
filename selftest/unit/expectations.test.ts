// Expectations: applyPin (what a pin does to a result), the loader (topic
// files merged), and the updater (bin/expectations-update.ts) that rewrites
// pins from a report.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assert } from "chai";
import { applyPin, signatureOf, type Pin } from "../../fixtures/harness/engine.ts";
import { loadExpectations } from "../../fixtures/harness/expectations.ts";
import { ConfigError } from "../../fixtures/wire/target.ts";
import { result } from "./row-result.ts";
import { applyReport, loadFiles, TODO_REASON, writeFiles } from "../../bin/expectations-apply.ts";

const MSG = "Set Blob Metadata with stale If-Match: expected 412 ConditionNotMet, got 200";
const pin = (p: Partial<Pin> = {}): Pin => ({ status: "FAIL", signature: signatureOf(MSG), reason: "Azurite ignores it", ...p });

describe("applyPin", function () {
  it("no pin: the observed status stands", function () {
    assert.equal(applyPin(result("a/b", "FAIL", MSG), undefined).status, "FAIL");
    assert.equal(applyPin(result("a/b", "PASS"), undefined).status, "PASS");
  });

  it("a FAIL matching the pinned signature is EXPECTED_FAIL and keeps the pin", function () {
    const r = applyPin(result("a/b", "FAIL", MSG), pin());
    assert.equal(r.status, "EXPECTED_FAIL");
    assert.equal(r.observed, "FAIL");
    assert.equal(r.expectation?.reason, "Azurite ignores it");
  });

  it("signatures ignore what differs run to run (ETags, dates, names)", function () {
    const a = signatureOf('x: expected "0x8DD1234567890AB", got "0x8DD1234567890CD" at 2026-01-01T00:00:00Z on cc0t1abcd123456c0001');
    const b = signatureOf('x: expected "0x8DDFFFFFFFFFFFF", got "0x8DDEEEEEEEEEEEE" at 2027-02-02T10:11:12.5Z on cc0t2zzzz987654c0042');
    assert.equal(a, b);
    assert.equal(applyPin(result("a/b", "FAIL", a), pin({ signature: b })).status, "EXPECTED_FAIL");
  });

  it("a pass against a pin is UNEXPECTED_PASS (the run fails, so the pin gets removed)", function () {
    const r = applyPin(result("a/b", "PASS"), pin());
    assert.equal(r.status, "UNEXPECTED_PASS");
    assert.match(r.message!, /remove the pin/);
  });

  it("a different failure than the pinned one is FAIL, and says both", function () {
    const r = applyPin(result("a/b", "FAIL", "Set Blob Metadata ETag: expected a quoted ETag, got none"), pin());
    assert.equal(r.status, "FAIL");
    assert.include(r.message!, "differs from the pinned outcome");
    assert.include(r.message!, "expected a quoted ETag");
  });

  it("a pin without a signature matches any failure of that status", function () {
    assert.equal(applyPin(result("a/b", "FAIL", "anything"), pin({ signature: undefined })).status, "EXPECTED_FAIL");
  });

  it("a non-FAIL pin that matches keeps its status; one that does not is FAIL", function () {
    assert.equal(
      applyPin(result("a/b", "PRECONDITION_FAILED", "no pending copy"), pin({ status: "PRECONDITION_FAILED", signature: undefined }))
        .status,
      "PRECONDITION_FAILED",
    );
    assert.equal(applyPin(result("a/b", "FAIL", MSG), pin({ status: "PRECONDITION_FAILED", signature: undefined })).status, "FAIL");
  });

  it("INCONCLUSIVE under a FAIL pin stays INCONCLUSIVE (no verdict either way)", function () {
    assert.equal(applyPin(result("a/b", "INCONCLUSIVE", "the target did not answer"), pin()).status, "INCONCLUSIVE");
  });

  it("PRECONDITION_FAILED under a FAIL pin stays PRECONDITION_FAILED (the row could not ask the question)", function () {
    assert.equal(
      applyPin(result("a/b", "PRECONDITION_FAILED", "the lease never read back as expired"), pin()).status,
      "PRECONDITION_FAILED",
    );
  });
});

describe("pins on a failure's data", function () {
  const failure = { step: "Set Blob Metadata with a stale If-Match", expected: "412 ConditionNotMet", got: "200" };
  const withData = (message: string, data = failure) => ({ ...result("a/b", "FAIL", message), failure: data });

  it("a data pin holds whatever the message's words: the step, expected and got decide", function () {
    const p = pin({ signature: failure });
    assert.equal(applyPin(withData(MSG), p).status, "EXPECTED_FAIL");
    assert.equal(applyPin(withData("the metadata write went through although its If-Match was stale"), p).status, "EXPECTED_FAIL");
    assert.equal(applyPin(withData(MSG, { ...failure, got: "412 ConditionNotMet" }), p).status, "FAIL", "another answer");
    assert.equal(applyPin(withData(MSG, { ...failure, step: "read back" }), p).status, "FAIL", "another step");
    assert.include(
      applyPin(withData(MSG, { ...failure, got: "201" }), p).message!,
      'step "Set Blob Metadata with a stale If-Match", expected 412 ConditionNotMet, got 200',
    );
  });

  it("a pin in the older text form still matches the message's signature", function () {
    assert.equal(applyPin(withData(MSG), pin()).status, "EXPECTED_FAIL");
    assert.equal(applyPin(withData("reworded"), pin()).status, "FAIL");
  });

  it("the loader takes both forms and refuses a signature of another shape", function () {
    const dir = mkdtempSync(join(tmpdir(), "conformance-expect-"));
    try {
      const file = join(dir, "emu.json");
      writeFileSync(
        file,
        JSON.stringify({
          target: "emu",
          pins: { "a/text": pin(), "a/data": pin({ signature: failure }), "a/derived": pin({ signature: { failed: ["if-match"] } }) },
        }),
      );
      assert.deepEqual(loadExpectations(file).pins["a/data"], pin({ signature: failure }));
      writeFileSync(
        file,
        JSON.stringify({ target: "emu", pins: { "a/bad": pin({ signature: { step: "s", status: 412 } as unknown as Pin["signature"] }) } }),
      );
      assert.throws(() => loadExpectations(file), ConfigError, /neither a string nor/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the updater writes new pins in the data form and rewrites a matching text pin in it, without calling that a change", function () {
    const dir = mkdtempSync(join(tmpdir(), "conformance-expect-"));
    try {
      writeFileSync(
        join(dir, "emu.json"),
        JSON.stringify({ target: "emu", pins: { "blob/x/old": pin({ link: "https://example.org/1" }) } }),
      );
      const files = loadFiles(join(dir, "emu.json"), "emu");
      const sum = applyReport(files, {
        results: [
          { ...withData(MSG), id: "blob/x/old" },
          { ...withData(MSG), id: "blob/x/new" },
        ],
        notRun: [],
      });
      writeFiles(files, sum);
      assert.deepEqual(sum.changed, []);
      assert.deepEqual(sum.added, ["blob/x/new"]);
      const pins = (JSON.parse(readFileSync(join(dir, "emu.json"), "utf8")) as { pins: Record<string, Pin> }).pins;
      assert.deepEqual(pins["blob/x/old"], {
        status: "FAIL",
        signature: failure,
        reason: "Azurite ignores it",
        link: "https://example.org/1",
      });
      assert.deepEqual(pins["blob/x/new"].signature, failure);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("expectation files", function () {
  let dir: string;
  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), "conformance-expect-"));
  });
  afterEach(function () {
    rmSync(dir, { recursive: true, force: true });
  });
  const write = (name: string, pins: Record<string, Pin>) =>
    writeFileSync(join(dir, name), JSON.stringify({ target: "emu", pins }, null, 2) + "\n");
  const read = (name: string) => JSON.parse(readFileSync(join(dir, name), "utf8")) as { target: string; pins: Record<string, Pin> };

  it("the loader merges <target>.<topic>.json into <target>.json, and refuses pins without a reason", function () {
    write("emu.json", { "blob/x/a": pin() });
    write("emu.leases.json", { "blob/lease/b": pin({ reason: "r2" }) });
    write("emulator.json", { "blob/other/c": pin() }); // another target, not a topic file of emu
    const e = loadExpectations(join(dir, "emu.json"));
    assert.deepEqual(Object.keys(e.pins).sort(), ["blob/lease/b", "blob/x/a"]);
    write("emu.bad.json", { "blob/x/d": { status: "FAIL", reason: "" } });
    assert.throws(() => loadExpectations(join(dir, "emu.json")), ConfigError, /has no reason/);
  });

  it("the updater pins new failures (TODO reason), keeps reasons and links, drops passes and gone IDs, keeps what was not run", function () {
    write("emu.json", {
      "blob/x/now-passes": pin(),
      "blob/x/changed": pin({ link: "https://github.com/Azure/Azurite/issues/1" }),
      "blob/x/gone": pin(),
      "blob/x/not-run": pin({ reason: "kept" }),
      "blob/x/inconclusive": pin({ reason: "kept too" }),
    });
    write("emu.leases.json", { "blob/lease/same": pin({ reason: "lease reason" }), "blob/lease/passes": pin() });
    const files = loadFiles(join(dir, "emu.json"), "emu");
    const sum = applyReport(files, {
      results: [
        result("blob/x/now-passes", "PASS"),
        result("blob/x/changed", "FAIL", "a new way to fail"),
        result("blob/x/inconclusive", "INCONCLUSIVE", "timeout"),
        result("blob/x/new", "FAIL", MSG),
        result("blob/lease/same", "FAIL", MSG),
        result("blob/lease/passes", "PASS"),
        result("blob/lease/new", "FAIL", MSG),
        result("blob/lease/na", "NOT_AVAILABLE", "no service"),
      ],
      notRun: ["blob/x/not-run"],
    });
    writeFiles(files, sum);
    assert.sameMembers(sum.added, ["blob/x/new", "blob/lease/new"]);
    assert.sameMembers(sum.removed, ["blob/x/now-passes", "blob/lease/passes"]);
    assert.deepEqual(sum.stale, ["blob/x/gone"]);
    assert.deepEqual(
      sum.changed.map((c) => c.id),
      ["blob/x/changed"],
    );

    const main = read("emu.json");
    assert.equal(main.target, "emu");
    assert.deepEqual(
      Object.keys(main.pins),
      ["blob/x/changed", "blob/x/inconclusive", "blob/x/new", "blob/x/not-run"],
      "sorted, passes and gone IDs dropped",
    );
    assert.deepEqual(main.pins["blob/x/changed"], {
      status: "FAIL",
      signature: "a new way to fail",
      reason: "Azurite ignores it",
      link: "https://github.com/Azure/Azurite/issues/1",
    });
    assert.deepEqual(main.pins["blob/x/new"], { status: "FAIL", signature: signatureOf(MSG), reason: TODO_REASON });
    assert.equal(main.pins["blob/x/not-run"].reason, "kept");
    assert.equal(main.pins["blob/x/inconclusive"].reason, "kept too");

    const topic = read("emu.leases.json");
    assert.deepEqual(Object.keys(topic.pins), ["blob/lease/new", "blob/lease/same"], "a new pin goes to the topic file of its prefix");
    assert.equal(topic.pins["blob/lease/same"].reason, "lease reason");
    assert.isUndefined(topic.pins["blob/lease/na"], "no pin for a row without a verdict");

    // The loader reads the result back: the run would now pass with these pins.
    const loaded = loadExpectations(join(dir, "emu.json"));
    assert.equal(applyPin(result("blob/lease/new", "FAIL", MSG), loaded.pins["blob/lease/new"] as Pin).status, "EXPECTED_FAIL");
    assert.equal(
      applyPin(result("blob/x/changed", "FAIL", "a new way to fail"), loaded.pins["blob/x/changed"] as Pin).status,
      "EXPECTED_FAIL",
    );
  });

  it("a topic file left without pins is deleted; a missing main file is created only when needed", function () {
    write("emu.leases.json", { "blob/lease/passes": pin() });
    const files = loadFiles(join(dir, "emu.json"), "emu");
    const sum = applyReport(files, { results: [result("blob/lease/passes", "PASS")], notRun: [] });
    writeFiles(files, sum);
    assert.deepEqual(readdirSync(dir), [], "topic file deleted, no empty main file created");

    const again = loadFiles(join(dir, "emu.json"), "emu");
    writeFiles(again, applyReport(again, { results: [result("blob/x/new", "FAIL", MSG)], notRun: [] }));
    assert.deepEqual(readdirSync(dir), ["emu.json"]);
    assert.equal(read("emu.json").pins["blob/x/new"].reason, TODO_REASON);
  });

  it("a pin of a row the current suite has, missing from an older report, is kept", function () {
    write("emu.json", { "blob/x/new-row": pin(), "blob/x/removed-row": pin() });
    const files = loadFiles(join(dir, "emu.json"), "emu");
    const sum = applyReport(files, { results: [], notRun: [] }, new Set(["blob/x/new-row"]));
    assert.deepEqual(sum.kept, ["blob/x/new-row"]);
    assert.deepEqual(sum.stale, ["blob/x/removed-row"]);
  });

  it("the updater pins each operation UNSUPPORTED rows lack, once, and drops an operation pin whose operation answered", function () {
    writeFileSync(
      join(dir, "emu.json"),
      JSON.stringify({
        target: "emu",
        pins: {},
        unsupported: { "Lease Container": { reason: "none yet" }, "Snapshot Blob": { reason: "kept" } },
      }),
    );
    const lacking = (id: string, operation: string) => ({ ...result(id, "UNSUPPORTED", "x"), unsupported: [{ operation, status: 501 }] });
    const answered = {
      ...result("blob/x/passes", "PASS"),
      evidence: [
        {
          seq: 1,
          via: "raw" as const,
          operation: "Lease Container (acquire)",
          method: "PUT",
          url: "/c",
          requestHeaders: {},
          responseHeaders: {},
          status: 201,
          ms: 1,
        },
      ],
    };
    const files = loadFiles(join(dir, "emu.json"), "emu");
    const sum = applyReport(files, {
      results: [lacking("blob/x/a", "Put Page"), lacking("blob/x/b", "Put Page"), lacking("blob/x/c", "Snapshot Blob"), answered],
      notRun: [],
    });
    writeFiles(files, sum);
    assert.deepEqual(sum.addedOperations, ["unsupported Put Page"]);
    assert.deepEqual(sum.removedOperations, ["unsupported Lease Container (Lease Container (acquire) answered)"]);
    const written = JSON.parse(readFileSync(join(dir, "emu.json"), "utf8"));
    assert.deepEqual(written.unsupported, { "Put Page": { reason: TODO_REASON }, "Snapshot Blob": { reason: "kept" } });
    assert.deepEqual(written.pins, {}, "no row pin for an UNSUPPORTED row");
    assert.deepEqual(loadExpectations(join(dir, "emu.json")).unsupported, written.unsupported);
  });

  it("the updater pins each operation a server fault decided a row by under `faults`, with no row pin, and drops one that answered", function () {
    writeFileSync(
      join(dir, "emu.json"),
      JSON.stringify({ target: "emu", pins: {}, faults: { "Put Block List": { reason: "fixed since" } } }),
    );
    const faulted = (id: string, operation: string) => ({
      ...result(id, "FAIL", `server fault: ${operation} answered 500 InternalError to every try (4), and again on the re-run`),
      faults: [{ operation, status: 500, code: "InternalError", tries: 4 }],
    });
    const answered = {
      ...result("blob/x/passes", "PASS"),
      evidence: [
        {
          seq: 1,
          via: "raw" as const,
          operation: "Put Block List",
          method: "PUT",
          url: "/c/b?comp=blocklist",
          requestHeaders: {},
          responseHeaders: {},
          status: 201,
          ms: 1,
        },
      ],
    };
    const files = loadFiles(join(dir, "emu.json"), "emu");
    const sum = applyReport(files, {
      results: [faulted("blob/x/a", "Lease Blob (renew)"), faulted("blob/x/b", "Lease Blob (renew)"), answered],
      notRun: [],
    });
    writeFiles(files, sum);
    assert.deepEqual(sum.addedOperations, ["server fault Lease Blob (renew)"]);
    assert.deepEqual(sum.removedOperations, ["server fault Put Block List (Put Block List answered)"]);
    const written = JSON.parse(readFileSync(join(dir, "emu.json"), "utf8"));
    assert.deepEqual(written.faults, { "Lease Blob (renew)": { reason: TODO_REASON } });
    assert.deepEqual(written.pins, {}, "no row pin for a row a server fault decided");
    assert.deepEqual(loadExpectations(join(dir, "emu.json")).faults, written.faults);
  });

  it("an unchanged file is not rewritten", function () {
    write("emu.json", { "blob/x/a": pin() });
    const before = readFileSync(join(dir, "emu.json"), "utf8");
    const files = loadFiles(join(dir, "emu.json"), "emu");
    const sum = applyReport(files, { results: [result("blob/x/a", "FAIL", MSG)], notRun: [] });
    writeFiles(files, sum);
    assert.deepEqual(sum.written, []);
    assert.equal(readFileSync(join(dir, "emu.json"), "utf8"), before);
  });
});
