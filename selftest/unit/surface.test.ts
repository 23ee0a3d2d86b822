// The surface lint: catalogue/surface.tsv is the concurrency surface of the
// installed SDKs (every (operation, concurrency parameter) pair their
// generated operation specs take, named as the request classifier names the
// SDK's request), and every row it names is registered. An SDK upgrade that
// adds a parameter shows as a pair missing from the file.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { assert } from "chai";
import { loadAllSuites } from "../headless.ts";
import { operationFamily, operationOf, surfaceNameOfRequest } from "../../fixtures/wire/operations.ts";
import { BLOB_OPERATIONS } from "../../suites/blob/operations.ts";
import { ANY_SUBJECT } from "../../suites/blob/operation-pairs.ts";
import { SURFACE_OPS } from "../../suites/blob/surface/surface-ops.ts";
import { ROOT } from "../../fixtures/paths.ts";
import { registeredRows } from "../../fixtures/harness/registry.ts";
import { declaredKey, declaredSurfaceRows, installedSdkSpecs, listedSurface, surfaceNameOf } from "../../fixtures/run/surface.ts";
import type { Service } from "../../model/result.ts";
import {
  classifierOperationOf,
  formatSurface,
  NOT_APPLICABLE,
  notApplicable,
  pairsOfSpecs,
  parseSurface,
  surfaceDifferences,
  surfaceOperationOf,
  type ListedPair,
  type SdkOperationSpec,
  type SurfacePair,
} from "../../model/surface.ts";

/** Row IDs the file names that no registered row has, each with its pair. */
export function unknownRows(listed: ListedPair[], ids: Set<string>): string[] {
  return listed.flatMap((p) => p.rows.filter((id) => !ids.has(id)).map((id) => `${id} (${p.operation}, ${p.parameter})`));
}

/** The REST reference's names of the file and share operations the surface holds (the specification's file names them by SDK operation). */
const FILE_OPERATIONS: Record<string, string> = {
  "directory.rename": "Rename Directory",
  "file.abortCopy": "Abort Copy File",
  "file.acquireLease": "Lease File (acquire)",
  "file.breakLease": "Lease File (break)",
  "file.changeLease": "Lease File (change)",
  "file.releaseLease": "Lease File (release)",
  "file.create": "Create File",
  "file.createHardLink": "Create Hard Link",
  "file.createSymbolicLink": "Create Symbolic Link",
  "file.delete": "Delete File",
  "file.download": "Get File",
  "file.getProperties": "Get File Properties",
  "file.getRangeList": "List Ranges",
  "file.rename": "Rename File",
  "file.setHttpHeaders": "Set File Properties",
  "file.setMetadata": "Set File Metadata",
  "file.startCopy": "Copy File",
  "file.uploadRange": "Put Range",
  "file.uploadRangeFromURL": "Put Range From URL",
  "share.acquireLease": "Lease Share (acquire)",
  "share.breakLease": "Lease Share (break)",
  "share.changeLease": "Lease Share (change)",
  "share.releaseLease": "Lease Share (release)",
  "share.renewLease": "Lease Share (renew)",
  "share.delete": "Delete Share",
  "share.getAccessPolicy": "Get Share ACL",
  "share.getProperties": "Get Share Properties",
  "share.getStatistics": "Get Share Stats",
  "share.setAccessPolicy": "Set Share ACL",
  "share.setMetadata": "Set Share Metadata",
  "share.setProperties": "Set Share Properties",
};

