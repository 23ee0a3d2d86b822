// X-T Blob index tag conditions: the generated family (every operation that
// takes x-ms-if-tags, with the predicate a client held before another writer
// replaced the tags, then one on the current tags) and the rows on Set Blob
// Tags, Set Blob Tier, the predicate beside ETag and date conditions, invalid
// predicates, the copy source's predicate, and how tags are read.
import type { BlobClient, ContainerClient } from "@azure/storage-blob";
import { expectEqual, expectRawStatus, expectTrue } from "../../fixtures/harness/assert.ts";
import { WaitTimeout, type RowContext } from "../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { defineMatrix, defineTable } from "../../fixtures/harness/registry.ts";
import { allAnswered, notAvailable, RowSignal } from "../../fixtures/wire/signals.ts";
import { downloadAll, expectUnchanged, newBlockBlob } from "./blob-kit.ts";
import { afterCopySettles, blobState, newBlobOf, secondLater } from "./conditional-kit.ts";
import { BLOCK_ID, NEW_CONTENT, OTHER, SOURCE_CONTENT, type ResourceState, type Subject } from "./operations.ts";
import { surfacePairs } from "./operation-pairs.ts";
import { expectOk, readableUrl, refOf, restRow, sendOperation, sendRaw } from "./rest-kit.ts";
import { IF_TAGS, predicate, TAG_CLAIMS, type TagClaim } from "./tags-claims.ts";
import { answer, claimOn, SUCCESS } from "../../fixtures/harness/claims.ts";

const CONDITIONAL = "Specifying Conditional Headers for Blob Service Operations (Tags Conditional Operations)";
const SET_TAGS = "Set Blob Tags";

const tagsBody = (tags: Record<string, string>) =>
  `<?xml version="1.0" encoding="utf-8"?><Tags><TagSet>${Object.entries(tags)
    .map(([k, v]) => `<Tag><Key>${k}</Key><Value>${v}</Value></Tag>`)
    .join("")}</TagSet></Tags>`;

/** Set Blob Tags, raw (with a predicate when given). */
const setTags = (t: RowContext, what: string, b: BlobClient, tags: Record<string, string>, headers: Record<string, string> = {}) =>
  sendRaw(
    t,
    what,
    { container: b.containerName, blob: b.name },
    { method: "PUT", query: { comp: "tags" }, headers: { "content-type": "application/xml", ...headers }, body: tagsBody(tags) },
  );

/** The tags, keys in order (a tag set has no order). */
const tagsOf = async (b: BlobClient) => Object.fromEntries(Object.entries((await b.getTags()).tags).sort(([x], [y]) => x.localeCompare(y)));

/** The blob's state with its tags, read back after a request. */
async function stateWithTags(
  b: BlobClient,
  c: ContainerClient,
  kind: TagClaim["resource"],
): Promise<ResourceState & { tags?: Record<string, string> }> {
  const s = await blobState(b, c, kind === "container" ? "block-blob" : kind);
  return s.exists ? { ...s, tags: await tagsOf(b) } : s;
}

interface TagHistory {
  subject: Subject;
  b: BlobClient;
  read(): Promise<ResourceState & { tags?: Record<string, string> }>;
}

/**
 * The history a tag predicate is judged on: the blob is tagged state=v1, this
 * client reads the tags, another writer replaces them with state=v2. The
 * predicate on v1 is the one the client holds; on v2, the current tags.
 */
async function tagHistory(t: RowContext, claim: TagClaim): Promise<TagHistory> {
  const c = await t.newContainer();
  const kind = claim.resource === "container" ? "block-blob" : claim.resource;
  const b = await newBlobOf(t, kind, c);
  const subject: Subject = { container: c.containerName, blob: b.name };
  if (claim.readsSource) {
    const src = await newBlockBlob(t, SOURCE_CONTENT, c);
    // Copy Blob reads a source of its own account by the request's authorization; the From-URL operations need a SAS.
    subject.sourceUrl = claim.slug === "copy-blob" ? src.url : await readableUrl(t, src);
  }
  if (claim.slug === "put-block-list") await c.getBlockBlobClient(b.name).stageBlock(BLOCK_ID, NEW_CONTENT, NEW_CONTENT.length);
  await b.setTags({ state: "v1" });
  t.step("read the tags (this client)");
  expectEqual("the tags this client reads", await tagsOf(b), { state: "v1" });
  t.step("another writer replaces the tags and the metadata");
  const other = t.clients.blob().getContainerClient(c.containerName).getBlobClient(b.name);
  await other.setTags({ state: "v2" });
  await other.setMetadata({ state: OTHER });
  return { subject, b, read: () => stateWithTags(b, c, claim.resource) };
}

