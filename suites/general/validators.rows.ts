// G: validators advance (validator-claims.ts). For each write: read the
// resource's validators, wait until the server's clock is a second past its
// Last-Modified, write, read them again: a new ETag (the one the write
// answered), and a later Last-Modified (an entity's Timestamp).
import { expectRawStatus, expectTrue, sameEtag } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { blobPath, newBlockBlob, newPageBlob } from "../blob/blob-kit.ts";
import { BLOCK_ID } from "../blob/conditional-claims.ts";
import { secondLater } from "../blob/conditional-kit.ts";
import { entityPath, newEntity, PK } from "../table/table-kit.ts";
import { validatorAt, VALIDATORS_ADVANCE, WRITES, type ValidatorWrite } from "./validator-claims.ts";

interface Validators {
  etag?: string;
  lastModified?: string;
  /** The server's Date of the read. */
  date: Date;
  /** A blob's x-ms-copy-status, where a copy was made onto it. */
  copyStatus?: string;
}

/** A resource of the write's kind, with a way to read its validators (raw: the wire's own headers) and to write it. */
interface Subject {
  read(): Promise<Validators>;
  write(): Promise<RawResponse>;
}

const fromHeaders = (res: RawResponse): Validators => ({
  etag: res.headers["etag"],
  lastModified: res.headers["last-modified"],
  date: new Date(res.headers["date"]),
  copyStatus: res.headers["x-ms-copy-status"],
});

async function subject(t: RowContext, w: ValidatorWrite): Promise<Subject> {
  if (w.resource === "container") {
    const c = await t.newContainer();
    const path = `/${c.containerName}`;
    const acl = `<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers><SignedIdentifier><Id>written</Id><AccessPolicy><Permission>r</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>`;
    return {
      read: async () => fromHeaders(await t.raw("blob", { method: "GET", path, query: { restype: "container" } })),
      write: () =>
        w.slug === "set-container-acl"
          ? t.raw("blob", {
              method: "PUT",
              path,
              query: { restype: "container", comp: "acl" },
              headers: { "content-type": "application/xml" },
              body: acl,
            })
          : t.raw("blob", {
              method: "PUT",
              path,
              query: { restype: "container", comp: "metadata" },
              headers: { "x-ms-meta-state": "written" },
            }),
    };
  }
  if (w.resource === "entity") {
    const { table, rk } = await newEntity(t, { state: "original" });
    const path = entityPath(table.tableName, rk);
    return {
      read: async () => {
        const res = await t.raw("table", { method: "GET", path });
        expectRawStatus("Get Entity", res, { status: 200 });
        // An entity's Last-Modified is its Timestamp property.
        return {
          etag: res.headers["etag"],
          lastModified: (JSON.parse(res.body) as { Timestamp?: string }).Timestamp,
          date: new Date(res.headers["date"]),
        };
      },
      write: () => {
        const method = w.slug.includes("merge") ? "MERGE" : "PUT";
        const conditional = w.slug === "update-entity" || w.slug === "merge-entity";
        return t.raw("table", {
          method,
          path,
          headers: { "content-type": "application/json", ...(conditional ? { "if-match": "*" } : {}) },
          body: JSON.stringify({ PartitionKey: PK, RowKey: rk, state: "written" }),
        });
      },
    };
  }
  const c = await t.newContainer();
  const b = w.resource === "page-blob" ? await newPageBlob(t, c) : await newBlockBlob(t, "original", c);
  const path = blobPath(b);
  if (w.slug === "put-block-list") await c.getBlockBlobClient(b.name).stageBlock(BLOCK_ID, "staged", 6);
  const source = w.slug === "copy-blob" ? await newBlockBlob(t, "copied", c) : undefined;
  const WRITE: Record<string, () => Promise<RawResponse>> = {
    "put-blob": () => t.raw("blob", { method: "PUT", path, headers: { "x-ms-blob-type": "BlockBlob" }, body: "written" }),
    "set-blob-properties": () =>
      t.raw("blob", { method: "PUT", path, query: { comp: "properties" }, headers: { "x-ms-blob-content-type": "text/x-written" } }),
    "set-blob-metadata": () =>
      t.raw("blob", { method: "PUT", path, query: { comp: "metadata" }, headers: { "x-ms-meta-state": "written" } }),
    "put-block-list": () =>
      t.raw("blob", {
        method: "PUT",
        path,
        query: { comp: "blocklist" },
        body: `<?xml version="1.0" encoding="utf-8"?><BlockList><Latest>${BLOCK_ID}</Latest></BlockList>`,
      }),
    "put-page": () =>
      t.raw("blob", {
        method: "PUT",
        path,
        query: { comp: "page" },
        headers: { "x-ms-range": "bytes=0-511", "x-ms-page-write": "update" },
        body: "w".repeat(512),
      }),
    "copy-blob": () => t.raw("blob", { method: "PUT", path, headers: { "x-ms-copy-source": source!.url } }),
  };
  return { read: async () => fromHeaders(await t.raw("blob", { method: "HEAD", path })), write: WRITE[w.slug] };
}

