// Legal variations of the rows beyond the article (catalogue, section X) fail
// nothing: through the proxy the target takes the other documented
// alternative (a Seal that keeps the ETag and Last-Modified, a Copy Blob From
// URL refusing a destination condition with TargetConditionNotMet, a Find
// Blobs by Tags index a few seconds behind), and every row it touches keeps
// its PASS, recording the alternative it met.
import { expect } from "chai";
import { runHeadless } from "../fixtures/headless.ts";
import type { RowResult } from "../model/result.ts";
import { sharedAzurite } from "./azurite-fixture.ts";
import { operation, query, type Mutant, type ProxyRequest } from "./mutants/types.ts";
import { startProxy } from "./proxy.ts";

const pathOf = (req: ProxyRequest) => new URL(req.url, "http://x").pathname;

interface Variation {
  variation: Mutant;
  rows: RegExp;
  /** What each row must record of the alternative it met. */
  notes: Record<string, (notes: Record<string, unknown>) => boolean>;
}

const VARIATIONS: Variation[] = [
  {
    // The Append Blob Seal page: the seal leaves ETag and Last-Modified alone. Every later answer about the blob shows the validators it had before.
    variation: {
      name: "seal-keeps-validators",
      description: "Append Blob Seal keeps the blob's ETag and Last-Modified (every later answer shows the ones before the seal)",
      kills: [],
      onResponse(req, res, state) {
        const key = pathOf(req);
        const kept = state.get(key) as { from: string; etag: string; lastModified: string } | undefined;
        if (operation(req) === "Append Blob Seal" && res.status === 200) {
          const before = state.get(`last:${key}`) as { etag: string; lastModified: string } | undefined;
          if (before) {
            state.set(key, { from: res.headers["etag"], ...before });
            Object.assign(res.headers, { etag: before.etag, "last-modified": before.lastModified });
          }
          return;
        }
        if (kept && res.headers["etag"] === kept.from) Object.assign(res.headers, { etag: kept.etag, "last-modified": kept.lastModified });
        if (res.headers["etag"] && res.headers["last-modified"] && !query(req).get("comp")) state.set(`last:${key}`, { etag: res.headers["etag"], lastModified: res.headers["last-modified"] });
      },
    },
    rows: /^blob\/append\/seal\/etag$/,
    notes: { "blob/append/seal/etag": (n) => n["seal"] === "ETag and Last-Modified unchanged" },
  },
  {
    // X-U (D): a destination condition refused with TargetConditionNotMet, as Copy Blob answers it.
    variation: {
      name: "copy-from-url-target-code",
      description: "Copy Blob From URL refuses a failing destination condition with 412 TargetConditionNotMet",
      kills: [],
      onResponse(req, res) {
        if (operation(req) === "Copy Blob From URL" && res.status === 412 && res.headers["x-ms-error-code"] === "ConditionNotMet" && !Object.keys(req.headers).some((h) => h.startsWith("x-ms-source-if-"))) {
          res.headers["x-ms-error-code"] = "TargetConditionNotMet";
          res.body = Buffer.from(res.body.toString("utf8").replace("<Code>ConditionNotMet<", "<Code>TargetConditionNotMet<"));
        }
      },
    },
    rows: /^blob\/from-url\/copy-blob\/destination-/,
    notes: Object.fromEntries(["if-match", "if-none-match", "if-modified-since", "if-unmodified-since"].map((h) => [`blob/from-url/copy-blob/destination-${h}`, (n: Record<string, unknown>) => n["refusal"] === "412 TargetConditionNotMet"])),
  },
  {
    // Find Blobs by Tags is eventually consistent: for 3 s after Set Blob Tags it answers from the old index.
    variation: {
      name: "find-blobs-by-tags-lags",
      description: "Find Blobs by Tags answers from the index as it was before each Set Blob Tags, for 3 s",
      kills: [],
      onRequest(req, state) {
        if (operation(req) === "Set Blob Tags") state.set("tagged", Date.now());
        if (operation(req) !== "Find Blobs by Tags" || Date.now() - ((state.get("tagged") as number) ?? 0) > 3000) return;
        const u = new URL(req.url, "http://x");
        const where = u.searchParams.get("where") ?? "";
        u.searchParams.set("where", where.includes("-new'") ? where.replace("-new'", "-old'") : where.replace("-old'", "-new'"));
        req.url = u.pathname + u.search;
      },
    },
    rows: /^blob\/tags\/find-blobs-by-tags\/eventual$/,
    notes: { "blob/tags/find-blobs-by-tags/eventual": (n) => typeof n["lag (server clock, s)"] === "number" && (n["lag (server clock, s)"] as number) >= 2 },
  },
];

describe("legal variations beyond the article fail nothing", function () {
  for (const v of VARIATIONS) {
    it(`${v.variation.description}: every row it touches passes and records it`, async function () {
      const a = await sharedAzurite();
      const proxy = await startProxy({ upstream: a.ports, mutant: v.variation });
      let results: RowResult[];
      try {
        results = (await runHeadless({ connectionString: proxy.connectionString, select: (id) => v.rows.test(id), expectations: "azurite" })).results;
      } finally {
        await proxy.stop();
      }
      expect(proxy.stats.mutatedResponses + proxy.stats.mutatedRequests, "answers the variation changed").to.be.greaterThan(0);
      expect(results.map((r) => r.id).sort()).to.deep.equal(Object.keys(v.notes).sort());
      const wrong = results.filter((r) => r.status !== "PASS" || !v.notes[r.id](r.notes)).map((r) => `${r.id}: ${r.status} ${r.message ?? ""} ${JSON.stringify(r.notes)}`);
      expect(wrong, wrong.join("\n")).to.deep.equal([]);
    });
  }
});