const sendWithPredicate = (t: RowContext, what: string, claim: TagClaim, h: TagHistory, value: string) =>
  sendOperation(t, what, claim, h.subject, { [IF_TAGS]: predicate(value) });

async function runTagCell(t: RowContext, claim: TagClaim): Promise<void> {
  const h = await tagHistory(t, claim);
  const base = await h.read();
  const failing = `${claim.operation} with a false ${IF_TAGS} (the tags read before the other writer's)`;
  // Reads too are refused with 412, never 304 (catalogue, X-T).
  expectRawStatus(failing, await sendWithPredicate(t, failing, claim, h, "v1"), { status: 412, code: "ConditionNotMet" });
  t.step("read back after the refusal");
  expectUnchanged(`${claim.operation} after the refused request`, base, await h.read());
  const holding = `${claim.operation} with a true ${IF_TAGS} (the current tags)`;
  const res = await sendWithPredicate(t, holding, claim, h, "v2");
  if (claim.kind === "read") {
    expectRawStatus(holding, res, { status: 200 });
    expectTrue(`${holding}: the ETag answered is not the blob's`, res.headers["etag"] === undefined || res.headers["etag"] === base.etag);
    if (claim.reply) expectTrue(`${holding}: not the current state (${claim.reply.what})`, claim.reply.holds(res, base));
    return;
  }
  expectOk(holding, res);
  t.step("read back after the permitted request");
  const after = await settled(t, claim, h);
  expectTrue(`${holding}: not applied (${claim.effect!.what})`, claim.effect!.holds(after), { expected: "applied", got: "not applied" });
}

/** A copy may answer 202 while still pending: judged once it settled. */
const settled = (t: RowContext, claim: TagClaim, h: TagHistory) =>
  claim.slug === "copy-blob" ? afterCopySettles(t, () => h.read()) : h.read();

/** A placeholder subject: enough for the request classifier to name a record's request. */
const ANY_TAGGED = { container: "c", blob: "b", sourceUrl: "https://a.blob.core.windows.net/c/s" };

const generated = TAG_CLAIMS.map((claim) =>
  restRow(
    claim.row,
    `${claim.operation} with a false x-ms-if-tags → 412 ConditionNotMet${claim.kind === "read" ? " (not 304)" : ", the blob unchanged"}; a true one proceeds`,
    `${claim.operation}; ${CONDITIONAL}`,
    (t) => runTagCell(t, claim),
    {
      claim: claim.at,
      matrix: (["predicate", "read-back"] as const).map((column) => ({
        section: "X-T-if-tags",
        row: claim.operation,
        column,
        claim: column === "predicate" ? "412 ConditionNotMet" : claim.readBack,
      })),
      surface: surfacePairs(claim, IF_TAGS),
      answers: [
        claimOn("blob", claim.request(ANY_TAGGED), { params: { [IF_TAGS]: "false" }, lease: "available" }, [
          answer(412, "ConditionNotMet"),
        ]),
        claimOn("blob", claim.request(ANY_TAGGED), { params: { [IF_TAGS]: "true" }, lease: "available" }, SUCCESS),
      ],
    },
  ),
);

/** A fresh block blob tagged state=v1 that another writer retagged state=v2 after this client read it. */
async function retagged(t: RowContext): Promise<{ c: ContainerClient; b: BlobClient; read: ResourceState }> {
  const c = await t.newContainer();
  const b = await newBlockBlob(t, "original", c);
  await b.setTags({ state: "v1" });
  const read = await blobState(b, c, "block-blob");
  t.step("another writer replaces the tags");
  await t.clients.blob().getContainerClient(c.containerName).getBlobClient(b.name).setTags({ state: "v2" });
  return { c, b, read };
}

