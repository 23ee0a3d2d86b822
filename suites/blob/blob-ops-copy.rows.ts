// T2 Blob operations, copies: Copy Blob (conditions on source and destination)
// and Abort Copy Blob (needs a pending copy). Copy Blob is sent raw so the
// evidence shows every x-ms-source-if-* header and the exact error code.
import type { BlockBlobClient } from "@azure/storage-blob";
import { expectChanged, expectEqual, expectEtag, expectNoEtag, expectRawStatus, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { preconditionFailed } from "../../fixtures/wire/signals.ts";
import { blobOpRows, blobPath, blobSource, expectUnchanged, newBlockBlob, snapshotOf, STALE_ETAG, type BlobOpTests } from "./blob-kit.ts";

/** A source ("source") and an existing destination ("original") in one container. */
async function pair(t: RowContext): Promise<{ src: BlockBlobClient; dest: BlockBlobClient; srcEtag: string }> {
  const src = await newBlockBlob(t, "source");
  const dest = await newBlockBlob(t, "original", t.blob.getContainerClient(src.containerName));
  return { src, dest, srcEtag: (await src.getProperties()).etag! };
}

/** Copy Blob, raw: PUT on the destination with x-ms-copy-source and the given headers. */
function copyBlob(t: RowContext, src: BlockBlobClient, dest: BlockBlobClient, headers: Record<string, string> = {}): Promise<RawResponse> {
  return t.raw("blob", { method: "PUT", path: blobPath(dest), headers: { "x-ms-copy-source": src.url, ...headers } });
}

/** Sends a copy the claim says is refused, and shows the destination unchanged. */
async function refusedCopy(
  t: RowContext,
  what: string,
  src: BlockBlobClient,
  dest: BlockBlobClient,
  headers: Record<string, string>,
  expected: { status: number; code?: string | string[] },
): Promise<RawResponse> {
  const before = await snapshotOf(dest);
  t.step(what);
  const res = await copyBlob(t, src, dest, headers);
  t.note(what, `${res.status} ${res.errorCode ?? ""}`.trim());
  expectRawStatus(what, res, expected);
  expectUnchanged(`destination after: ${what}`, before, await snapshotOf(dest));
  return res;
}

/** Waits until the destination's copy is no longer pending (the server's x-ms-copy-status). */
async function copySettled(t: RowContext, dest: BlockBlobClient): Promise<string> {
  return t.waitFor(
    "the copy to leave the pending state",
    async () => {
      const s = (await dest.getProperties()).copyStatus;
      return s === "pending" ? undefined : (s ?? "none");
    },
    { timeoutMs: 30_000, intervalMs: 250 },
  );
}

/**
 * Starts a copy and returns it only if it is still pending on the server;
 * otherwise PRECONDITION_FAILED (Abort Copy Blob needs a pending copy).
 */
async function pendingCopy(t: RowContext): Promise<{ dest: BlockBlobClient; copyId: string }> {
  const { src, dest } = await pair(t);
  t.step("start a copy");
  const res = await copyBlob(t, src, dest);
  expectRawStatus("Copy Blob to start a copy", res, { status: 202 });
  const copyId = res.headers["x-ms-copy-id"];
  expectTrue("Copy Blob returned an x-ms-copy-id", !!copyId);
  t.step("read the copy status from the server");
  const status = (await dest.getProperties()).copyStatus;
  t.note("copyStatusInResponse", res.headers["x-ms-copy-status"] ?? null);
  t.note("copyStatusOnServer", status ?? null);
  if (status !== "pending") {
    t.step("abort the completed copy (recorded only)");
    const abort = await t.raw("blob", {
      method: "PUT",
      path: blobPath(dest),
      query: { comp: "copy", copyid: copyId },
      headers: { "x-ms-copy-action": "abort" },
      acceptFault: true,
    });
    t.note("abortOfCompletedCopy", `${abort.status} ${abort.errorCode ?? ""}`.trim());
    preconditionFailed(`the target completed the copy at once (x-ms-copy-status: ${status ?? "none"}); there is no pending copy to abort`);
  }
  return { dest, copyId };
}

function abortRequest(dest: BlockBlobClient, copyId: string) {
  return { method: "PUT", path: blobPath(dest), query: { comp: "copy", copyid: copyId }, headers: { "x-ms-copy-action": "abort" } };
}

const TESTS: Record<string, BlobOpTests> = {
  "copy-blob": {
    async etag(t) {
      const { src, dest } = await pair(t);
      const before = (await dest.getProperties()).etag;
      const res = await copyBlob(t, src, dest);
      expectRawStatus("Copy Blob", res, { status: 202 });
      const etag = expectEtag("Copy Blob", res.headers["etag"]);
      expectChanged("Copy Blob over an existing blob", before, etag);
      const status = await copySettled(t, dest);
      expectEqual("copy status", status, "success");
      const after = await snapshotOf(dest);
      expectEqual("destination content after Copy Blob", after.content, "source");
      // A copy that was pending when answered may get another ETag on completion; only a synchronous one must match.
      if (res.headers["x-ms-copy-status"] === "success") expectEqual("ETag read after Copy Blob", after.etag, etag);
      else t.note("etagAfterPendingCopy", after.etag === etag ? "same as the response" : "changed on completion");
    },
  },
  "abort-copy-blob": {
    async etag(t) {
      const { dest, copyId } = await pendingCopy(t);
      t.step("Abort Copy Blob");
      const res = await t.raw("blob", abortRequest(dest, copyId));
      expectEqual("Abort Copy Blob status", res.status, 204);
      expectNoEtag("Abort Copy Blob", res.headers["etag"]);
      expectEqual("copy status after Abort Copy Blob", (await dest.getProperties()).copyStatus, "aborted");
    },
  },
};

const extra: RowDef[] = [
  {
    id: "blob/blob-ops/copy-blob/source-conditional",
    title: "Copy Blob with a failing x-ms-source-if-match is refused (412) and the destination is unchanged",
    level: "doc",
    source: blobSource("Copy Blob: x-ms-source-if-match"),
    service: "blob",
    async run(t) {
      const { src, dest, srcEtag } = await pair(t);
      await refusedCopy(t, "Copy Blob, stale x-ms-source-if-match", src, dest, { "x-ms-source-if-match": STALE_ETAG }, { status: 412 });
      t.step("Copy Blob with the current x-ms-source-if-match");
      expectRawStatus("Copy Blob, current x-ms-source-if-match", await copyBlob(t, src, dest, { "x-ms-source-if-match": srcEtag }), {
        status: 202,
      });
      await copySettled(t, dest);
      expectEqual("destination content after the permitted Copy Blob", (await snapshotOf(dest)).content, "source");
    },
  },
  {
    id: "blob/blob-ops/copy-blob/source-conditional/if-none-match",
    title: "Copy Blob with a failing x-ms-source-if-none-match is refused with 412 (not 304), the destination unchanged",
    level: "rest",
    source: blobSource("Copy Blob: x-ms-source-if-none-match (a failing source condition → 412)"),
    service: "blob",
    async run(t) {
      const { src, dest, srcEtag } = await pair(t);
      await refusedCopy(
        t,
        "Copy Blob, current x-ms-source-if-none-match",
        src,
        dest,
        { "x-ms-source-if-none-match": srcEtag },
        { status: 412 },
      );
    },
  },
  {
    id: "blob/blob-ops/copy-blob/source-conditional/error-code",
    title: "A failing source condition on Copy Blob is refused with SourceConditionNotMet",
    level: "rest",
    source: blobSource("Copy Blob; Blob service error codes (SourceConditionNotMet)"),
    service: "blob",
    async run(t) {
      const { src, dest } = await pair(t);
      await refusedCopy(
        t,
        "Copy Blob, stale x-ms-source-if-match",
        src,
        dest,
        { "x-ms-source-if-match": STALE_ETAG },
        { status: 412, code: "SourceConditionNotMet" },
      );
    },
  },
  {
    id: "blob/blob-ops/copy-blob/destination-conditional",
    title: "Copy Blob with a failing condition on the destination is refused (412) and the destination is unchanged",
    level: "doc",
    source: blobSource("Copy Blob: If-Match on the destination"),
    service: "blob",
    async run(t) {
      const { src, dest } = await pair(t);
      await refusedCopy(t, "Copy Blob, stale If-Match on the destination", src, dest, { "If-Match": STALE_ETAG }, { status: 412 });
      const destEtag = (await dest.getProperties()).etag!;
      t.step("Copy Blob with the current If-Match on the destination");
      expectRawStatus("Copy Blob, current If-Match on the destination", await copyBlob(t, src, dest, { "If-Match": destEtag }), {
        status: 202,
      });
      await copySettled(t, dest);
      expectEqual("destination content after the permitted Copy Blob", (await snapshotOf(dest)).content, "source");
    },
  },
  {
    id: "blob/blob-ops/copy-blob/destination-conditional/if-none-match",
    title: "Copy Blob with a failing If-None-Match (the destination's ETag) is refused with 412, the destination unchanged",
    level: "rest",
    source: blobSource("Copy Blob: If-None-Match on the destination"),
    service: "blob",
    async run(t) {
      const { src, dest } = await pair(t);
      const destEtag = (await dest.getProperties()).etag!;
      await refusedCopy(
        t,
        "Copy Blob, current If-None-Match on the destination",
        src,
        dest,
        { "If-None-Match": destEtag },
        { status: 412 },
      );
    },
  },
  {
    id: "blob/blob-ops/copy-blob/destination-conditional/error-code",
    title: "A failing destination condition on Copy Blob is refused with TargetConditionNotMet",
    level: "rest",
    source: blobSource("Copy Blob; Blob service error codes (TargetConditionNotMet)"),
    service: "blob",
    async run(t) {
      const { src, dest } = await pair(t);
      await refusedCopy(
        t,
        "Copy Blob, stale If-Match on the destination",
        src,
        dest,
        { "If-Match": STALE_ETAG },
        { status: 412, code: "TargetConditionNotMet" },
      );
    },
  },
  {
    id: "blob/blob-ops/copy-blob/if-none-match-star",
    title: "Copy Blob with If-None-Match: * over an existing blob is refused with 409 BlobAlreadyExists, the blob unchanged",
    level: "rest",
    source: blobSource("Specifying Conditional Headers for Blob Service Operations (If-None-Match: *)"),
    service: "blob",
    async run(t) {
      const { src, dest } = await pair(t);
      await refusedCopy(
        t,
        "Copy Blob, If-None-Match: * over an existing blob",
        src,
        dest,
        { "If-None-Match": "*" },
        { status: 409, code: "BlobAlreadyExists" },
      );
    },
  },
];

defineTable({ table: "T2 Blob operations", service: "blob" }, [...blobOpRows(TESTS), ...extra]);
