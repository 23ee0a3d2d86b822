// X-V Versions and recovery: versioning, blob soft delete, container
// restore and the immutability policy's condition. They are account settings
// outside the suite's control, so each row first detects whether the target
// has the feature (NOT_AVAILABLE when it does not, by the catalogue's rule).
import type { ContainerClient } from "@azure/storage-blob";
import { expectEqual, expectRawStatus, expectTrue } from "../../fixtures/harness/assert.ts";
import { WaitTimeout, type RowContext } from "../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { notAvailable, preconditionFailed } from "../../fixtures/wire/signals.ts";
import { secondLater } from "./conditional-kit.ts";
import { expectOk, refOf, restRow, sendRaw, type BlobRef } from "./rest-kit.ts";
import { downloadAll } from "./blob-kit.ts";

const putBlob = (t: RowContext, what: string, ref: BlobRef, content: string, headers: Record<string, string> = {}) =>
  sendRaw(t, what, ref, { method: "PUT", headers: { "x-ms-blob-type": "BlockBlob", ...headers }, body: content });

/** Put Blob on a fresh blob; NOT_AVAILABLE when its answer carries no x-ms-version-id (versioning off). */
async function versionedBlob(t: RowContext, c?: ContainerClient): Promise<{ ref: BlobRef; first: RawResponse }> {
  const container = c ?? (await t.newContainer());
  const ref = refOf(container, t.name("b"));
  const first = await putBlob(t, "Put Blob (version 1)", ref, "version 1");
  expectOk("Put Blob (version 1)", first, 201);
  if (!first.headers["x-ms-version-id"]) notAvailable("versioning is off: Put Blob answered no x-ms-version-id");
  return { ref, first };
}

const hasVersioning = async (t: RowContext) => {
  const c = await t.newContainer();
  const res = await putBlob(t, "Put Blob (versioning probe)", refOf(c, t.name("b")), "probe");
  return !!res.headers["x-ms-version-id"];
};

