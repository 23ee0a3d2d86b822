// The file suite against the file double (Azurite has no File service): every
// implemented F row PASSes (SMB rows MANUAL), the double verifies Shared Key,
// and each mutant of the double is killed by a named file test: the
// hand-written ones (mutants.ts) over the rows of section F, the ones
// generated from the surface's pairs and the share lease table
// (surface-mutants.ts) over the rows they name. The double is a fixture; the
// report never certifies it.
import { randomBytes } from "node:crypto";
import { expect } from "chai";
import { runHeadless, type HeadlessRun } from "./headless.ts";
import { rawRequest } from "../fixtures/wire/raw.ts";
import { registeredRows } from "../fixtures/harness/registry.ts";
import { listedSurface } from "../fixtures/run/surface.ts";
import { resolveConnectionString } from "../fixtures/wire/target.ts";
import { DOUBLE_MUTANTS, named, type DoubleMutant } from "./file-double/mutants.ts";
import { SURFACE_MUTANTS } from "./file-double/surface-mutants.ts";
import { notApplicable } from "../model/surface.ts";
import { CLAIMS } from "../suites/file/surface/surface-claims.ts";
import { mayPermitFailing } from "../suites/file/surface/surface-rules.ts";
import { startFileDouble, type FileDouble } from "./file-double/server.ts";

const isFile = (id: string) => id.startsWith("file/");
/** The rows the generated mutants are for (the hand-written ones run the others). */
const isSurface = (id: string) => id.startsWith("file/surface/") || id.startsWith("file/share-lease/");
const MANUAL_IDS = ["file/smb/sharing-violation", "file/smb/delete-pending"];

async function runAgainst(
  flags: Parameters<typeof startFileDouble>[0] = {},
  select = (id: string) => isFile(id) && !isSurface(id),
): Promise<HeadlessRun> {
  const d = await startFileDouble(flags);
  try {
    return await runHeadless({ connectionString: d.connectionString, select });
  } finally {
    await d.stop();
  }
}

/** Runs each generated mutant over the rows it names, `jobs` at once. */
async function runGenerated(mutants: DoubleMutant[], jobs: number): Promise<Map<string, HeadlessRun>> {
  const runs = new Map<string, HeadlessRun>();
  const queue = [...mutants];
  const worker = async () => {
    for (let m = queue.shift(); m; m = queue.shift()) {
      const kills = m.kills;
      runs.set(m.name, await runAgainst(m.flags, (id) => named(kills, id)));
    }
  };
  await Promise.all(Array.from({ length: jobs }, worker));
  return runs;
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

  describe("mutants of the double (each must make a named file test FAIL)", mutantTests);
});

/** The mutants of the double: the hand-written ones over the rows of section F, the generated ones over the rows each names. */
function mutantTests(): void {
  // Every row any mutant made FAIL: each row that can pass must be among them.
  const broken = new Set<string>();
  const killedBy = (m: DoubleMutant, run: HeadlessRun) => {
    const failed = run.results.filter((r) => r.status === "FAIL").map((r) => r.id);
    for (const id of failed) broken.add(id);
    const killers = failed.filter((id) => named(m.kills, id));
    expect(killers, `survived: none of ${m.kills.join(", ")} FAILed\n${summary(run)}`).to.not.be.empty;
  };
  for (const m of DOUBLE_MUTANTS) {
    it(`file/ double mutant ${m.name}: ${m.description}`, async function () {
      killedBy(m, await runAgainst(m.flags));
    });
  }

  let generated: Map<string, HeadlessRun>;
  before(async function () {
    generated = await runGenerated(SURFACE_MUTANTS, 4);
  });
  it("file/ generated mutants: three per applicable pair of the file surface (catalogue/surface.tsv; two where ignoring it is an accepted answer), one per cell of the share lease table, one per share lease rule", function () {
    const listed = (listedSurface() ?? [])
      .filter((p) => p.service === "file" && !notApplicable(p))
      .map((p) => `${p.operation} ${p.parameter}`);
    const pairs = new Set(
      SURFACE_MUTANTS.filter((m) => m.flags.deviation).map((m) => `${m.flags.deviation!.operation} ${m.flags.deviation!.parameter}`),
    );
    expect([...pairs].sort()).to.deep.equal([...new Set(listed)].sort());
    expect(pairs.size).to.equal(37);
    const disputed = CLAIMS.filter(mayPermitFailing).length;
    expect(disputed).to.equal(1);
    expect(SURFACE_MUTANTS.filter((m) => m.flags.deviation).length).to.equal(3 * 37 - disputed);
    expect(SURFACE_MUTANTS.filter((m) => m.flags.shareLeaseCell).length).to.equal(40);
  });
  for (const m of SURFACE_MUTANTS) {
    it(`file/ double mutant ${m.name}: ${m.description}`, function () {
      const run = generated.get(m.name)!;
      expect(run.results.map((r) => r.id).sort(), `${m.name} ran the rows it names`).to.deep.equal(
        registeredRows()
          .map((r) => r.row.id)
          .filter((id) => named(m.kills, id))
          .sort(),
      );
      killedBy(m, run);
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
}
