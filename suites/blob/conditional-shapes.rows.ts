// C, every shape of a conditional request (conditional-shapes.ts): a row per
// (operation, shape), each sending the four conditions, failing then
// holding, on a resource another writer changed a second after this client
// read it. A condition on a snapshot or a version is about that snapshot's or
// version's own validators: the failing If-Match is the base's current ETag,
// the failing If-Modified-Since the snapshot's own Last-Modified (which the
// base, changed since, would let pass). Refused writes read back unchanged.
import type { BlobClient, ContainerClient } from "@azure/storage-blob";
import { eachVariation, expectPresent, expectRawStatus, expectSent, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { notAvailable } from "../../fixtures/wire/signals.ts";
import { blobPath, blobSource, expectUnchanged, lastSent } from "./blob-kit.ts";
import { HEADERS, type CondHeader } from "./conditional-claims.ts";
import { newBlobOf, secondLater } from "./conditional-kit.ts";
import {
  FIRST_BLOCK,
  FIRST_BLOCK_CONTENT,
  PAGE_BYTES,
  SECOND_BLOCK,
  SHAPES,
  shapeAt,
  type ConditionShape,
  type ShapeState,
  type ShapeSubject,
} from "./conditional-shapes.ts";
import { guid } from "./lease-kit.ts";
import { OTHER } from "./operations.ts";
import { answer, conditionClaims, type ClaimedAnswer } from "../../fixtures/harness/claims.ts";

/** The validators a condition is about: the current ones (holding If-Match) and older ones a client may hold. */
interface Validators {
  current: string;
  stale: string;
  oldDate: string;
  currentDate: string;
}

interface Read extends ShapeState {
  lastModified?: string;
}

/** The value of a condition, failing or holding (catalogue C, "Values a real client would hold"). */
function valueOf(h: CondHeader, fails: boolean, v: Validators): string {
  return {
    "if-match": fails ? v.stale : v.current,
    "if-none-match": fails ? v.current : v.stale,
    "if-modified-since": fails ? v.currentDate : v.oldDate,
    "if-unmodified-since": fails ? v.oldDate : v.currentDate,
  }[h];
}

const refusalOf = (shape: ConditionShape, h: CondHeader) =>
  shape.kind === "read" && (h === "if-none-match" || h === "if-modified-since") ? 304 : 412;

const head = (t: RowContext, s: ShapeSubject, query: Record<string, string> = {}, leaseId?: string) =>
  t.raw("blob", {
    method: "HEAD",
    path: blobPath({ containerName: s.container, name: s.blob }),
    query,
    headers: leaseId ? { "x-ms-lease-id": leaseId } : {},
  });

/** What a write of the shape could change, read back. */
async function readBack(t: RowContext, shape: ConditionShape, s: ShapeSubject): Promise<Read> {
  const props = await head(t, s);
  expectRawStatus("Get Blob Properties (read back)", props, { status: 200 });
  const out: Read = {
    etag: props.headers["etag"],
    lastModified: props.headers["last-modified"],
    leaseState: props.headers["x-ms-lease-state"],
  };
  const path = blobPath({ containerName: s.container, name: s.blob });
  if (shape.setup === "lease") {
    const byLease = (await head(t, s, {}, s.leaseId)).status === 200;
    const byOther = !byLease && (await head(t, s, {}, s.otherId)).status === 200;
    out.heldBy = byLease ? "lease" : byOther ? "other" : undefined;
  } else if (shape.resource === "page-blob") {
    const list = await t.raw("blob", { method: "GET", path, query: { comp: "pagelist" } });
    expectRawStatus("Get Page Ranges (read back)", list, { status: 200 });
    out.pages = [...list.body.matchAll(/<Start>\s*(\d+)\s*<\/Start>\s*<End>\s*(\d+)\s*<\/End>/g)].map(([, a, b]) => `${a}-${b}`).join(",");
  } else {
    const got = await t.raw("blob", { method: "GET", path });
    expectRawStatus("Get Blob (read back)", got, { status: 200 });
    out.content = got.body;
  }
  return out;
}

const dateOf = (res: RawResponse, what: string) => expectPresent(`${what}: Last-Modified`, res.headers["last-modified"]);
const etagOf = (res: RawResponse, what: string) => expectPresent(`${what}: ETag`, res.headers["etag"]);

/** Waits a second past `res`'s Last-Modified by the server's clock, then the other writer changes the blob's metadata. */
async function changeLater(t: RowContext, b: BlobClient, res: RawResponse, state: string, leaseId?: string): Promise<void> {
  await secondLater(t, async () => (await b.getProperties()).date, res.headers["last-modified"]);
  t.step(`another writer changes the blob (metadata state=${state})`);
  await t.clients
    .blob()
    .getContainerClient(b.containerName)
    .getBlobClient(b.name)
    .setMetadata({ state }, leaseId ? { conditions: { leaseId } } : {});
}

async function setUp(t: RowContext, shape: ConditionShape, c: ContainerClient, b: BlobClient, s: ShapeSubject): Promise<void> {
  if (shape.setup === "page") {
    t.step("set up: a page written");
    await b.getPageBlobClient().uploadPages(PAGE_BYTES, 0, 512);
  } else if (shape.setup === "blocks") {
    t.step("set up: two blocks committed");
    const bb = c.getBlockBlobClient(b.name);
    await bb.stageBlock(FIRST_BLOCK, FIRST_BLOCK_CONTENT, FIRST_BLOCK_CONTENT.length);
    await bb.stageBlock(SECOND_BLOCK, "second block", 12);
    await bb.commitBlockList([FIRST_BLOCK, SECOND_BLOCK]);
  } else if (shape.setup === "lease") {
    t.step("set up: the blob leased (infinite)");
    s.leaseId = guid();
    s.otherId = guid();
    await b.getBlobLeaseClient(s.leaseId).acquireLease(-1);
  }
}

/** The history of a shape's condition, and its validators. */
async function history(
  t: RowContext,
  shape: ConditionShape,
  container?: ContainerClient,
): Promise<{ s: ShapeSubject; v: Validators; content?: string }> {
  const c = container ?? (await t.newContainer());
  const b = await newBlobOf(t, shape.resource, c);
  const s: ShapeSubject = { container: c.containerName, blob: b.name };
  await setUp(t, shape, c, b, s);
  t.step("read the blob (this client)");
  const first = await head(t, s);
  expectRawStatus("Get Blob Properties (this client's read)", first, { status: 200 });
  if (shape.on === "blob") {
    await changeLater(t, b, first, OTHER, s.leaseId);
    const now = await head(t, s);
    return {
      s,
      v: {
        current: etagOf(now, "the blob read"),
        stale: etagOf(first, "the blob read"),
        oldDate: dateOf(first, "the blob read"),
        currentDate: dateOf(now, "the blob read"),
      },
    };
  }
  if (shape.on === "version" && !first.headers["x-ms-version-id"])
    notAvailable("versioning is off: Get Blob Properties answers no x-ms-version-id");
  // The version (or snapshot) the condition is about: a write a second after the first read, captured.
  await changeLater(t, b, first, "captured");
  const captured = await head(t, s);
  if (shape.on === "snapshot") {
    t.step("Snapshot Blob");
    s.snapshot = (await b.createSnapshot()).snapshot!;
  } else s.versionId = expectPresent("the write's version: x-ms-version-id", captured.headers["x-ms-version-id"]);
  const query: Record<string, string> = s.snapshot ? { snapshot: s.snapshot } : { versionid: s.versionId! };
  const own = await head(t, s, query);
  expectRawStatus(`Get Blob Properties of the ${shape.on}`, own, { status: 200 });
  // The base changes again: its ETag then fails an If-Match on the snapshot or version.
  await changeLater(t, b, own, OTHER);
  const base = await head(t, s);
  const ownEtag = etagOf(own, `the ${shape.on} read`);
  expectTrue(
    `general/validators-advance: the base's change did not give it an ETag other than the ${shape.on}'s`,
    etagOf(base, "the base read") !== ownEtag,
    { expected: "a new ETag", got: "the same ETag" },
  );
  return {
    s,
    v: {
      current: ownEtag,
      stale: etagOf(base, "the base read"),
      oldDate: dateOf(first, "the blob read"),
      currentDate: dateOf(own, `the ${shape.on} read`),
    },
    content: "original",
  };
}

/** Before each condition of a lease action: the lease held by the lease's ID again (re-acquired, or changed back). */
async function leaseRestored(t: RowContext, shape: ConditionShape, s: ShapeSubject): Promise<void> {
  if (shape.setup !== "lease") return;
  const state = await readBack(t, shape, s);
  if (state.leaseState === "leased" && state.heldBy === "lease") return;
  t.step("set up: the lease held by the lease's ID again");
  const path = blobPath({ containerName: s.container, name: s.blob });
  const headers: Record<string, string> =
    state.heldBy === "other"
      ? { "x-ms-lease-action": "change", "x-ms-lease-id": s.otherId!, "x-ms-proposed-lease-id": s.leaseId! }
      : { "x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1", "x-ms-proposed-lease-id": s.leaseId! };
  const res = await t.raw("blob", { method: "PUT", path, query: { comp: "lease" }, headers });
  expectRawStatus("Lease Blob (set up: the lease's ID again)", res, { status: [200, 201] });
}

async function send(
  t: RowContext,
  what: string,
  shape: ConditionShape,
  s: ShapeSubject,
  h: CondHeader,
  value: string,
): Promise<RawResponse> {
  t.step(what);
  const req = shape.request(s);
  const res = await t.raw("blob", { ...req, headers: { ...(req.headers ?? {}), [h]: value } });
  expectSent(what, lastSent(), h);
  return res;
}

async function oneCondition(
  t: RowContext,
  shape: ConditionShape,
  s: ShapeSubject,
  v: Validators,
  h: CondHeader,
  content?: string,
): Promise<void> {
  const name = `${shape.operation} ${shape.shape}`;
  await leaseRestored(t, shape, s);
  const before = shape.kind === "write" ? await readBack(t, shape, s) : undefined;
  const failing = `${name} with a failing ${h}`;
  const refused = await send(t, failing, shape, s, h, valueOf(h, true, v));
  const status = refusalOf(shape, h);
  expectRawStatus(failing, refused, { status });
  if (before) expectUnchanged(`${failing}, refused`, before, await readBack(t, shape, s));
  const holding = `${name} with a holding ${h}`;
  const res = await send(t, holding, shape, s, h, valueOf(h, false, v));
  expectRawStatus(holding, res, { status: shape.ok });
  const after = shape.kind === "write" ? await readBack(t, shape, s) : { etag: v.current, content };
  if (shape.kind === "read") expectTrue(`${holding}: the ETag answered is not the current one`, res.headers["etag"] === v.current);
  expectTrue(`${holding}: expected ${shape.holds.what}`, shape.holds.check(res, after), { expected: shape.holds.what, got: "otherwise" });
  if (shape.kind === "write" && after.etag && after.lastModified)
    Object.assign(v, { current: after.etag, currentDate: after.lastModified });
  if (status === 412) expectRawStatus(`${failing}: error code`, refused, { status, code: "ConditionNotMet" });
}

async function runShape(t: RowContext, shape: ConditionShape): Promise<void> {
  // A read changes nothing: its conditions go together on one history. A write's (a lease action's) each
  // on a history of its own, in one container, all at once (each a strand of the evidence).
  if (shape.kind === "read") {
    const { s, v, content } = await history(t, shape);
    return eachVariation(
      HEADERS.map((h) => ({ label: h, run: () => oneCondition(t, shape, s, v, h, content) })),
      { together: true },
    );
  }
  const c = await t.newContainer();
  await eachVariation(
    HEADERS.map((h) => ({
      label: h,
      run: async () => {
        const { s, v, content } = await history(t, shape, c);
        await oneCondition(t, shape, s, v, h, content);
      },
    })),
    { together: true },
  );
}

/** What a shape's row claims Azure answers, as data (fixtures/harness/claims.ts): each condition failing and holding on the request of its shape. */
function answersOf(shape: ConditionShape): ClaimedAnswer[] {
  const request = shape.request({ container: "c", blob: "b", snapshot: "s", versionId: "v", leaseId: "l", otherId: "o" });
  const qualifier = shape.id.includes("/ranged-read/") ? ["range"] : shape.on === "blob" ? undefined : [shape.on];
  const of = {
    lease: shape.setup === "lease" ? ("leased" as const) : ("available" as const),
    ...(qualifier ? { shape: qualifier } : {}),
    ...(shape.setup === "lease" ? { also: LEASE_ALSO[shape.operation] } : {}),
  };
  return HEADERS.flatMap((h) =>
    conditionClaims("blob", request, h, [answer(refusalOf(shape, h), ...(refusalOf(shape, h) === 412 ? ["ConditionNotMet"] : []))], of),
  );
}

/** What a lease action of a shape carries beside the condition. */
const LEASE_ALSO: Record<string, Record<string, string[]>> = {
  "Lease Blob (renew)": { "x-ms-lease-id": ["holder"] },
  "Lease Blob (change)": { "x-ms-lease-id": ["holder"], "x-ms-proposed-lease-id": ["other"] },
  "Lease Blob (release)": { "x-ms-lease-id": ["holder"] },
  "Lease Blob (break)": { "x-ms-lease-break-period": ["zero"] },
};

const rows: RowDef[] = SHAPES.map((shape) => ({
  id: shape.id,
  claim: shapeAt(shape),
  title: `${shape.operation} ${shape.shape}: a failing condition on the ${shape.on === "blob" ? "blob" : `${shape.on}'s own validators`} is refused (${shape.kind === "read" ? "304 for If-None-Match and If-Modified-Since, 412 for If-Match and If-Unmodified-Since" : "412, the blob unchanged"}); a holding one gives ${shape.holds.what}`,
  level: "rest",
  source: blobSource(`${shape.operation}; Specifying Conditional Headers for Blob Service Operations (every shape of the request)`),
  service: "blob",
  waitSeconds: shape.on === "blob" ? 1 : 2,
  answers: answersOf(shape),
  run: (t: RowContext) => runShape(t, shape),
}));

defineTable({ table: "C Every shape of a conditional request", service: "blob" }, rows);
