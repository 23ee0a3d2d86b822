// What the surface rows (surface.rows.ts) stand on: a cell per (record,
// parameter) with the refusal section S gives its kind, the subject the
// record and the parameter need, its state read back raw, and the holding and
// failing values, all derived from what the target answered (its ETag, its
// Last-Modified, the tags and sequence number set here): no local clock.
import { expectOk, metadataOf, pathOf, readableUrl } from "../rest-kit.ts";
import { expectPresent, expectRawStatus } from "../../../fixtures/harness/assert.ts";
import type { RowContext } from "../../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../../fixtures/wire/raw.ts";
import { kindOf, type SurfaceKind } from "../../../model/surface.ts";
import { failingValues, holdingValues, type AcceptedAnswer } from "../../../model/answers.ts";
import { answer, claimOn, SUCCESS, type ClaimedAnswer } from "../../../fixtures/harness/claims.ts";
import { newBlockBlob, newPageBlob, STALE_ETAG } from "../blob-kit.ts";
import { newBlobOf } from "../conditional-kit.ts";
import { LEASE_ID, SOURCE_CONTENT } from "../operations.ts";
import {
  digestOf,
  PAGE,
  PROPOSED_LEASE_ID,
  TAGS,
  type Need,
  type SurfaceOp,
  type SurfaceState,
  type SurfaceSubject,
} from "./surface-ops.ts";

export const OTHER_LEASE_ID = "0badc0de-0000-4000-8000-000000000bad";
export const SEQUENCE_NUMBER = 5;

export interface Refusal {
  status: number;
  /** The codes the catalogue allows; none for a 304. */
  code: string[];
}

export interface SurfaceCell {
  op: SurfaceOp;
  parameter: string;
  kind: SurfaceKind;
  /** `blob/surface/<slug>/<parameter>`. */
  id: string;
  refusal: Refusal;
  /** Why the claim is `disputed` (catalogue S, Live corrections): a failing value may also be ignored, and the row notes which. */
  disputed?: string;
}

/** The pairs whose failing value the service may ignore (catalogue S, Live corrections), each with why. */
const DISPUTED: Record<string, string> = {
  "blob/surface/put-blob-from-url/x-ms-source-if-tags":
    "no live answer recorded; the service is known to ignore source tag predicates on Copy Blob From URL",
};

/**
 * A read, whatever its method: a failing If-None-Match or If-Modified-Since is
 * 304 there (section C), Query Blob Contents' POST included (catalogue S, Live
 * corrections: Java's live recordings).
 */
export const answersLikeARead = (op: SurfaceOp) => op.kind === "read";

/** Section S: each kind's refusal, as sections C, X-T, X-U, X-S and L give it. */
export function refusalOf(op: SurfaceOp, parameter: string): Refusal {
  const kind = kindOf(parameter);
  if (kind === "condition") {
    if (answersLikeARead(op) && (parameter === "if-none-match" || parameter === "if-modified-since")) return { status: 304, code: [] };
    // Incremental Copy Blob is a copy: Copy Blob's destination code is TargetConditionNotMet (catalogue C).
    return { status: 412, code: op.slug === "incremental-copy-blob" ? ["ConditionNotMet", "TargetConditionNotMet"] : ["ConditionNotMet"] };
  }
  if (kind === "tag predicate") return { status: 412, code: ["ConditionNotMet"] };
  if (kind === "source condition") return { status: 412, code: ["ConditionNotMet", "SourceConditionNotMet", "CannotVerifyCopySource"] };
  if (kind === "sequence number") return { status: 412, code: ["SequenceNumberConditionNotMet"] };
  // A lease parameter out of its range (L: a proposed lease ID is a GUID).
  if (kind === "lease parameter") return { status: 400, code: ["InvalidHeaderValue"] };
  if (kind === "lease id")
    return {
      status: 412,
      code: op.resource === "container" ? ["LeaseIdMismatchWithContainerOperation"] : ["LeaseIdMismatchWithBlobOperation"],
    };
  throw new Error(`section S gives no refusal to ${parameter} on ${op.operation} here`);
}

export function cellsOf(op: SurfaceOp): SurfaceCell[] {
  return op.parameters.map((parameter) => {
    const id = `blob/surface/${op.slug}/${parameter}`;
    return {
      op,
      parameter,
      kind: kindOf(parameter)!,
      id,
      refusal: refusalOf(op, parameter),
      ...(DISPUTED[id] ? { disputed: DISPUTED[id] } : {}),
    };
  });
}

/** The record's needs and the parameter's: a lease ID needs a lease, a tag predicate tags, a sequence-number condition a number. */
export function needsOf(cell: SurfaceCell): Need[] {
  const p = cell.parameter;
  const extra: Need[] = p.endsWith("lease-id")
    ? ["lease"]
    : p === "x-ms-if-tags"
      ? ["tags"]
      : p === "x-ms-source-if-tags"
        ? ["source-tags"]
        : cell.kind === "sequence number"
          ? ["sequence"]
          : [];
  return [...new Set([...cell.op.needs, ...extra])];
}