const rows = [
  ...generated,
  restRow(
    "blob/tags/if-tags/set-blob-tags",
    "Set Blob Tags with the predicate that held before another writer's tags → 412 ConditionNotMet, the other writer's tags stay; on the current tags → 204, replaced",
    `${SET_TAGS}; ${CONDITIONAL}`,
    async (t) => {
      const { b } = await retagged(t);
      const stale = "Set Blob Tags with a predicate on the tags read before the other writer's";
      expectRawStatus(stale, await setTags(t, stale, b, { state: "v3" }, { [IF_TAGS]: predicate("v1") }), {
        status: 412,
        code: "ConditionNotMet",
      });
      t.step("read the tags back");
      expectEqual(`${stale}: the tags read back`, await tagsOf(b), { state: "v2" });
      const fresh = "Set Blob Tags with a predicate on the current tags";
      expectOk(fresh, await setTags(t, fresh, b, { state: "v3" }, { [IF_TAGS]: predicate("v2") }), 204);
      expectEqual(`${fresh}: the tags read back`, await tagsOf(b), { state: "v3" });
    },
  ),
  restRow(
    "blob/tags/if-tags/set-blob-tier",
    "Set Blob Tier with a false predicate → 412 ConditionNotMet, the tier unchanged; a true one → 200, the tier set (no tiers: NOT_AVAILABLE)",
    `Set Blob Tier; ${CONDITIONAL}`,
    async (t) => {
      const { b } = await retagged(t);
      const tier = async () => (await b.getProperties()).accessTier;
      const before = await tier();
      if (!before) notAvailable("the target shows no access tier (no x-ms-access-tier on Get Blob Properties): it has no tiers");
      const other = before === "Cool" ? "Hot" : "Cool";
      const ref = refOf(t.blob.getContainerClient(b.containerName), b.name);
      const send = (what: string, value: string) =>
        sendRaw(t, what, ref, {
          method: "PUT",
          query: { comp: "tier" },
          headers: { "x-ms-access-tier": other, [IF_TAGS]: predicate(value) },
        });
      const failing = "Set Blob Tier with a false x-ms-if-tags";
      expectRawStatus(failing, await send(failing, "v1"), { status: 412, code: "ConditionNotMet" });
      expectEqual(`${failing}: the tier read back`, await tier(), before);
      const holding = "Set Blob Tier with a true x-ms-if-tags";
      expectOk(holding, await send(holding, "v2"), 200);
      expectEqual(`${holding}: the tier read back`, await tier(), other);
    },
  ),
  restRow(
    "blob/tags/if-tags/with-etag-conditions",
    "x-ms-if-tags is ANDed with the other conditions: a holding If-Match or If-Unmodified-Since beside a false predicate → 412, a stale If-Match beside a true one → 412, both holding → 200",
    `Set Blob Metadata; ${CONDITIONAL}`,
    async (t) => {
      const { c, b, read } = await retagged(t);
      t.step("another writer sets metadata (a new ETag)");
      await t.clients.blob().getContainerClient(c.containerName).getBlobClient(b.name).setMetadata({ state: "other writer" });
      const base = await blobState(b, c, "block-blob");
      const ref = refOf(c, b.name);
      const send = (what: string, headers: Record<string, string>) =>
        sendRaw(t, what, ref, { method: "PUT", query: { comp: "metadata" }, headers: { "x-ms-meta-state": "permitted", ...headers } });
      const refusals: [string, Record<string, string>][] = [
        ["a holding If-Match and a false x-ms-if-tags", { "if-match": base.etag!, [IF_TAGS]: predicate("v1") }],
        [
          "a holding If-Unmodified-Since and a false x-ms-if-tags",
          { "if-unmodified-since": base.lastModified!, [IF_TAGS]: predicate("v1") },
        ],
        ["a stale If-Match and a true x-ms-if-tags", { "if-match": read.etag!, [IF_TAGS]: predicate("v2") }],
      ];
      for (const [label, headers] of refusals) {
        const what = `Set Blob Metadata with ${label}`;
        expectRawStatus(what, await send(what, headers), { status: 412, code: "ConditionNotMet" });
        expectUnchanged(`${what}: the blob read back`, base, await blobState(b, c, "block-blob"));
      }
      const both = "Set Blob Metadata with a holding If-Match and a true x-ms-if-tags";
      expectOk(both, await send(both, { "if-match": base.etag!, [IF_TAGS]: predicate("v2") }), 200);
      expectEqual(`${both}: the metadata read back`, (await blobState(b, c, "block-blob")).metadata?.state, "permitted");
    },
  ),
  restRow(
    "blob/tags/if-tags/invalid",
    "A malformed predicate (a value without quotes; twelve comparisons, past the ten logical operations allowed) → 400 on Set Blob Metadata and Get Blob, the blob unchanged",
    CONDITIONAL,
    async (t) => {
      const c = await t.newContainer();
      const b = await newBlockBlob(t, "original", c);
      await b.setTags({ state: "v1" });
      const base = await blobState(b, c, "block-blob");
      const ref = refOf(c, b.name);
      const invalid: [string, string][] = [
        ["a value without quotes", `"state" = v1`],
        ["twelve comparisons joined by AND", Array.from({ length: 12 }, (_, i) => `"t${i}" = 'v'`).join(" AND ")],
      ];
      for (const [label, value] of invalid) {
        for (const [name, req] of [
          ["Set Blob Metadata", { method: "PUT", query: { comp: "metadata" }, headers: { "x-ms-meta-state": "invalid" } }],
          ["Get Blob", { method: "GET" }],
        ] as const) {
          const what = `${name} with ${label} in x-ms-if-tags`;
          const res = await sendRaw(t, what, ref, { ...req, headers: { ...("headers" in req ? req.headers : {}), [IF_TAGS]: value } });
          expectRawStatus(what, res, { status: 400 });
          t.note(`${name}, ${label}: code`, res.errorCode ?? null);
          expectUnchanged(`${what}: the blob read back`, base, await blobState(b, c, "block-blob"));
        }
      }
    },
  ),
  restRow(
    "blob/tags/source-if-tags/copy-blob",
    "Copy Blob with a false x-ms-source-if-tags → 412 ConditionNotMet (not SourceConditionNotMet), the destination absent; a true one → the copy proceeds",
    `Copy Blob; ${CONDITIONAL}`,
    async (t) => {
      const { c, b } = await retagged(t);
      const dest = c.getBlockBlobClient(t.name("b"));
      const url = b.url;
      const ref = refOf(c, dest.name);
      const failing = "Copy Blob with a false x-ms-source-if-tags";
      expectRawStatus(
        failing,
        await sendRaw(t, failing, ref, { method: "PUT", headers: { "x-ms-copy-source": url, "x-ms-source-if-tags": predicate("v1") } }),
        { status: 412, code: "ConditionNotMet" },
      );
      expectTrue(`${failing}: the destination exists`, !(await dest.exists()));
      const holding = "Copy Blob with a true x-ms-source-if-tags";
      expectOk(
        holding,
        await sendRaw(t, holding, ref, { method: "PUT", headers: { "x-ms-copy-source": url, "x-ms-source-if-tags": predicate("v2") } }),
        202,
      );
      const copied = await t.waitFor(
        "the copy to settle",
        async () => {
          const p = await dest.getProperties();
          return p.copyStatus === "pending" ? undefined : p;
        },
        { timeoutMs: 30_000, intervalMs: 250 },
      );
      expectEqual(`${holding}: x-ms-copy-status`, copied.copyStatus, "success");
      expectEqual(`${holding}: the destination's content`, (await downloadAll(dest)).toString("utf8"), "original");
    },
  ),
  restRow(
    "blob/tags/set-tags/etag-unchanged",
    "Set Blob Tags changes neither the ETag nor Last-Modified, while Get Blob Tags and x-ms-tag-count show the new tags",
    SET_TAGS,
    async (t) => {
      const c = await t.newContainer();
      const b = await newBlockBlob(t, "original", c);
      const before = await blobState(b, c, "block-blob");
      // A second later by the server's clock, so a Last-Modified that moved would show.
      await secondLater(t, async () => (await b.getProperties()).date, before.lastModified);
      expectOk("Set Blob Tags", await setTags(t, "Set Blob Tags", b, { state: "tagged", owner: "row" }), 204);
      t.step("read back");
      const [after, tags, props] = await allAnswered([blobState(b, c, "block-blob"), tagsOf(b), b.getProperties()]);
      expectUnchanged("the blob after Set Blob Tags", before, after);
      expectEqual("Get Blob Tags after Set Blob Tags", tags, { owner: "row", state: "tagged" });
      expectEqual("x-ms-tag-count after Set Blob Tags", props.tagCount, 2);
    },
  ),
  restRow(
    "blob/tags/get-tags/strong",
    "Right after Set Blob Tags answers 204, Get Blob Tags from another client returns the new tags (three times in a row)",
    `${SET_TAGS}; Get Blob Tags`,
    async (t) => {
      const c = await t.newContainer();
      const b = await newBlockBlob(t, "original", c);
      const reader = t.clients.blob().getContainerClient(c.containerName).getBlobClient(b.name);
      for (const value of ["one", "two", "three"]) {
        expectOk(`Set Blob Tags state=${value}`, await setTags(t, `Set Blob Tags state=${value}`, b, { state: value }), 204);
        t.step("another client reads the tags");
        expectEqual(`Get Blob Tags (another client) right after Set Blob Tags state=${value}`, await tagsOf(reader), { state: value });
      }
    },
  ),
  restRow(
    "blob/tags/find-blobs-by-tags/eventual",
    "Find Blobs by Tags may lag Set Blob Tags: records how long (server clock) until the blob is listed under its new tags and no longer under the old ones",
    `${SET_TAGS} (Find Blobs by Tags is eventually consistent)`,
    async (t) => {
      const c = await t.newContainer();
      const b = await newBlockBlob(t, "original", c);
      // Values unique to this blob: the index is the account's.
      const key = "conformancetag";
      const [oldValue, newValue] = [`${b.name}-old`, `${b.name}-new`];
      await b.setTags({ [key]: oldValue });
      const set = await setTags(t, "Set Blob Tags to the new value", b, { [key]: newValue });
      expectOk("Set Blob Tags to the new value", set, 204);
      const find = (value: string) => t.raw("blob", { method: "GET", path: "/", query: { comp: "blobs", where: `"${key}" = '${value}'` } });
      const listed = (res: RawResponse) => res.body.includes(`<Name>${b.name}</Name>`);
      try {
        const seen = await t.waitFor(
          "the blob listed under its new tags only",
          async () => {
            const [byNew, byOld] = await allAnswered([find(newValue), find(oldValue)]);
            expectRawStatus("Find Blobs by Tags", byNew, { status: 200 });
            return listed(byNew) && !listed(byOld) ? byNew : undefined;
          },
          { timeoutMs: 60_000, intervalMs: 500 },
        );
        t.note("lag (server clock, s)", (Date.parse(seen.headers["date"]) - Date.parse(set.headers["date"])) / 1000);
      } catch (err) {
        if (err instanceof WaitTimeout)
          throw new RowSignal(
            "INCONCLUSIVE",
            "Find Blobs by Tags did not list the blob under its new tags only within 60 s (the lag is recorded, never failed)",
          );
        throw err;
      }
    },
    { level: "info", waitSeconds: 1 },
  ),
];

defineTable({ table: "X-T Blob index tag conditions", service: "blob" }, rows);

defineMatrix({
  key: "X-T-if-tags",
  title: "Operations × x-ms-if-tags",
  source: `REST: ${CONDITIONAL}; a predicate the client held before another writer replaced the tags is refused with 412 (reads too) and the blob reads back unchanged; one on the current tags proceeds`,
  order: 195,
  beyond: true,
  columns: [
    { key: "predicate", header: "False predicate" },
    { key: "read-back", header: "Read back after the refusal" },
  ],
});