const rows = [
  restRow(
    "blob/versioning/new-id-per-write",
    "With versioning on, every write answers a new x-ms-version-id; Get Blob ?versionid= an earlier one returns that version's content and ETag, the blob itself the latest",
    'Get Blob (versionid); "Blob versioning"',
    async (t) => {
      const { ref, first } = await versionedBlob(t);
      const meta = await sendRaw(t, "Set Blob Metadata", ref, {
        method: "PUT",
        query: { comp: "metadata" },
        headers: { "x-ms-meta-state": "written" },
      });
      expectOk("Set Blob Metadata", meta, 200);
      const second = await putBlob(t, "Put Blob (version 3)", ref, "version 3");
      expectOk("Put Blob (version 3)", second, 201);
      const ids = [first, meta, second].map((r) => r.headers["x-ms-version-id"]);
      expectTrue("each write answered a new x-ms-version-id", ids.every(Boolean) && new Set(ids).size === 3);
      const old = await sendRaw(t, "Get Blob ?versionid= the first", ref, { method: "GET", query: { versionid: ids[0] } });
      expectRawStatus("Get Blob ?versionid= the first", old, { status: 200 });
      expectEqual("the first version's content", old.body, "version 1");
      expectTrue("the first version's ETag is not the one its Put Blob answered", old.headers["etag"] === first.headers["etag"]);
      const latest = await sendRaw(t, "Get Blob", ref, { method: "GET" });
      expectEqual("the blob's content", latest.body, "version 3");
    },
  ),
  restRow(
    "blob/soft-delete/undelete",
    "With blob soft delete on, a deleted blob answers 404 and is listed only with include=deleted; Undelete Blob → 200 and its content and metadata read back",
    'Undelete Blob; "Soft delete for blobs"',
    async (t) => {
      const props = await t.raw("blob", { method: "GET", path: "/", query: { restype: "service", comp: "properties" } });
      expectRawStatus("Get Blob Service Properties", props, { status: 200 });
      const policy = /<DeleteRetentionPolicy>\s*<Enabled>(true|false)<\/Enabled>/i.exec(props.body)?.[1];
      if (policy !== "true") notAvailable(`blob soft delete is off (DeleteRetentionPolicy Enabled: ${policy ?? "absent"})`);
      if (await hasVersioning(t)) preconditionFailed("versioning is on too: Undelete Blob would restore versions, not the blob");
      const c = await t.newContainer();
      const ref = refOf(c, t.name("b"));
      expectOk("Put Blob", await putBlob(t, "Put Blob", ref, "kept", { "x-ms-meta-state": "kept" }), 201);
      expectOk("Delete Blob", await sendRaw(t, "Delete Blob", ref, { method: "DELETE" }), 202);
      expectRawStatus("Get Blob after the delete", await sendRaw(t, "Get Blob after the delete", ref, { method: "GET" }), {
        status: 404,
        code: "BlobNotFound",
      });
      const list = (include?: string) =>
        t.raw("blob", {
          method: "GET",
          path: `/${ref.container}`,
          query: { restype: "container", comp: "list", ...(include ? { include } : {}) },
        });
      expectTrue("List Blobs (no include) lists the deleted blob", !(await list()).body.includes(`<Name>${ref.blob}</Name>`));
      expectTrue(
        "List Blobs with include=deleted does not list the deleted blob",
        (await list("deleted")).body.includes(`<Name>${ref.blob}</Name>`),
      );
      expectOk("Undelete Blob", await sendRaw(t, "Undelete Blob", ref, { method: "PUT", query: { comp: "undelete" } }), 200);
      const back = await sendRaw(t, "Get Blob after Undelete Blob", ref, { method: "GET" });
      expectRawStatus("Get Blob after Undelete Blob", back, { status: 200 });
      expectEqual(
        "the content and metadata after Undelete Blob",
        { content: back.body, state: back.headers["x-ms-meta-state"] },
        { content: "kept", state: "kept" },
      );
    },
  ),
  restRow(
    "blob/container/restore",
    "After Delete Container, Restore Container → 201 and the container and its blobs read back; restoring over a name in use again → 409, the live container unchanged",
    'Restore Container; "Soft delete for containers"',
    async (t) => {
      const c = await t.newContainer();
      const blob = c.getBlockBlobClient(t.name("b"));
      const put = await blob.upload("kept", 4);
      const deletedVersion = async () => {
        const res = await t.raw("blob", { method: "GET", path: "/", query: { comp: "list", include: "deleted", prefix: c.containerName } });
        expectRawStatus("List Containers, include=deleted", res, { status: 200 });
        const entry = res.body
          .split("<Container>")
          .find((e) => e.includes(`<Name>${c.containerName}</Name>`) && /<Deleted>true<\/Deleted>/.test(e));
        return entry ? /<Version>([^<]+)<\/Version>/.exec(entry)?.[1] : undefined;
      };
      const restore = (what: string, version: string) =>
        t.raw("blob", {
          method: "PUT",
          path: `/${c.containerName}`,
          query: { restype: "container", comp: "undelete" },
          headers: { "x-ms-deleted-container-name": c.containerName, "x-ms-deleted-container-version": version },
        });
      // A listing may lag the delete: polled for a few seconds before the row concludes the feature is off.
      const listedDeleted = (what: string) =>
        t
          .waitFor(`${what} listed by List Containers with include=deleted`, deletedVersion, { timeoutMs: 5_000, intervalMs: 500 })
          .catch((err) => {
            if (err instanceof WaitTimeout) return undefined;
            throw err;
          });
      // Azure answers 409 ContainerBeingDeleted to a re-create of a just-deleted name for about 30 s: retried for up to 60 s.
      const recreate = async () => {
        const created = await t
          .waitFor(
            "Create Container under the deleted name",
            async () => {
              const res = await t.raw("blob", { method: "PUT", path: `/${c.containerName}`, query: { restype: "container" } });
              if (res.status === 201) return res;
              if (res.status === 409 && res.errorCode === "ContainerBeingDeleted") return undefined;
              preconditionFailed(
                `the name could not be used again (Create Container answered ${res.status} ${res.errorCode ?? ""}): the in-use case cannot be set up`,
              );
            },
            { timeoutMs: 60_000, intervalMs: 2_000 },
          )
          .catch((err) => {
            if (err instanceof WaitTimeout)
              preconditionFailed(
                "Create Container under the deleted name met 409 ContainerBeingDeleted for 60 s: the in-use case cannot be set up",
              );
            throw err;
          });
        return created;
      };
      t.step("Delete Container");
      await c.delete();
      const version = await listedDeleted("the deleted container");
      if (!version)
        notAvailable(
          "container soft delete is off: List Containers with include=deleted does not list the deleted container with a version",
        );
      t.step("Restore Container");
      expectOk("Restore Container", await restore("Restore Container", version!), 201);
      const props = await blob.getProperties();
      expectTrue("the blob's ETag after Restore Container is not the one it had", props.etag === put.etag);
      expectEqual("the blob's content after Restore Container", (await downloadAll(blob)).toString("utf8"), "kept");
      t.step("delete the container again, and create one under its name");
      await c.delete();
      const again = await listedDeleted("the container deleted a second time");
      if (!again) preconditionFailed("the container deleted a second time is not listed as deleted");
      await recreate();
      const live = await c.getProperties();
      const what = "Restore Container over a name in use";
      const res = await restore(what, again!);
      expectRawStatus(what, res, { status: 409 });
      t.note("code", res.errorCode ?? null);
      expectTrue(`${what}: the live container changed`, (await c.getProperties()).etag === live.etag);
    },
  ),
  restRow(
    "blob/immutability/if-unmodified-since",
    "Set Blob Immutability Policy honours If-Unmodified-Since: failing → 412 ConditionNotMet and no policy; holding → 200, the policy reads back",
    'Set Blob Immutability Policy; "Version-level immutability"',
    async (t) => {
      if (!(await hasVersioning(t)))
        notAvailable("versioning is off (Put Blob answered no x-ms-version-id); the immutability policy needs it");
      const name = t.name("c");
      // Azure honours no data-plane header for version-level immutability (the account or ARM enables it):
      // the row asks for it, and goes on only where Get Container Properties shows it on (catalogue X-V).
      const created = await t.raw("blob", {
        method: "PUT",
        path: `/${name}`,
        query: { restype: "container" },
        headers: { "x-ms-immutable-storage-with-versioning-enabled": "true" },
      });
      if (created.status !== 201)
        notAvailable(
          `the target refused a container with version-level immutability support (${created.status} ${created.errorCode ?? ""})`,
        );
      t.step("Get Container Properties: is version-level immutability on?");
      const shown = (await t.raw("blob", { method: "HEAD", path: `/${name}`, query: { restype: "container" } })).headers[
        "x-ms-immutable-storage-with-versioning-enabled"
      ];
      if (shown !== "true")
        notAvailable(
          `version-level immutability is off on the container (Get Container Properties: x-ms-immutable-storage-with-versioning-enabled ${shown ?? "absent"})`,
        );
      const c = t.blob.getContainerClient(name);
      const { ref } = await versionedBlob(t, c);
      const b = c.getBlobClient(ref.blob);
      const before = (await b.getProperties()).lastModified!.toUTCString();
      await secondLater(t, async () => (await b.getProperties()).date, before);
      t.step("another writer sets metadata");
      await t.clients.blob().getContainerClient(name).getBlobClient(ref.blob).setMetadata({ state: "other writer" });
      const props = await b.getProperties();
      const until = new Date(props.date!.getTime() + 60_000).toUTCString();
      const set = (what: string, since: string) =>
        sendRaw(t, what, ref, {
          method: "PUT",
          query: { comp: "immutabilityPolicies" },
          headers: {
            "x-ms-immutability-policy-until-date": until,
            "x-ms-immutability-policy-mode": "Unlocked",
            "if-unmodified-since": since,
          },
        });
      const failing = "Set Blob Immutability Policy, If-Unmodified-Since: the Last-Modified read before the other writer";
      expectRawStatus(failing, await set(failing, before), { status: 412, code: "ConditionNotMet" });
      expectTrue(`${failing}: a policy reads back`, !(await b.getProperties()).immutabilityPolicyExpiresOn);
      const holding = "Set Blob Immutability Policy, If-Unmodified-Since: the current Last-Modified";
      expectOk(holding, await set(holding, props.lastModified!.toUTCString()), 200);
      expectTrue(`${holding}: no policy reads back`, !!(await b.getProperties()).immutabilityPolicyExpiresOn);
      t.step("delete the unlocked policy");
      expectOk(
        "Delete Blob Immutability Policy",
        await sendRaw(t, "Delete Blob Immutability Policy", ref, { method: "DELETE", query: { comp: "immutabilityPolicies" } }),
        200,
      );
    },
    { surface: [{ operation: "Set Blob Immutability Policy", parameter: "if-unmodified-since" }] },
  ),
];

defineTable({ table: "X-V Versions and recovery", service: "blob" }, rows);
