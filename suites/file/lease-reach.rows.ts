// F Files, Lease File: how far a file's lease reaches (catalogue S, Files).
// An ID on a file that holds no lease is refused 412
// LeaseNotPresentWithFileOperation by every file operation that takes one
// (ID_TAKERS); a file lease locks one file only: its
// share and the other files take writes without an ID, and its ID sent to
// another file (in the same directory, or of the same name in another share)
// is an ID on an unleased file. Each refusal is read back unchanged, each
// permitted write read back applied.
import { eachVariation, expectEqual, expectRawStatus, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import type { RawRequest, RawResponse } from "../../fixtures/wire/raw.ts";
import { allAnswered } from "../../fixtures/wire/signals.ts";
import { FILE_REQUEST, fileCell, fileSource } from "./file-kit.ts";
import { answer, claimOn, SUCCESS } from "../../fixtures/harness/claims.ts";
import { FILE_REACH, type FileRelation } from "./reach-claims.ts";
import { CONTENT, durable, leaseSubject, newSubject, pathOf, putFile, readState, sharePath, type Subject } from "./surface/surface-kit.ts";

const NOT_PRESENT = { status: 412, code: "LeaseNotPresentWithFileOperation" };
const NOT_PRESENT_ANSWER = answer(412, "LeaseNotPresentWithFileOperation");

const setMetadata = (t: RowContext, s: Subject, segs: string[], value: string, id?: string): Promise<RawResponse> =>
  t.raw("file", {
    method: "PUT",
    path: pathOf(s, segs),
    query: { comp: "metadata" },
    headers: { "x-ms-meta-state": value, ...(id ? { "x-ms-lease-id": id } : {}) },
  });

const leaseAction = (t: RowContext, s: Subject, headers: Record<string, string>) =>
  t.raw("file", { method: "PUT", path: pathOf(s, s.path), query: { comp: "lease" }, headers });

/**
 * The file operations that take x-ms-lease-id on a file (catalogue/surface.tsv,
 * the lease actions apart), each as its request at a path: what an ID on a file
 * without a lease is refused by. Live (.NET FileClientTests *_InvalidLease,
 * 2021): Create File, Delete File, Set File Properties, List Ranges.
 * `counted`: the operation as the self-tests' file double counts it (its
 * generated mutants name it so).
 */
export const ID_TAKERS: { operation: string; counted: string; request: (path: string) => RawRequest }[] = [
  { operation: "Get File Properties", counted: "GetFileProperties", request: (path) => ({ method: "HEAD", path }) },
  { operation: "Get File", counted: "GetFile", request: (path) => ({ method: "GET", path }) },
  {
    operation: "List Ranges",
    counted: "ListRanges",
    request: (path) => ({ method: "GET", path, query: { comp: "rangelist" } }),
  },
  {
    operation: "Set File Metadata",
    counted: "SetFileMetadata",
    request: (path) => ({ method: "PUT", path, query: { comp: "metadata" }, headers: { "x-ms-meta-state": "refused" } }),
  },
  {
    operation: "Set File Properties",
    counted: "SetFileProperties",
    request: (path) => ({ method: "PUT", path, query: { comp: "properties" }, headers: { "x-ms-content-length": "1" } }),
  },
  {
    operation: "Put Range",
    counted: "PutRange",
    request: (path) => ({
      method: "PUT",
      path,
      query: { comp: "range" },
      headers: { "x-ms-range": "bytes=0-0", "x-ms-write": "update" },
      body: "r",
    }),
  },
  {
    operation: "Create File",
    counted: "CreateFile",
    request: (path) => ({ method: "PUT", path, headers: { "x-ms-type": "file", "x-ms-content-length": "1" } }),
  },
  { operation: "Delete File", counted: "DeleteFile", request: (path) => ({ method: "DELETE", path }) },
];

/**
 * A file (at `segs`) sent a lease ID it does not hold by every operation of
 * ID_TAKERS at once: each refused 412 LeaseNotPresentWithFileOperation, and
 * the file read back unchanged (content, metadata, ETag: no write applied).
 */
async function refusesId(t: RowContext, s: Subject, segs: string[], id: string, where: string): Promise<void> {
  const at = { ...s, path: segs };
  t.step(`read the file, ${where}`);
  const before = await readState(t, at, { resource: "file" });
  t.step(`every file operation with a lease ID, ${where}`);
  const answers = await allAnswered(
    ID_TAKERS.map((o) => {
      const req = o.request(pathOf(s, segs));
      return t.raw("file", { ...req, headers: { ...req.headers, "x-ms-lease-id": id } });
    }),
  );
  ID_TAKERS.forEach((o, i) => expectRawStatus(`${o.operation} with a lease ID, ${where}`, answers[i], NOT_PRESENT));
  t.step(`read the file back, ${where}`);
  const after = await readState(t, at, { resource: "file" });
  expectEqual(`the writes refused (${where}): the file read back`, durable(after), durable(before));
  expectTrue(`the writes refused (${where}): the file's ETag changed`, after.etag === before.etag, {
    expected: "the same ETag",
    got: "another",
  });
}

/** A file (at `segs`) takes a write without any lease ID, read back applied. */
async function freeToWrite(t: RowContext, s: Subject, segs: string[], where: string): Promise<void> {
  t.step(`Set File Metadata without a lease ID, ${where}`);
  expectRawStatus(`Set File Metadata without a lease ID, ${where}`, await setMetadata(t, s, segs, "free"), { status: 200 });
  const after = await readState(t, { ...s, path: segs }, { resource: "file" });
  expectEqual(`Set File Metadata without a lease ID (${where}): the metadata read back`, after.metadata, { state: "free" });
}

/** The leased file itself still leased by A, read back with A's ID. */
async function stillLeased(t: RowContext, s: Subject): Promise<void> {
  const res = await t.raw("file", { method: "HEAD", path: pathOf(s, s.path), headers: { "x-ms-lease-id": s.holder } });
  expectRawStatus("Get File Properties of the leased file with its lease ID", res, { status: 200 });
  expectEqual("the leased file's lease state", res.headers["x-ms-lease-state"], "leased");
}

/** file/lease/id-on-unleased: an ID on a file never leased, released or broken. */
async function idOnUnleased(t: RowContext): Promise<void> {
  const history: [string, (s: Subject) => Promise<void>][] = [
    ["never leased", async () => {}],
    [
      "after a release",
      async (s) => {
        t.step("release the lease (setup)");
        expectRawStatus(
          "Lease File release (setup)",
          await leaseAction(t, s, { "x-ms-lease-action": "release", "x-ms-lease-id": s.holder }),
          {
            status: 200,
          },
        );
      },
    ],
    [
      "after a break",
      async (s) => {
        t.step("break the lease (setup)");
        expectRawStatus("Lease File break (setup)", await leaseAction(t, s, { "x-ms-lease-action": "break" }), { status: 202 });
      },
    ],
  ];
  await eachVariation(
    history.map(([label, after], i) => ({
      label,
      run: async () => {
        const s = await newSubject(t, { resource: "file" });
        if (i > 0) await leaseSubject(t, s, "file");
        await after(s);
        await refusesId(t, s, s.path, i > 0 ? s.holder : s.another, `on a file ${label}`);
      },
    })),
    { together: true },
  );
}

/** file/lease/reach/share: a leased file leaves its share's writes free (Set Share Metadata, Set Share Properties without any ID). */
async function reachShare(t: RowContext): Promise<void> {
  const s = await newSubject(t, { resource: "file" });
  await leaseSubject(t, s, "file");
  const share = (comp: string, headers: Record<string, string>) =>
    t.raw("file", { method: "PUT", path: sharePath(s), query: { restype: "share", comp }, headers });
  t.step("Set Share Metadata without a lease ID, a file of the share leased");
  expectRawStatus("Set Share Metadata without a lease ID", await share("metadata", { "x-ms-meta-state": "free" }), { status: 200 });
  t.step("Set Share Properties without a lease ID, a file of the share leased");
  expectRawStatus("Set Share Properties without a lease ID", await share("properties", { "x-ms-share-quota": "12" }), { status: 200 });
  const after = await readState(t, s, { resource: "share" });
  expectEqual(
    "the share after the writes (metadata, quota, lease)",
    [after.metadata, after.quota, after.leaseState],
    [{ state: "free" }, "12", "available"],
  );
  await stillLeased(t, s);
}

/**
 * file/lease/reach/sibling: a lease is the lease of one file. Another file of
 * the same directory, and a file of the same name in another share: the
 * leased file's ID → 412 LeaseNotPresentWithFileOperation, unchanged; a write
 * without an ID → applied.
 */
async function reachSibling(t: RowContext): Promise<void> {
  const s = await newSubject(t, { resource: "file" });
  await leaseSubject(t, s, "file");
  t.step("create another file in the same directory (setup)");
  await putFile(t, s.share, s.other, CONTENT);
  const elsewhere = await newSubject(t, { resource: "share" });
  t.step("create a file of the same name in another share (setup)");
  await putFile(t, elsewhere.share, s.path, CONTENT);
  // Where each relation of the row's lines (reach-claims.ts) is: its subject and path.
  const places: Partial<Record<FileRelation, [Subject, string[]]>> = {
    "file-beside": [s, s.other],
    "same-name-elsewhere": [elsewhere, s.path],
  };
  await eachVariation(
    FILE_REACH.filter((r) => r.row === "file/lease/reach/sibling").map((r) => ({
      label: r.label,
      run: async () => {
        const [at, segs] = places[r.relation]!;
        if (r.idRefused) await refusesId(t, at, segs, s.holder, r.label);
        await freeToWrite(t, at, segs, r.label);
      },
    })),
  );
  await stillLeased(t, s);
}

const source = (rest: string) => fileSource(`Lease File; catalogue S (Files): ${rest}`);

const rows: RowDef[] = [
  {
    id: "file/lease/id-on-unleased",
    answers: ID_TAKERS.map((o) =>
      claimOn("file", o.request("/s/f"), { params: { "x-ms-lease-id": ["holder", "other"] }, lease: ["available", "released", "broken"] }, [
        NOT_PRESENT_ANSWER,
      ]),
    ),
    title:
      "A lease ID on a file that holds no lease (never leased, released, broken) → 412 LeaseNotPresentWithFileOperation on every file operation that takes one (Get File Properties, Get File, List Ranges, Set File Metadata, Set File Properties, Put Range, Create File, Delete File), the file unchanged",
    level: "rest",
    source: source("an ID on a file without a lease (live: a read after a release)"),
    service: "file",
    run: idOnUnleased,
  },
  {
    id: "file/lease/reach/share",
    title: "A file lease leaves its share alone: Set Share Metadata and Set Share Properties without any ID succeed and read back applied",
    level: "rest",
    source: source("a file lease locks one file only"),
    service: "file",
    run: reachShare,
  },
  {
    id: "file/lease/reach/sibling",
    answers: [
      claimOn("file", FILE_REQUEST["set-metadata"], { params: { "x-ms-lease-id": "other" }, lease: "available" }, [NOT_PRESENT_ANSWER]),
      claimOn("file", FILE_REQUEST["set-metadata"], { params: {}, lease: "available" }, SUCCESS),
    ],
    title:
      "A file lease is the lease of one file: another file of the directory, or of the same name in another share, takes writes without an ID, and the lease's ID sent to it → 412 LeaseNotPresentWithFileOperation, unchanged",
    level: "rest",
    source: source("a file lease locks one file only"),
    service: "file",
    run: reachSibling,
  },
];

const LEASE_CELL = fileCell("lease");
defineTable(
  { table: "F Files (Lease File)", service: "file" },
  rows.map((r) => ({ ...r, matrix: LEASE_CELL })),
);