async function advances(t: RowContext, w: ValidatorWrite): Promise<void> {
  const s = await subject(t, w);
  t.step("read the validators");
  const before = await s.read();
  expectTrue(`${w.operation}: the resource has no ETag or Last-Modified to compare (setup)`, !!before.etag && !!before.lastModified);
  await secondLater(t, async () => (await s.read()).date, before.lastModified);
  t.step(`${w.operation}, a second later by the server's clock`);
  const res = await s.write();
  const got = `${res.status} ${res.errorCode ?? ""}`.trim();
  expectTrue(`${w.operation}: expected success, got ${got}`, res.status >= 200 && res.status < 300, { expected: "success", got });
  t.step("read the validators again");
  // A copy still pending when Copy Blob answers: its ETag is the one the destination had at the copy's start (Copy Blob page); the copy's own comes when it completes.
  const pending = res.headers["x-ms-copy-status"] === "pending";
  const after = pending
    ? await t.waitFor("the copy to complete", async () => ((await s.read()).copyStatus === "pending" ? undefined : s.read()), {
        timeoutMs: 30_000,
        intervalMs: 250,
      })
    : await s.read();
  if (pending) t.note("copy", "pending when Copy Blob answered; its ETag compared once it completed");
  expectTrue(
    `${VALIDATORS_ADVANCE}: ${w.operation} did not give the resource a new ETag`,
    !!after.etag && !sameEtag(after.etag, before.etag),
  );
  if (!pending)
    expectTrue(
      `${VALIDATORS_ADVANCE}: ${w.operation} answered an ETag that is not the one the resource then has`,
      sameEtag(res.headers["etag"], after.etag),
    );
  const [lm0, lm1] = [Date.parse(before.lastModified!), Date.parse(after.lastModified ?? "")];
  expectTrue(
    `${VALIDATORS_ADVANCE}: ${w.operation} a second after the previous change did not move ${w.resource === "entity" ? "Timestamp" : "Last-Modified"} forward`,
    lm1 > lm0,
  );
}

const rows: RowDef[] = WRITES.map((w) => ({
  id: `${VALIDATORS_ADVANCE}/${w.slug}`,
  claim: validatorAt(w.slug),
  title: `${w.operation} a second after the previous change gives the ${w.resource === "entity" ? "entity" : w.resource === "container" ? "container" : "blob"} a new ETag (the one it answered) and a later ${w.resource === "entity" ? "Timestamp" : "Last-Modified"}`,
  level: "doc",
  source: "seed: introduction (every change gives a new ETag); REST: Last-Modified, Timestamp",
  service: w.service,
  // The one-second gap (the pool slot is lent meanwhile).
  waitSeconds: 1,
  run: (t) => advances(t, w),
}));

for (const service of [...new Set(rows.map((r) => r.service))])
  defineTable(
    { table: "G General behaviour", service },
    rows.filter((r) => r.service === service),
  );