describe("surface lint: catalogue/surface.tsv and the installed SDKs", function () {
  let specs: SdkOperationSpec[];
  let derived: SurfacePair[];
  let listed: ListedPair[];
  before(async function () {
    specs = await installedSdkSpecs();
    derived = pairsOfSpecs(specs, surfaceNameOf);
    const file = listedSurface();
    assert.isDefined(file, "catalogue/surface.tsv is missing: npm run surface");
    listed = file!;
  });

  it("the file lists exactly the pairs the installed SDKs take (npm run surface rewrites it)", function () {
    assert.deepEqual(surfaceDifferences(derived, listed), []);
    assert.equal(listed.length, derived.length);
  });

  it("a parameter an SDK adds is reported missing from the file, one it drops as taken by no SDK", function () {
    const changed = specs.map((s) =>
      s.sdkOperation === "blob.delete"
        ? { ...s, headers: [...s.headers, { name: "x-ms-if-sequence-number-eq" }] }
        : s.sdkOperation === "blob.setTier"
          ? { ...s, headers: s.headers.filter((h) => h.name.toLowerCase() !== "x-ms-lease-id") }
          : s,
    );
    assert.deepEqual(surfaceDifferences(pairsOfSpecs(changed, surfaceNameOf), derived), [
      "missing from the list (the installed SDKs take it): blob | Delete Blob | blob.delete | x-ms-if-sequence-number-eq | sequence number",
      "listed, but no installed SDK takes it: blob | Set Blob Tier | blob.setTier | x-ms-lease-id | lease id",
    ]);
  });

  it("every row the file names is a registered row", async function () {
    await loadAllSuites();
    const ids = new Set(registeredRows().map((r) => r.row.id));
    assert.deepEqual(unknownRows(listed, ids), []);
    assert.isAbove(
      listed.filter((p) => p.rows.length).length,
      0,
      "no pair names a row: npm run surface -- --run <a full run's conformance.json>",
    );
    const bad = [{ ...listed[0], rows: [...listed[0].rows, "blob/no/such-row"] }];
    assert.deepEqual(unknownRows(bad, ids), [`blob/no/such-row (${listed[0].operation}, ${listed[0].parameter})`]);
  });

  it("every pair names a row (section S: a pair no row covers is a claim left unchecked), but those not applicable, which name none", function () {
    const bare = listed.filter((p) => !p.rows.length && !notApplicable(p)).map((p) => `${p.service} | ${p.operation} | ${p.parameter}`);
    assert.deepEqual(
      bare,
      [],
      "pairs with no row: add a row (suites/<service>/surface/) or declare one (RowDef.surface), then npm run surface",
    );
    const ruled = listed.filter((p) => notApplicable(p));
    assert.equal(ruled.length, NOT_APPLICABLE.length, "a pair NOT_APPLICABLE names is not on the surface");
    assert.deepEqual(
      ruled.filter((p) => p.rows.length).map((p) => `${p.operation} | ${p.parameter}: ${p.rows.join(" ")}`),
      [],
      "a pair not applicable names rows",
    );
  });

  it("every pair a row declares (RowDef.surface) is a pair of the surface, and the file names the row for it", async function () {
    await loadAllSuites();
    const keys = new Set(listed.map((p) => declaredKey(p.service, p.operation, p.parameter)));
    const declared = declaredSurfaceRows(registeredRows().map((r) => r.row));
    assert.deepEqual(
      [...declared.keys()].filter((k) => !keys.has(k)).map((k) => k.replace(/\t/g, " | ")),
      [],
      "declared pairs the surface does not have",
    );
    const named = new Map(listed.map((p) => [declaredKey(p.service, p.operation, p.parameter), new Set(p.rows)]));
    const unnamed = [...declared].flatMap(([k, ids]) =>
      ids.filter((id) => !named.get(k)?.has(id)).map((id) => `${id}: ${k.replace(/\t/g, " | ")}`),
    );
    assert.deepEqual(unnamed, [], "rows the file does not name for the pair they declare: npm run surface");
    assert.isAbove(declared.size, 0);
  });

  it("every operation has a name of the REST reference, not the classifier's fallback for a request it does not know", function () {
    const unnamed = [...new Set(derived.map((p) => p.operation))].filter((op) => /^(blob|queue|table|file) [A-Z]+\b/.test(op));
    assert.deepEqual(unnamed, []);
  });

  it("the file and share operations have their REST reference names", function () {
    const names = Object.fromEntries(derived.filter((p) => p.service === "file").map((p) => [p.sdkOperation, p.operation]));
    assert.deepEqual(names, FILE_OPERATIONS);
  });

  it("the surface is the specification's (../shared/spec/surface.tsv, which names file operations by their SDK operation)", function () {
    const spec = join(ROOT, "..", "shared", "spec", "surface.tsv");
    if (!existsSync(spec)) this.skip();
    const theirs = parseSurface(readFileSync(spec, "utf8")).map((p) =>
      p.service === "file" ? { ...p, operation: FILE_OPERATIONS[p.sdkOperation] ?? p.operation } : p,
    );
    assert.deepEqual(surfaceDifferences(derived, theirs), []);
    assert.equal(derived.length, 307);
  });

  it("the file's text reads back as written", function () {
    const pairs = listed.slice(0, 5).map((p, i) => ({ ...p, rows: i % 2 ? ["a/b", "a/c"] : [] }));
    assert.deepEqual(parseSurface(formatSurface(pairs, ["about"])), pairs);
  });
});