const blobPath = (s: SurfaceSubject) => pathOf({ container: s.container, blob: s.blob! });
const tagsOf = (body: string) =>
  [...body.matchAll(/<Key>([^<]*)<\/Key>\s*<Value>([^<]*)<\/Value>/g)].map(([, k, v]) => `${k}=${v}`).join(",");
const blockNames = (body: string) => [...body.matchAll(/<Name>([^<]*)<\/Name>/g)].map(([, n]) => n).join(",");

async function containerState(t: RowContext, s: SurfaceSubject): Promise<SurfaceState> {
  const res = await t.raw("blob", { method: "GET", path: `/${s.container}`, query: { restype: "container" } });
  const renamed = s.renamed
    ? (await t.raw("blob", { method: "GET", path: `/${s.renamed}`, query: { restype: "container" } })).status === 200
    : undefined;
  const extra = renamed === undefined ? {} : { renamedExists: renamed };
  if (res.status === 404) return { exists: false, ...extra };
  expectRawStatus("Get Container Properties (read back)", res, { status: 200 });
  const h = res.headers;
  return {
    exists: true,
    etag: h["etag"],
    lastModified: h["last-modified"],
    leaseState: h["x-ms-lease-state"],
    metadata: metadataOf(h),
    ...extra,
  };
}

async function blobExtras(t: RowContext, op: SurfaceOp, s: SurfaceSubject): Promise<Partial<SurfaceState>> {
  const out: Partial<SurfaceState> = {};
  const get = (query: Record<string, string> = {}) => t.raw("blob", { method: "GET", path: blobPath(s), query });
  for (const what of op.reads ?? []) {
    const res = await get(
      what === "tags" ? { comp: "tags" } : what === "blocks" ? { comp: "blocklist", blocklisttype: "uncommitted" } : {},
    );
    expectRawStatus(`read back: ${what === "content" ? "Get Blob" : what === "tags" ? "Get Blob Tags" : "Get Block List"}`, res, {
      status: 200,
    });
    if (what === "content") out.content = digestOf(Buffer.from(res.body, "utf8"));
    if (what === "tags") out.tags = tagsOf(res.body);
    if (what === "blocks") out.uncommitted = blockNames(res.body);
  }
  return out;
}

/** The subject's state as the target answers it (Get Blob Properties, and what the record reads beyond it). */
export async function stateOf(t: RowContext, op: SurfaceOp, s: SurfaceSubject): Promise<SurfaceState> {
  if (op.resource === "container") return containerState(t, s);
  const res = await t.raw("blob", { method: "HEAD", path: blobPath(s) });
  if (res.status === 404) return { exists: false };
  expectRawStatus("Get Blob Properties (read back)", res, { status: 200 });
  const h = res.headers;
  const optional = (name: string, header: string) => (h[header] !== undefined ? { [name]: h[header] } : {});
  return {
    exists: true,
    etag: h["etag"],
    lastModified: h["last-modified"],
    blobType: h["x-ms-blob-type"],
    length: h["content-length"],
    leaseState: h["x-ms-lease-state"],
    metadata: metadataOf(h),
    ...optional("sequenceNumber", "x-ms-blob-sequence-number"),
    ...optional("sealed", "x-ms-blob-sealed"),
    ...optional("tier", "x-ms-access-tier"),
    ...optional("copyId", "x-ms-copy-id"),
    ...(await blobExtras(t, op, s)),
  };
}

/** Starts an incremental copy of a page blob's snapshot onto a new name and waits for it: the subject Incremental Copy Blob's conditions are about. */
async function incrementalSubject(t: RowContext, s: SurfaceSubject): Promise<void> {
  const c = t.blob.getContainerClient(s.container);
  t.step("set up: a page blob and its snapshot");
  const src = await newPageBlob(t, c);
  const url = await readableUrl(t, src);
  const snapshotUrl = async () => `${url}&snapshot=${encodeURIComponent((await src.createSnapshot()).snapshot!)}`;
  s.blob = t.name("b");
  t.step("Incremental Copy Blob: the first copy, which makes the destination");
  const first = await t.raw("blob", {
    method: "PUT",
    path: blobPath(s),
    query: { comp: "incrementalcopy" },
    headers: { "x-ms-copy-source": await snapshotUrl() },
  });
  expectOk("Incremental Copy Blob (the first copy)", first);
  await t.waitFor(
    "the first incremental copy to finish",
    async () => ((await c.getBlobClient(s.blob!).getProperties()).copyStatus === "pending" ? undefined : true),
    { timeoutMs: 30_000, intervalMs: 250 },
  );
  t.step("set up: a page written on the source, and its second snapshot");
  await src.uploadPages(PAGE, 0, 512);
  s.sourceUrl = await snapshotUrl();
}

