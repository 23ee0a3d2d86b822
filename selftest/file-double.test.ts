// The file suite against the file double (Azurite has no File service): every
// implemented F row PASSes (SMB rows MANUAL), the double verifies Shared Key,
// and each mutant of the double is killed by a named file test. The double is
// a fixture; the report never certifies it.
import { randomBytes } from "node:crypto";
import { expect } from "chai";
import { runHeadless, type HeadlessRun } from "./headless.ts";
import { rawRequest } from "../fixtures/wire/raw.ts";
import { registeredRows } from "../fixtures/harness/registry.ts";
import { resolveConnectionString } from "../fixtures/wire/target.ts";
import { DOUBLE_MUTANTS, named } from "./file-double/mutants.ts";
import { startFileDouble, type FileDouble } from "./file-double/server.ts";

const isFile = (id: string) => id.startsWith("file/");
const MANUAL_IDS = ["file/smb/sharing-violation", "file/smb/delete-pending"];

async function runAgainst(flags: Parameters<typeof startFileDouble>[0] = {}): Promise<HeadlessRun> {
  const d = await startFileDouble(flags);
  try {
    return await runHeadless({ connectionString: d.connectionString, select: isFile });
  } finally {
    await d.stop();
  }
}

const summary = (run: HeadlessRun) =>
  run.results.map((r) => `${r.status} ${r.id}${r.message ? ": " + r.message.slice(0, 160) : ""}`).join("\n");

describe("file double", function () {
  describe("the file suite against the correct double", function () {
    let double: FileDouble;
    let run: HeadlessRun;
    before(async function () {
      double = await startFileDouble();
      run = await runHeadless({ connectionString: double.connectionString, select: isFile });
    });
    after(() => double?.stop());

    it("file/: the preflight finds the file service, and only it, from a connection string naming only a FileEndpoint", function () {
      const available = run.probes.filter((p) => p.available).map((p) => p.service);
      expect(available).to.deep.equal(["file"]);
      expect(double.calls.get("GetFileServiceProperties")).to.equal(1);
    });

    it("file/: every F row ran: implemented rows PASS, the SMB rows are MANUAL", function () {
      const ids = registeredRows()
        .map((r) => r.row.id)
        .filter(isFile)
        .sort();
      expect(run.results.map((r) => r.id).sort()).to.deep.equal(ids);
      expect(ids.length).to.be.greaterThan(MANUAL_IDS.length);
      for (const r of run.results) {
        const want = MANUAL_IDS.includes(r.id) ? "MANUAL" : "PASS";
        expect(r.status, `${r.id}: ${r.message ?? ""}\n${summary(run)}`).to.equal(want);
      }
    });

    it("file/: the rows reached the double through the SDK and raw requests (evidence on every row that ran)", function () {
      for (const r of run.results.filter((x) => x.status === "PASS")) {
        expect(r.evidence.length, r.id).to.be.greaterThan(0);
        expect(
          r.evidence.every((e) => e.status !== undefined && e.status < 500),
          r.id,
        ).to.equal(true);
      }
      expect(run.results.some((r) => r.evidence.some((e) => e.via === "raw"))).to.equal(true);
      expect(run.results.some((r) => r.evidence.some((e) => e.via === "sdk"))).to.equal(true);
    });

    it("file/: the double refuses a request signed with another key, or unsigned (403 AuthenticationFailed)", async function () {
      const good = resolveConnectionString(double.connectionString);
      const query = { restype: "service", comp: "properties" };
      const ok = await rawRequest(good, "file", { method: "GET", path: "/", query });
      expect(ok.status).to.equal(200);
      const wrongKey = { ...good, credentials: { ...good.credentials, accountKey: randomBytes(64).toString("base64") } };
      const bad = await rawRequest(wrongKey, "file", { method: "GET", path: "/", query });
      expect([bad.status, bad.errorCode]).to.deep.equal([403, "AuthenticationFailed"]);
      const unsigned = { ...good, credentials: { accountName: good.credentials.accountName } };
      const none = await rawRequest(unsigned, "file", { method: "GET", path: "/", query });
      expect([none.status, none.errorCode]).to.deep.equal([403, "AuthenticationFailed"]);
    });

    it("file/: a request signed as another account is refused", async function () {
      const good = resolveConnectionString(double.connectionString);
      const wrongAccount = { ...good, credentials: { ...good.credentials, accountName: "otheraccount" } };
      const res = await rawRequest(wrongAccount, "file", { method: "GET", path: "/", query: { restype: "service", comp: "properties" } });
      expect(res.status).to.equal(403);
    });
  });

  describe("mutants of the double (each must make a named file test FAIL)", function () {
    // Every row any mutant made FAIL: each row that can pass must be among them.
    const broken = new Set<string>();
    for (const m of DOUBLE_MUTANTS) {
      it(`file/ double mutant ${m.name}: ${m.description}`, async function () {
        const run = await runAgainst(m.flags);
        const failed = run.results.filter((r) => r.status === "FAIL").map((r) => r.id);
        for (const id of failed) broken.add(id);
        const killers = failed.filter((id) => named(m.kills, id));
        expect(killers, `survived: none of ${m.kills.join(", ")} FAILed\n${summary(run)}`).to.not.be.empty;
      });
    }

    it("file/: every file row that can pass is made to FAIL by some mutant of the double", function () {
      const canPass = registeredRows()
        .map((r) => r.row.id)
        .filter((id) => isFile(id) && !MANUAL_IDS.includes(id));
      expect(
        canPass.filter((id) => !broken.has(id)),
        "rows no mutant of the double breaks",
      ).to.deep.equal([]);
    });
  });
});
