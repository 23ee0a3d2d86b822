// Version-aware pins: the version in a Server header, whether a pin's range
// covers it (judge), the loader refusing a bad range, and the updater keeping,
// narrowing and widening ranges (and keeping a topic file that has an "about").
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assert } from "chai";
import { signatureOf, type Pin } from "../../fixtures/harness/engine.ts";
import { judge, loadExpectations } from "../../fixtures/harness/expectations.ts";
import { ConfigError } from "../../fixtures/wire/target.ts";
import { narrowBelow, pinApplies, pinInForce, serverVersion, serverVersions } from "../../model/versions.ts";
import { result } from "./row-result.ts";
import { applyReport, loadFiles, writeFiles } from "../../bin/expectations-apply.ts";

const MSG = "Put Blob, If-Match: * where no blob exists: expected refusal 412 ConditionNotMet, but it succeeded";

const pin = (p: Partial<Pin> = {}): Pin => ({ status: "FAIL", signature: signatureOf(MSG), reason: "fixed in 3.37.0", ...p });

describe("version-aware pins", function () {
  it("reads the version of a Server header (Azurite, a custom emulator, Azure)", function () {
    assert.equal(serverVersion("Azurite-Blob/3.35.0"), "3.35.0");
    assert.equal(serverVersion("MyEmu/2.1.0-beta.3 (linux)"), "2.1.0-beta.3");
    assert.equal(serverVersion("Windows-Azure-Blob/1.0 Microsoft-HTTPAPI/2.0"), "1.0.0");
    assert.isUndefined(serverVersion("nginx"));
    assert.isUndefined(serverVersion(undefined));
    assert.deepEqual(serverVersions({ blob: "Azurite-Blob/3.37.0", file: undefined }), { blob: "3.37.0" });
  });

  it("a pin with a range holds inside it only; outside (or with no version known) the catalogue alone judges", function () {
    const p = pin({ versions: "<3.37.0" });
    assert.isTrue(pinApplies(p, "3.35.0"));
    assert.isFalse(pinApplies(p, "3.37.0"));
    assert.isFalse(pinApplies(p, undefined));
    assert.isTrue(pinApplies(pin(), undefined), "no range: every version");
    assert.equal(judge(result("a/b", "FAIL", MSG), p, "3.35.0").status, "EXPECTED_FAIL");
    assert.equal(judge(result("a/b", "PASS"), p, "3.37.0").status, "PASS", "the fixed version passes, no UNEXPECTED_PASS");
    assert.equal(judge(result("a/b", "PASS"), p, "3.35.0").status, "UNEXPECTED_PASS");
    const outside = judge(result("a/b", "FAIL", MSG), p, "3.38.0");
    assert.equal(outside.status, "FAIL");
    assert.include(outside.message!, "a pin for versions <3.37.0 does not apply to version 3.38.0");
    assert.equal(outside.signature, signatureOf(MSG), "the signature is the failure's own");
  });

  it("a row sees its pin by the version of its own service, also a general/* row (whose ID names no service)", function () {
    const pins = { "general/linearizable/blob": pin({ versions: "<3.37.0" }), "queue/x": pin({ versions: "<3.37.0" }) };
    const versions = { blob: "3.35.0", queue: "3.37.0" };
    const inForce = pinInForce(pins, versions, (id) => ({ "general/linearizable/blob": "blob", "queue/x": "queue" })[id]);
    assert.exists(inForce("general/linearizable/blob"), "judged by the blob service's version, not a 'general' one");
    assert.isUndefined(inForce("queue/x"), "3.37.0 is outside the range");
    assert.isUndefined(inForce("blob/unpinned"));
  });

  it("narrows a range below a version that passes", function () {
    assert.equal(narrowBelow(">=3.15.0", "3.37.0"), ">=3.15.0 <3.37.0");
    assert.equal(narrowBelow("<3.30.0 || 3.36.0", "3.36.0"), "<3.30.0 <3.36.0");
    assert.isUndefined(narrowBelow(">=3.36.0", "3.36.0"));
  });

  describe("files", function () {
    let dir: string;
    beforeEach(function () {
      dir = mkdtempSync(join(tmpdir(), "conformance-versions-"));
    });
    afterEach(function () {
      rmSync(dir, { recursive: true, force: true });
    });
    const write = (name: string, data: object) =>
      writeFileSync(join(dir, name), JSON.stringify({ target: "emu", ...data }, null, 2) + "\n");
    const read = (name: string) => JSON.parse(readFileSync(join(dir, name), "utf8")) as { about?: string; pins: Record<string, Pin> };

    it("the loader refuses a range that is not semver", function () {
      write("emu.json", { pins: { "blob/x/a": pin({ versions: "three-ish" }) } });
      assert.throws(
        () => loadExpectations(join(dir, "emu.json")),
        ConfigError,
        /pin blob\/x\/a has versions "three-ish", which is not a semver range/,
      );
    });

    it("the updater keeps ranges, narrows them on a pass, widens them on the same failure, reports a conflict", function () {
      write("emu.json", {
        pins: {
          "blob/x/fixed": pin({ versions: ">=3.15.0" }),
          "blob/x/still": pin({ versions: ">=3.15.0", link: "https://github.com/Azure/Azurite/issues/1" }),
          "blob/x/old-only": pin({ versions: "<3.20.0" }),
          "blob/x/regressed": pin({ versions: "<3.20.0" }),
          "blob/x/other-way": pin({ versions: "<3.20.0" }),
          "blob/x/unranged": pin(),
          "blob/x/last": pin({ versions: "3.37.0" }),
        },
      });
      const files = loadFiles(join(dir, "emu.json"), "emu");
      const sum = applyReport(
        files,
        {
          results: [
            result("blob/x/fixed", "PASS"),
            result("blob/x/still", "FAIL", MSG),
            result("blob/x/old-only", "PASS"),
            result("blob/x/regressed", "FAIL", MSG),
            result("blob/x/other-way", "FAIL", "another failure"),
            result("blob/x/unranged", "PASS"),
            result("blob/x/last", "PASS"),
          ],
          notRun: [],
        },
        undefined,
        { blob: "3.37.0" },
      );
      writeFiles(files, sum);
      const pins = read("emu.json").pins;
      assert.equal(pins["blob/x/fixed"].versions, ">=3.15.0 <3.37.0", "a pass narrows the range below the version");
      assert.deepEqual(Object.keys(pins["blob/x/still"]), ["status", "versions", "signature", "reason", "link"]);
      assert.equal(pins["blob/x/still"].versions, ">=3.15.0", "an applying pin keeps its range");
      assert.equal(pins["blob/x/old-only"].versions, "<3.20.0", "a pin for other versions is left alone");
      assert.equal(pins["blob/x/regressed"].versions, "<3.20.0 || 3.37.0", "the same failure outside the range widens it");
      assert.equal(pins["blob/x/other-way"].signature, signatureOf(MSG), "a different failure outside the range is not pinned over");
      assert.deepEqual(
        sum.conflicts.map((c) => c.id),
        ["blob/x/other-way"],
      );
      assert.isUndefined(pins["blob/x/unranged"], "a pin without a range is dropped on a pass");
      assert.isUndefined(pins["blob/x/last"], "a range left empty drops the pin");
    });

    it("a list of pins, each for its own range: the run judges by the one covering its version, the updater touches only that one", function () {
      const OTHER = "Set Blob Tags: expected 204, got 400";
      const entry = [pin({ versions: ">=3.15.0 <3.29.0", signature: signatureOf(OTHER) }), pin({ versions: ">=3.29.0 <3.35.0" })];
      assert.equal(judge(result("blob/x/list", "FAIL", OTHER), entry, "3.15.0").status, "EXPECTED_FAIL", "3.15.0: the first pin");
      assert.equal(judge(result("blob/x/list", "FAIL", MSG), entry, "3.29.0").status, "EXPECTED_FAIL", "3.29.0: the second pin");
      assert.equal(
        judge(result("blob/x/list", "FAIL", OTHER), entry, "3.29.0").status,
        "FAIL",
        "3.29.0 failing as 3.15.0 does: a different failure",
      );
      assert.equal(judge(result("blob/x/list", "PASS"), entry, "3.35.0").status, "PASS", "a version no pin covers: the catalogue alone");
      assert.equal(pinInForce({ "blob/x/list": entry }, { blob: "3.29.0" }, () => "blob")("blob/x/list"), entry[1]);
      write("emu.json", { pins: { "blob/x/list": entry } });
      assert.deepEqual(loadExpectations(join(dir, "emu.json")).pins["blob/x/list"], entry, "the loader reads a list");
      const files = loadFiles(join(dir, "emu.json"), "emu");
      writeFiles(files, applyReport(files, { results: [result("blob/x/list", "PASS")], notRun: [] }, undefined, { blob: "3.30.0" }));
      assert.deepEqual(
        read("emu.json").pins["blob/x/list"] as unknown,
        [entry[0], { ...entry[1], versions: narrowBelow(">=3.29.0 <3.35.0", "3.30.0") }],
        "a pass narrows the pin covering it; the other stays",
      );
    });

    it('a topic file with an "about" and no pins left is kept', function () {
      write("emu.json", { pins: {} });
      write("emu.table.json", { about: "table service: every row passes", pins: { "table/x/a": pin() } });
      write("emu.queue.json", { pins: { "queue/x/a": pin() } });
      const files = loadFiles(join(dir, "emu.json"), "emu");
      const q = { ...result("queue/x/a", "PASS"), service: "queue" as const };
      writeFiles(files, applyReport(files, { results: [{ ...result("table/x/a", "PASS"), service: "table" }, q], notRun: [] }));
      assert.deepEqual(readdirSync(dir).sort(), ["emu.json", "emu.table.json"]);
      assert.deepEqual(read("emu.table.json"), { target: "emu", about: "table service: every row passes", pins: {} } as object);
    });
  });
});
