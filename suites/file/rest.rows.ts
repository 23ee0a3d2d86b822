// F Files over REST: writes are unconditional (last writer wins, If-Match is
// not evaluated), every write returns a new ETag, deletes commit at once and a
// 404 means the file is really gone. Also the report's F matrix section.
import type { ShareDirectoryClient, ShareFileClient } from "@azure/storage-file-share";
import { expectChanged, expectEqual, expectEtag, expectRefused, expectSucceeds, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { defineMatrix, defineTable } from "../../fixtures/harness/registry.ts";
import { claimAt } from "../../fixtures/harness/locations.ts";
import { rethrowIfFault } from "../../fixtures/wire/signals.ts";
import { STALE_ETAG } from "../blob/blob-kit.ts";
import {
  dirViaClient,
  expectNotFound,
  FILE_LINES,
  fileCell,
  fileSource,
  fill,
  getFile,
  listNames,
  newDirectory,
  newFile,
  putRangeOp,
  rawPath,
  readFile,
  sendNotEvaluated,
  setMetadataOp,
  SIZE,
  viaClient,
} from "./file-kit.ts";

const P = "file/rest/";

async function lastWriterWins(t: RowContext): Promise<void> {
  const dir = await newDirectory(t);
  const name = t.name("f");
  const a = dirViaClient(t.clients.file(), dir).getFileClient(name);
  const b = dirViaClient(t.clients.file(), dir).getFileClient(name);

  t.step("writer A creates and writes");
  await a.create(SIZE);
  await a.uploadRange(fill("a"), 0, SIZE);
  const seenByA = (await a.setMetadata({ writer: "a", onlya: "1" })).etag;

  t.step("writer B overwrites, unconditionally");
  await expectSucceeds("writer B Put Range over A's content", b.uploadRange(fill("b"), 0, SIZE));
  await expectSucceeds("writer B Set File Metadata over A's metadata", b.setMetadata({ writer: "b" }));
  const afterB = await readFile(a);
  expectEqual("content A reads after B's write", afterB.content, fill("b"));
  expectEqual("metadata A reads after B's write (replaced, not merged)", afterB.metadata, { writer: "b" });

  // A's ETag is stale now; a target whose ETag did not move gets a made-up one so the condition fails anyway.
  const useA = seenByA !== undefined && seenByA !== afterB.etag;
  const stale = useA ? seenByA : STALE_ETAG;
  t.note("staleEtag", useA ? "writer A's ETag" : "made-up (writer A got no ETag, or it did not change)");
  const path = rawPath(a);

  // Each write carries a stale If-Match; when ignored the write lands, when rejected (400) it does not.
  const put = await sendNotEvaluated(t, "Put Range (writer A, stale)", path, putRangeOp(fill("c")), "If-Match", stale);
  expectEqual(
    "content after Put Range with a stale If-Match",
    (await readFile(b)).content,
    put.outcome === "ignored" ? fill("c") : fill("b"),
  );

  const meta = await sendNotEvaluated(t, "Set File Metadata (writer A, stale)", path, setMetadataOp({ writer: "c" }), "If-Match", stale);
  expectEqual(
    "metadata after Set File Metadata with a stale If-Match",
    (await readFile(b)).metadata,
    meta.outcome === "ignored" ? { writer: "c" } : { writer: "b" },
  );

  const typeBefore = (await readFile(b)).contentType;
  const props = await sendNotEvaluated(
    t,
    "Set File Properties (stale)",
    path,
    { method: "PUT", query: { comp: "properties" }, headers: { "x-ms-content-type": "text/c", "x-ms-content-length": String(SIZE) } },
    "If-Match",
    stale,
  );
  expectEqual(
    "content type after Set File Properties with a stale If-Match",
    (await readFile(b)).contentType,
    props.outcome === "ignored" ? "text/c" : typeBefore,
  );

  const current = (await readFile(b)).etag;
  const get = await sendNotEvaluated(t, "Get File (stale)", path, { method: "GET" }, "If-Match", stale);
  if (get.outcome === "ignored") expectEqual("Get File body with a stale If-Match", get.res.body, (await readFile(b)).content);
  await sendNotEvaluated(t, "Get File (current)", path, { method: "GET" }, "If-None-Match", current);
  await sendNotEvaluated(t, "Get File Properties (stale)", path, { method: "HEAD" }, "If-Match", stale);

  const create = await sendNotEvaluated(
    t,
    "Create File over the file (stale)",
    path,
    { method: "PUT", headers: { "x-ms-type": "file", "x-ms-content-length": String(SIZE), "x-ms-meta-writer": "created" } },
    "If-Match",
    stale,
  );
  expectEqual(
    "metadata after Create File with a stale If-Match",
    (await readFile(b)).metadata.writer,
    create.outcome === "ignored" ? "created" : meta.outcome === "ignored" ? "c" : "b",
  );

  const del = await sendNotEvaluated(t, "Delete File (stale)", path, { method: "DELETE" }, "If-Match", stale);
  expectEqual("file exists after Delete File with a stale If-Match", await b.exists(), del.outcome !== "ignored");
}

async function etagChangesWithTheFile(t: RowContext): Promise<void> {
  const dir = await newDirectory(t);
  const f = dir.getFileClient(t.name("f"));
  const check = async (what: string, etag: string | undefined, before: string | undefined) => {
    expectEtag(what, etag);
    if (before !== undefined) expectChanged(what, before, etag);
    const read = await readFile(f);
    expectEqual(`ETag read after ${what}`, read.etag, etag);
    return etag!;
  };
  t.step("Create File");
  let etag = await check("Create File", (await f.create(SIZE)).etag, undefined);
  t.step("Put Range");
  etag = await check("Put Range", (await f.uploadRange(fill("x"), 0, SIZE)).etag, etag);
  t.step("Set File Metadata");
  etag = await check("Set File Metadata", (await f.setMetadata({ k: "v" })).etag, etag);
  t.step("Set File Properties");
  etag = await check("Set File Properties", (await f.setHttpHeaders({ fileContentType: "text/changed" })).etag, etag);
  t.step("Get File");
  const got = await getFile(f);
  expectEqual("Get File ETag", got.etag, etag);
  expectEqual("Get File content", got.body, fill("x"));
}

interface Kind {
  slug: "file" | "directory";
  /** Makes the entry to delete beside a sibling that stays, inside `parent`. */
  make(
    t: RowContext,
    parent: ShareDirectoryClient,
    name: string,
  ): Promise<{ read(c?: ShareDirectoryClient): Promise<unknown>; del(): Promise<unknown> }>;
}

const KINDS: Kind[] = [
  {
    slug: "file",
    async make(t, parent, name) {
      await newFile(t, fill("d"), parent);
      const named = parent.getFileClient(name);
      await named.create(SIZE);
      return {
        read: (c) => (c ? c.getFileClient(name) : named).getProperties(),
        del: () => named.delete(),
      };
    },
  },
  {
    slug: "directory",
    async make(t, parent, name) {
      await parent.getDirectoryClient(t.name("d")).create();
      const named = parent.getDirectoryClient(name);
      await named.create();
      return {
        read: (c) => (c ? c.getDirectoryClient(name) : named).getProperties(),
        del: () => named.delete(),
      };
    },
  },
];

/** file/rest/delete-atomic: right after the success response the entry is gone everywhere, and its name is free. */
async function deleteAtomic(t: RowContext, kind: Kind): Promise<void> {
  const parent = await newDirectory(t);
  const name = t.name(kind.slug === "file" ? "f" : "d");
  const entry = await kind.make(t, parent, name);
  const other = dirViaClient(t.clients.file(), parent);
  const before = await listNames(parent);
  expectTrue(`the ${kind.slug} is listed before the delete`, before.includes(name));
  t.step(`Delete ${kind.slug}`);
  await expectSucceeds(`Delete ${kind.slug}`, entry.del());
  t.step("right after the success response");
  await expectNotFound(`${kind.slug} properties right after the delete`, entry.read());
  await expectNotFound(`${kind.slug} properties right after the delete, another client`, entry.read(other));
  if (kind.slug === "file") await expectNotFound("Get File right after the delete", getFile(parent.getFileClient(name)));
  const after = await listNames(other);
  expectTrue(`the deleted ${kind.slug} is absent from List Files and Directories`, !after.includes(name));
  expectEqual(
    "the other entries are still listed",
    after,
    before.filter((n) => n !== name),
  );
  t.step("same name again (no pending-delete state)");
  if (kind.slug === "file") {
    await expectSucceeds("Create File under the deleted name", parent.getFileClient(name).create(SIZE));
  } else {
    await expectSucceeds("Create Directory under the deleted name", parent.getDirectoryClient(name).create());
  }
  await expectSucceeds(`the re-created ${kind.slug} reads`, entry.read(other));
}

/** file/rest/not-found-only-when-deleted (file): reads by another client during every kind of write never 404. */
async function fileNotFoundOnlyWhenDeleted(t: RowContext): Promise<void> {
  const f = await newFile(t);
  const reader = viaClient(t.clients.file(), f);
  let reads = 0;
  const readOnce = async (when: string) => {
    reads++;
    try {
      await reader.getProperties();
      await getFile(reader);
    } catch (err) {
      rethrowIfFault(err);
      const e = err as { statusCode?: number; code?: string };
      expectTrue(`a read of the existing file ${when} answered ${e.statusCode ?? "?"} ${e.code ?? ""}`.trim(), false);
    }
  };
  const writes: [string, () => Promise<unknown>][] = [
    ["Create File over it", () => f.create(SIZE, { metadata: { state: "recreated" } })],
    ["Put Range", () => f.uploadRange(fill("w"), 0, SIZE)],
    ["Set File Metadata", () => f.setMetadata({ state: "changed" })],
    ["Set File Properties", () => f.setHttpHeaders({ fileContentType: "text/changed" })],
    ["resize (Set File Properties)", () => f.resize(SIZE * 2)],
    ["Put Range after the resize", () => f.uploadRange(fill("z"), SIZE, SIZE)],
  ];
  t.step("writes, each followed by a read from another client");
  for (const [what, write] of writes) {
    await write();
    await readOnce(`right after ${what}`);
  }
  t.step("writes with reads from another client running concurrently");
  let writing = true;
  const readLoop = (async () => {
    while (writing) await readOnce("during concurrent writes");
  })();
  try {
    for (let round = 0; round < 3; round++) for (const [, write] of writes) await write();
  } finally {
    writing = false;
  }
  await readLoop;
  t.note("readsDuringWrites", reads);
  t.step("delete");
  await f.delete();
  await expectNotFound("properties after the delete, another client", reader.getProperties());
}

/** file/rest/not-found-only-when-deleted (directory): a refused delete leaves the directory and its content readable. */
async function directoryNotFoundOnlyWhenDeleted(t: RowContext): Promise<void> {
  const parent = await newDirectory(t);
  const d = parent.getDirectoryClient(t.name("d"));
  await d.create();
  const inner: ShareFileClient = await newFile(t, fill("i"), d);
  const other = dirViaClient(t.clients.file(), d);
  t.step("Delete Directory on a non-empty directory");
  await expectRefused("Delete Directory with a file inside", d.delete(), { status: 409, code: "DirectoryNotEmpty" });
  await expectSucceeds("directory properties after the refused delete, another client", other.getProperties());
  expectTrue("the directory is still listed after the refused delete", (await listNames(parent)).includes(d.name));
  expectEqual("the file inside after the refused delete", (await readFile(other.getFileClient(inner.name))).content, fill("i"));
  t.step("empty it, then delete");
  await inner.delete();
  await expectSucceeds("directory properties once emptied", other.getProperties());
  await expectSucceeds("Delete Directory once emptied", d.delete());
  await expectNotFound("directory properties after the delete, another client", other.getProperties());
}

const NOT_FOUND_CELL = fileCell("not-found-only-when-deleted");

const rows: RowDef[] = [
  {
    id: "file/rest/last-writer-wins",
    matrix: fileCell("last-writer-wins"),
    title: "Two REST writers: the last one wins; a stale If-Match is not evaluated by any FileREST operation",
    level: "doc",
    source: fileSource("Put Range, Set File Metadata/Properties, Create/Get/Delete File (no conditional headers)"),
    service: "file",
    run: lastWriterWins,
  },
  {
    id: "file/rest/etag",
    matrix: fileCell("etag"),
    title: "Create File, Put Range, Set File Metadata/Properties return an ETag that changes with the file",
    level: "rest",
    source: fileSource("Create File, Put Range, Set File Metadata, Set File Properties"),
    service: "file",
    run: etagChangesWithTheFile,
  },
  ...KINDS.map((k) => ({
    id: `${P}delete-atomic/${k.slug}`,
    matrix: fileCell("delete-atomic"),
    claim: claimAt(import.meta.url, `slug: "${k.slug}",`),
    title: `Delete ${k.slug === "file" ? "File" : "Directory"} commits at once: 404 and unlisted right after the success response, name free again`,
    level: "doc" as const,
    source: fileSource(k.slug === "file" ? "Delete File" : "Delete Directory"),
    service: "file" as const,
    run: (t: RowContext) => deleteAtomic(t, k),
  })),
  {
    id: "file/rest/not-found-only-when-deleted/file",
    matrix: NOT_FOUND_CELL,
    title: "A file under concurrent writes never reads 404 until it is deleted",
    level: "doc",
    source: fileSource("Get File, Get File Properties, Delete File"),
    service: "file",
    run: fileNotFoundOnlyWhenDeleted,
  },
  {
    id: "file/rest/not-found-only-when-deleted/directory",
    matrix: NOT_FOUND_CELL,
    title: "A directory whose delete was refused (not empty) still reads; 404 only once it is deleted",
    level: "doc",
    source: fileSource("Delete Directory (409 DirectoryNotEmpty), Get Directory Properties"),
    service: "file",
    run: directoryNotFoundOnlyWhenDeleted,
  },
];

defineTable({ table: "F Files (REST)", service: "file" }, rows);

defineMatrix({
  key: "F",
  title: "Files",
  source: "seed article, file section; Lease File (REST, 2019-02-02+)",
  order: 60,
  columns: [{ key: "claim", header: "Documented behaviour" }],
  rowOrder: Object.values(FILE_LINES).map((l) => l.label),
});
