// Q: Set Queue Metadata, Set Queue ACL and Set Queue Service Properties are
// last-writer-wins (seed: queue section). Two unconditional writers, each its
// own client: a read returns the second one's value. A stale If-Match, sent
// raw (the SDKs have no option for it), is not evaluated: no 304, no 412.
import type { QueueClient, QueueServiceProperties } from "@azure/storage-queue";
import { expectEqual, expectNotEvaluated, expectRawStatus, expectSent, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { currentEvidence } from "../../fixtures/wire/evidence.ts";
import type { RawRequest } from "../../fixtures/wire/raw.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { preconditionFailed } from "../../fixtures/wire/signals.ts";
import { otherClient, queueCell, queueSource, serialised } from "./queue-kit.ts";

const STALE_ETAG = '"0x8D0000000000000"';

/** Sends `req` raw with a stale If-Match; the header left the client, and it was not evaluated. */
async function withStaleIfMatch(t: RowContext, what: string, req: RawRequest): Promise<"ignored" | "rejected"> {
  t.step(`${what} with a stale If-Match (raw)`);
  const res = await t.raw("queue", { ...req, headers: { ...(req.headers ?? {}), "if-match": STALE_ETAG } });
  expectSent(what, currentEvidence()!.exchanges.at(-1)!.requestHeaders, "If-Match");
  const outcome = expectNotEvaluated(`${what} with a stale If-Match`, res.status);
  t.note(`${what} with a stale If-Match`, outcome);
  return outcome;
}

const aclIds = async (q: QueueClient) => (await q.getAccessPolicy()).signedIdentifiers.map((s) => s.id);

const corsRule = (origin: string) =>
  `<CorsRule><AllowedOrigins>${origin}</AllowedOrigins><AllowedMethods>GET</AllowedMethods><AllowedHeaders>x-ms-meta-*</AllowedHeaders><ExposedHeaders>x-ms-meta-*</ExposedHeaders><MaxAgeInSeconds>60</MaxAgeInSeconds></CorsRule>`;
const corsOrigins = (p: QueueServiceProperties) => (p.cors ?? []).map((c) => c.allowedOrigins);

/** The service-properties XML `original` with one more CORS rule, every other setting kept. */
function withCorsRule(original: string, origin: string): string {
  const rule = corsRule(origin);
  if (/<Cors\s*\/>/.test(original)) return original.replace(/<Cors\s*\/>/, `<Cors>${rule}</Cors>`);
  if (/<\/Cors>/.test(original)) return original.replace(/<\/Cors>/, `${rule}</Cors>`);
  return original.replace(/<\/StorageServiceProperties>/, `<Cors>${rule}</Cors></StorageServiceProperties>`);
}

const SERVICE_PROPERTIES = { method: "", path: "/", query: { restype: "service", comp: "properties" } };

/** A CORS rule of this row's (its origin names the run; never used by a browser), as the SDK writes it. */
const sdkCorsRule = (allowedOrigins: string) => ({
  allowedOrigins,
  allowedMethods: "GET",
  allowedHeaders: "x-ms-meta-*",
  exposedHeaders: "x-ms-meta-*",
  maxAgeInSeconds: 60,
});

/** Account-wide state: read first (the exact original is restored), with room for this row's two rules. */
async function originalServiceProperties(t: RowContext): Promise<string> {
  const original = await t.raw("queue", { ...SERVICE_PROPERTIES, method: "GET" });
  if (original.status === 403)
    preconditionFailed("the credentials may not read the queue service properties (an account key or an account SAS with srt=s is needed)");
  expectRawStatus("Get Queue Service Properties", original, { status: 200 });
  const existing = (original.body.match(/<CorsRule>/g) ?? []).length;
  if (existing >= 4) preconditionFailed(`the account already has ${existing} queue CORS rules; this row adds up to 2 of the 5 allowed`);
  return original.body;
}

/** Writers A and B from the same starting point, B's rule read back alone; then a stale If-Match, not evaluated. */
async function twoWritersThenStale(t: RowContext, original: string, marker: string): Promise<void> {
  const origin = (w: string) => `https://${marker}-${w}.invalid`;
  const a = t.queue;
  const b = t.clients.queue();
  const base = await a.getProperties();
  t.step("writer A");
  await a.setProperties({ ...base, cors: [...(base.cors ?? []), sdkCorsRule(origin("a"))] });
  t.step("writer B (another client), from the same starting point");
  await b.setProperties({ ...base, cors: [...(base.cors ?? []), sdkCorsRule(origin("b"))] });
  // This row's rules, by writer label (the origins carry the run's names).
  const ours = (p: QueueServiceProperties) =>
    corsOrigins(p)
      .filter((o) => o.includes(marker))
      .map((o) => o.slice(`https://${marker}-`.length, -".invalid".length));
  // Live accounts may take up to 30 s to show a new setting.
  const settle = { timeoutMs: t.target.kind === "live" ? 30_000 : 5_000, intervalMs: 500 };
  const seen = await t.waitFor(
    "writer B's setting read back",
    async () => {
      const o = ours(await a.getProperties());
      return o.includes("b") ? o : undefined;
    },
    settle,
  );
  expectEqual("this row's CORS rules after both writes", seen, ["b"]);
  const outcome = await withStaleIfMatch(t, "Set Queue Service Properties", {
    ...SERVICE_PROPERTIES,
    method: "PUT",
    headers: { "content-type": "application/xml" },
    body: withCorsRule(original, origin("raw")),
  });
  if (outcome === "ignored") {
    const after = await t.waitFor(
      "the raw write read back",
      async () => (ours(await a.getProperties()).includes("raw") ? true : undefined),
      settle,
    );
    expectTrue("the raw write read back", after);
  } else expectEqual("this row's CORS rules after the refused write", ours(await a.getProperties()), ["b"]);
}

async function restoreServiceProperties(t: RowContext, original: string, judged: boolean): Promise<void> {
  t.step("restore the original service properties");
  const restored = await t.raw("queue", {
    ...SERVICE_PROPERTIES,
    method: "PUT",
    headers: { "content-type": "application/xml" },
    body: original,
  });
  if (judged) expectRawStatus("restoring the original service properties", restored, { status: 202 });
  t.note("restored", restored.status === 202);
}

const rows: RowDef[] = [
  {
    id: "queue/queue-metadata/last-writer-wins",
    matrix: queueCell("metadata-last-writer-wins"),
    title: "Set Queue Metadata: two unconditional writers, the last one's value is read; a stale If-Match is not evaluated",
    level: "doc",
    source: queueSource("Set Queue Metadata; seed: last writer wins for SetQueueMetaData"),
    service: "queue",
    async run(t) {
      const a = await t.newQueue();
      const b = otherClient(t, a);
      t.step("writer A");
      await a.setMetadata({ writer: "a", a: "only" });
      t.step("writer B (another client)");
      await b.setMetadata({ writer: "b" });
      expectEqual("metadata read by A after both writes", (await a.getProperties()).metadata, { writer: "b" });
      const outcome = await withStaleIfMatch(t, "Set Queue Metadata", {
        method: "PUT",
        path: `/${a.name}`,
        query: { comp: "metadata" },
        headers: { "x-ms-meta-writer": "raw" },
      });
      expectEqual(`metadata after Set Queue Metadata with a stale If-Match (${outcome})`, (await b.getProperties()).metadata, {
        writer: outcome === "ignored" ? "raw" : "b",
      });
    },
  },
  {
    id: "queue/queue-acl/last-writer-wins",
    matrix: queueCell("acl-last-writer-wins"),
    title: "Set Queue ACL: two unconditional writers, the last one's policy is read; a stale If-Match is not evaluated",
    level: "doc",
    source: queueSource("Set Queue ACL; seed: last writer wins for SetQueueACL"),
    service: "queue",
    async run(t) {
      const a = await t.newQueue();
      const b = otherClient(t, a);
      t.step("writer A");
      await a.setAccessPolicy([{ id: "writer-a", accessPolicy: { permissions: "r" } }]);
      t.step("writer B (another client)");
      await b.setAccessPolicy([{ id: "writer-b", accessPolicy: { permissions: "a" } }]);
      expectEqual("ACL read by A after both writes", await aclIds(a), ["writer-b"]);
      const outcome = await withStaleIfMatch(t, "Set Queue ACL", {
        method: "PUT",
        path: `/${a.name}`,
        query: { comp: "acl" },
        headers: { "content-type": "application/xml" },
        body: `<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers><SignedIdentifier><Id>writer-raw</Id><AccessPolicy><Permission>p</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>`,
      });
      expectEqual(`ACL after Set Queue ACL with a stale If-Match (${outcome})`, await aclIds(b), [
        outcome === "ignored" ? "writer-raw" : "writer-b",
      ]);
    },
  },
  {
    id: "queue/service-properties/last-writer-wins",
    matrix: queueCell("service-properties-last-writer-wins"),
    title:
      "Set Queue Service Properties: two unconditional writers, the last one's value is read; a stale If-Match is not evaluated (account-wide: restored)",
    level: "doc",
    source: queueSource("Set Queue Service Properties; seed: last writer wins for SetQueueServiceProperties"),
    service: "queue",
    // Live accounts may take up to 30 s to show a new setting.
    timeoutMs: 120_000,
    run: (t) =>
      serialised(async () => {
        const original = await originalServiceProperties(t);
        let failure: unknown;
        try {
          await twoWritersThenStale(t, original, t.name("q"));
        } catch (err) {
          failure = err;
        } finally {
          await restoreServiceProperties(t, original, !failure);
        }
        if (failure) throw failure;
      }),
  },
];

defineTable({ table: "Q Queue settings (last writer wins)", service: "queue" }, rows);