/**
 * A blob's lease ID cell carries L's whole rule (catalogue S: "a lease ID as
 * in L"), not only another ID and the holder's: on a finite lease as on an
 * infinite one, and none on a write refused (412 LeaseIdMissing) or on a read
 * let through; an ID on an unleased blob → 412 LeaseNotPresentWithBlobOperation.
 * Live: Go TestSetBlobTagsWithLeaseId (2020-10-02), C++ SetGetTagsWithLeaseId
 * and SetTierWithLeaseId (2021-04-10) on 60 s leases; Java and .NET on Append
 * Block, Append Blob Seal, Put Blob and Copy Blob From URL with an ID on an
 * unleased blob.
 */
export const carriesWholeLeaseRule = (cell: SurfaceCell): boolean =>
  cell.parameter === "x-ms-lease-id" && cell.op.resource !== "container" && !cell.op.slug.startsWith("lease-");

/** The finite lease a whole-rule cell also holds (lease-kit's LASTING: it cannot run out while the row acts). */
export const FINITE_LEASE = 60;

/** The refusals of L's rule beyond another ID: none on a leased blob (a write), an ID on an unleased one. */
export const MISSING: Refusal = { status: 412, code: ["LeaseIdMissing"] };
export const NOT_PRESENT: Refusal = { status: 412, code: ["LeaseNotPresentWithBlobOperation"] };

/**
 * Makes the subject a cell's request acts on, with what its record and
 * parameter need; `lease`: the duration of the lease it needs (-1 by
 * default), or none.
 */
export async function subjectOf(t: RowContext, cell: SurfaceCell, lease: number | "none" = -1): Promise<SurfaceSubject> {
  const { op } = cell;
  const needs = needsOf(cell);
  const c = await t.newContainer();
  const s: SurfaceSubject = { container: c.containerName };
  if (op.resource === "container") {
    if (op.slug === "rename-container") s.renamed = t.name("c");
    t.step("set up: an infinite lease (Lease Container, acquire)");
    if (needs.includes("lease")) await c.getBlobLeaseClient(LEASE_ID).acquireLease(-1);
    return s;
  }
  if (needs.includes("incremental")) await incrementalSubject(t, s);
  else {
    t.step(`set up: a ${op.resource}`);
    s.blob = (await newBlobOf(t, op.resource, c)).name;
  }
  const b = c.getBlobClient(s.blob!);
  const setUp = async (need: Need, what: string, act: () => Promise<unknown>) => {
    if (!needs.includes(need)) return;
    t.step(`set up: ${what}`);
    await act();
  };
  await setUp("snapshot", "a snapshot (Snapshot Blob)", async () => (s.snapshot = (await b.createSnapshot()).snapshot));
  await setUp("page", "a page of data (Put Page)", () => b.getPageBlobClient().uploadPages(PAGE, 0, 512));
  await setUp("sequence", `sequence number ${SEQUENCE_NUMBER} (Set Blob Properties)`, () =>
    b.getPageBlobClient().updateSequenceNumber("update", SEQUENCE_NUMBER),
  );
  await setUp("tags", "the tags surface=original (Set Blob Tags)", () => b.setTags(TAGS));
  await setUp("source", "a source blob", async () => {
    const src = await newBlockBlob(t, SOURCE_CONTENT, c);
    if (needs.includes("source-tags")) {
      t.step("set up: the source's tags surface=original (Set Blob Tags)");
      await src.setTags(TAGS);
    }
    s.sourceUrl = await readableUrl(t, src);
  });
  if (lease !== "none")
    await setUp("lease", `${lease === -1 ? "an infinite" : `a ${lease} s`} lease (Lease Blob, acquire)`, () =>
      b.getBlobLeaseClient(LEASE_ID).acquireLease(lease),
    );
  return s;
}

const HOUR = 3_600_000;
const hourBefore = (date: string | undefined) => {
  const at = Date.parse(date ?? "");
  return Number.isNaN(at) ? undefined : new Date(at - HOUR).toUTCString();
};
const predicate = (value: string) => `"surface" = '${value}'`;