describe("surface records: each record's request classifies back to its own name", function () {
  it("every blob surface record (suites/blob/surface/surface-ops.ts) and every blob operation record (suites/blob/operations.ts)", function () {
    const subject = { ...ANY_SUBJECT, snapshot: "2026-01-01T00:00:00.0000000Z", renamed: "r" };
    const wrong = SURFACE_OPS.map((op) => [op.operation, surfaceNameOfRequest("blob", op.request(subject))]).filter(([a, b]) => a !== b);
    assert.deepEqual(wrong, []);
    const records = [...BLOB_OPERATIONS.values()].map((r) => [
      r.operation,
      operationFamily(surfaceNameOfRequest("blob", r.request(ANY_SUBJECT))),
    ]);
    assert.deepEqual(
      records.filter(([a, b]) => a !== classifierOperationOf(b)),
      [],
    );
    // The check can fail: a record whose request is another operation's.
    assert.notEqual(
      surfaceNameOfRequest("blob", { ...SURFACE_OPS[0].request(subject), query: { comp: "metadata" } }),
      SURFACE_OPS[0].operation,
    );
  });
});

describe("surface names: the classifier's operation and the surface's variants", function () {
  const name = (service: Service, method: string, url: string, headers: Record<string, string> = {}) => {
    const u = new URL(url, "http://x");
    const header = (n: string) => headers[n.toLowerCase()];
    return surfaceOperationOf(operationOf({ service, method, path: u.pathname, query: u.searchParams, header }), header);
  };
  const CASES: [Service, string, string, Record<string, string>, string][] = [
    ["blob", "PUT", "/c/b?comp=page", { "x-ms-page-write": "clear" }, "Put Page (clear)"],
    ["blob", "PUT", "/c/b?comp=page", { "x-ms-page-write": "update" }, "Put Page (update)"],
    ["blob", "PUT", "/c/b?comp=properties", { "x-ms-blob-content-length": "1024" }, "Set Blob Properties (resize)"],
    ["blob", "PUT", "/c/b?comp=properties", { "x-ms-sequence-number-action": "increment" }, "Set Blob Properties (sequence number)"],
    ["blob", "PUT", "/c/b?comp=properties", { "x-ms-blob-content-type": "text/plain" }, "Set Blob Properties"],
    ["blob", "GET", "/c/b?comp=pagelist&prevsnapshot=2026-01-01", {}, "Get Page Ranges (diff)"],
    ["blob", "GET", "/c/b?comp=pagelist", {}, "Get Page Ranges"],
    ["blob", "PUT", "/c/b?comp=incrementalcopy", { "x-ms-copy-source": "http://x/c/s" }, "Incremental Copy Blob"],
    ["blob", "POST", "/c/b?comp=query", {}, "Query Blob Contents"],
    ["blob", "PUT", "/c?restype=container&comp=rename", {}, "Rename Container"],
    ["file", "PUT", "/s/d/f", { "x-ms-copy-source": "http://x/s/f" }, "Copy File"],
    ["file", "PUT", "/s/d/f", { "x-ms-type": "file" }, "Create File"],
    ["file", "PUT", "/s/d?restype=directory&comp=rename", {}, "Rename Directory"],
    ["file", "PUT", "/s?restype=share&comp=properties", {}, "Set Share Properties"],
  ];
  for (const [service, method, url, headers, expected] of CASES) {
    it(`${service} ${method} ${url} ${JSON.stringify(headers)} is ${expected}`, function () {
      assert.equal(name(service, method, url, headers), expected);
    });
  }

  it("a variant's classifier name is the name the classifier gives (what pins and UNSUPPORTED name)", function () {
    assert.equal(classifierOperationOf("Put Page (clear)"), "Put Page");
    assert.equal(classifierOperationOf("Set Blob Properties (resize)"), "Set Blob Properties");
    assert.equal(classifierOperationOf("Lease Blob (break)"), "Lease Blob (break)");
    assert.equal(classifierOperationOf("Get Page Ranges (diff)"), "Get Page Ranges (diff)");
  });
});