/** The failing and the holding value of a cell's parameter, from the subject's state as read. */
export function valuesOf(cell: SurfaceCell, s: SurfaceState): { failing: string; holding: string } {
  const p = cell.parameter;
  // A validator the target did not answer fails the row, naming the read that lacked it.
  const read = cell.op.resource === "container" ? "Get Container Properties" : "Get Blob Properties";
  const pair = (failing: string | undefined, holding: string | undefined) => ({
    failing: expectPresent(`${read} (the subject read): the value ${p} is made of`, failing),
    holding: expectPresent(`${read} (the subject read): the value ${p} is made of`, holding),
  });
  if (p === "if-match") return pair(STALE_ETAG, s.etag);
  if (p === "if-none-match") return pair(s.etag, STALE_ETAG);
  // The resource was not modified since its own Last-Modified; it was since an hour before.
  if (p === "if-modified-since") return pair(s.lastModified, hourBefore(s.lastModified));
  if (p === "if-unmodified-since") return pair(hourBefore(s.lastModified), s.lastModified);
  if (p === "x-ms-if-tags" || p === "x-ms-source-if-tags") return pair(predicate("other"), predicate(TAGS.surface));
  if (p === "x-ms-proposed-lease-id") return pair("not-a-guid", PROPOSED_LEASE_ID);
  if (p.endsWith("lease-id")) return pair(OTHER_LEASE_ID, LEASE_ID);
  const n = SEQUENCE_NUMBER;
  if (p === "x-ms-if-sequence-number-le") return pair(String(n - 1), String(n));
  if (p === "x-ms-if-sequence-number-lt") return pair(String(n), String(n + 1));
  if (p === "x-ms-if-sequence-number-eq") return pair(String(n - 1), String(n));
  throw new Error(`no values for ${p}`);
}

export type { RawResponse };

const ANY_SURFACE: SurfaceSubject = {
  container: "c",
  blob: "b",
  sourceUrl: "https://a.blob.core.windows.net/c/s",
  snapshot: "s",
  renamed: "r",
};

/** A cell's failing and holding values in the corpus's vocabulary (model/answers.ts), by its parameter's kind. */
function vocabulary(cell: SurfaceCell): { failing: string[]; holding: string[] } {
  const p = cell.parameter;
  if (cell.kind === "condition" || cell.kind === "source condition")
    return p.endsWith("-tags") ? { failing: ["false"], holding: ["true"] } : { failing: failingValues(p), holding: holdingValues(p) };
  if (cell.kind === "tag predicate") return { failing: ["false"], holding: ["true"] };
  if (p === "x-ms-proposed-lease-id") return { failing: ["not-guid"], holding: ["other"] };
  if (cell.kind === "lease id") return { failing: ["other"], holding: ["holder"] };
  return { failing: ["fails"], holding: ["holds"] };
}

/**
 * What the cell's request carries beside its parameter (a lease action's lease
 * ID, proposed ID, duration or period), in the corpus's vocabulary: a record
 * carrying them too is of the cell's shape.
 */
function alsoOf(cell: SurfaceCell, request: { headers?: Record<string, string | string[]> }): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    const h = name.toLowerCase();
    if (h === cell.parameter || !kindOf(h)) continue;
    if (h === "x-ms-lease-id") out[h] = ["holder"];
    else if (h === "x-ms-proposed-lease-id") out[h] = ["other"];
    else if (h === "x-ms-lease-duration") out[h] = [String(value) === "-1" ? "infinite" : "in-range"];
    else if (h === "x-ms-lease-break-period") out[h] = [String(value) === "0" ? "zero" : "in-range"];
  }
  return out;
}

/**
 * What a cell claims Azure answers, as data (fixtures/harness/claims.ts): the
 * record's request with a failing value, refused as section S says (or, a
 * disputed pair, also let through), and with a holding one, let through. A
 * lease ID is claimed on the infinite lease the row holds; a condition on a
 * resource that needs a lease (a lease action) on any lease.
 */
export function answersOfCell(cell: SurfaceCell): ClaimedAnswer[] {
  const request = cell.op.request(ANY_SURFACE);
  const { failing, holding } = vocabulary(cell);
  const leased = needsOf(cell).includes("lease");
  const whole = carriesWholeLeaseRule(cell);
  const of = {
    lease: leased ? ("leased" as const) : ("available" as const),
    ...(leased && cell.kind === "lease id" && !whole ? { leaseDuration: "infinite" as const } : {}),
    also: alsoOf(cell, request),
  };
  const answers = (r: Refusal): AcceptedAnswer[] => (r.code.length ? r.code.map((code) => answer(r.status, code)) : [answer(r.status)]);
  const refused = answers(cell.refusal);
  return [
    claimOn("blob", request, { ...of, params: { [cell.parameter]: failing } }, cell.disputed ? [...refused, ...SUCCESS] : refused),
    claimOn("blob", request, { ...of, params: { [cell.parameter]: holding } }, SUCCESS),
    ...(whole
      ? [
          claimOn("blob", request, { ...of, params: {} }, cell.op.kind === "write" ? answers(MISSING) : SUCCESS),
          claimOn("blob", request, { ...of, lease: "available" as const, params: { [cell.parameter]: failing } }, answers(NOT_PRESENT)),
        ]
      : []),
  ];
}
