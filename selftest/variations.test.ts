// Legal variations fail nothing: through the proxy the target takes the other
// documented alternative (an acquire over an expired lease granted only after a
// few seconds, a disputed queue or sequence-number request answered the other
// way) or, beyond the article (catalogue, section X), the other alternative (a Seal that keeps the ETag and Last-Modified, a Copy Blob From
// URL refusing a destination condition with TargetConditionNotMet, a Find
// Blobs by Tags index a few seconds behind), and every row it touches keeps
// its PASS, recording the alternative it met.
import { expect } from "chai";
import { runHeadless } from "./headless.ts";
import type { RowResult } from "../model/result.ts";
import { sharedAzurite } from "./azurite-fixture.ts";
import { operation, query, type Mutant, type ProxyRequest } from "./mutants/types.ts";
import { startProxy } from "./proxy.ts";
import { errorResponse } from "./mutants/blob-kit.ts";
import { action, isLease, keyOf, track, tracked } from "./mutants/lease-kit.ts";
import { endsAfterExpiry, refusal, rememberExpiry } from "./mutants/queue-lifetime.ts";

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
        if (res.headers["etag"] && res.headers["last-modified"] && !query(req).get("comp"))
          state.set(`last:${key}`, { etag: res.headers["etag"], lastModified: res.headers["last-modified"] });
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
        if (
          operation(req) === "Copy Blob From URL" &&
          res.status === 412 &&
          res.headers["x-ms-error-code"] === "ConditionNotMet" &&
          !Object.keys(req.headers).some((h) => h.startsWith("x-ms-source-if-"))
        ) {
          res.headers["x-ms-error-code"] = "TargetConditionNotMet";
          res.body = Buffer.from(res.body.toString("utf8").replace("<Code>ConditionNotMet<", "<Code>TargetConditionNotMet<"));
        }
      },
    },
    rows: /^blob\/from-url\/copy-blob\/destination-/,
    notes: Object.fromEntries(
      ["if-match", "if-none-match", "if-modified-since", "if-unmodified-since"].map((h) => [
        `blob/from-url/copy-blob/destination-${h}`,
        (n: Record<string, unknown>) => n["refusal"] === "412 TargetConditionNotMet",
      ]),
    ),
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
    notes: {
      "blob/tags/find-blobs-by-tags/eventual": (n) =>
        typeof n["lag (server clock, s)"] === "number" && (n["lag (server clock, s)"] as number) >= 2,
    },
  },
  {
    // Q, disputed: the Update Message page's refusal of a visibility timeout ending after the expiry (Azurite accepts it).
    variation: {
      name: "queue-update-beyond-expiry-refused",
      description:
        "Update Message whose visibility timeout would end after the message's ExpirationTime is refused with 400 InvalidQueryParameterValue and not applied",
      kills: [],
      onRequest(req, state) {
        if (operation(req) === "Update Message" && endsAfterExpiry(req, state)) return refusal(req);
      },
      onResponse(req, res, state) {
        if (operation(req) === "Put Message") rememberExpiry(res, state);
      },
    },
    rows: /^queue\/update-message\/visibility-beyond-expiry$/,
    notes: { "queue/update-message/visibility-beyond-expiry": (n) => n["disputed"] === "refused: 400 InvalidQueryParameterValue" },
  },
  {
    // Q, disputed: Put Message accepts a visibility timeout longer than the time to live, and the message expires while invisible.
    variation: {
      name: "queue-put-beyond-ttl-accepted",
      description:
        "Put Message with a visibility timeout greater than its time to live is accepted (201, the TimeNextVisible asked) and the message expires unseen",
      kills: [],
      onRequest(req, state) {
        if (operation(req) !== "Put Message") return;
        const u = new URL(req.url, "http://x");
        const [visibility, ttl] = [
          Number(u.searchParams.get("visibilitytimeout") ?? 0),
          Number(u.searchParams.get("messagettl") ?? Infinity),
        ];
        if (!(ttl > 1 && visibility >= ttl)) return;
        // Hidden for all but its last second (Azurite refuses a timeout that reaches the expiry); the answer states the timeout asked.
        u.searchParams.set("visibilitytimeout", String(ttl - 1));
        req.url = u.pathname + u.search;
        state.set(`asked ${req.url}`, visibility - (ttl - 1));
      },
      onResponse(req, res, state) {
        const later = state.get(`asked ${req.url}`) as number | undefined;
        if (later === undefined || res.status !== 201) return;
        res.body = Buffer.from(
          res.body
            .toString("utf8")
            .replace(
              /<TimeNextVisible>([^<]*)<\/TimeNextVisible>/,
              (_, v: string) => `<TimeNextVisible>${new Date(Date.parse(v) + later * 1000).toUTCString()}</TimeNextVisible>`,
            ),
        );
      },
    },
    rows: /^queue\/put-message\/visibility-below-ttl$/,
    notes: { "queue/put-message/visibility-below-ttl": (n) => n["disputed"] === "accepted (201): the message expires while invisible" },
  },
  {
    // X-S, disputed: update or max without a number is accepted and changes nothing (the page's remarks).
    variation: {
      name: "seq-action-without-number-ignored",
      description: "Set Blob Properties, update or max without x-ms-blob-sequence-number answers 200 and leaves the number as it was",
      kills: [],
      onRequest(req) {
        const action = req.headers["x-ms-sequence-number-action"];
        if (
          operation(req) !== "Set Blob Properties" ||
          !["update", "max"].includes(action ?? "") ||
          req.headers["x-ms-blob-sequence-number"] !== undefined
        )
          return;
        return {
          status: 200,
          headers: { "x-ms-version": req.headers["x-ms-version"] ?? "", date: new Date().toUTCString() },
          body: Buffer.alloc(0),
        };
      },
    },
    rows: /^blob\/page-sequence\/action\/(update|max)-without-number$/,
    notes: Object.fromEntries(
      ["update", "max"].map((a) => [
        `blob/page-sequence/action/${a}-without-number`,
        (n: Record<string, unknown>) => n["disputed"] === "accepted (200), the number unchanged",
      ]),
    ),
  },
  {
    // L: "a client may need to wait up to one minute before a new lease can be acquired" after an expiry.
    variation: {
      name: "lease-reacquire-after-expiry-delayed",
      description:
        "An acquire over an expired lease is refused with 409 LeaseAlreadyPresent for the first 5 s after the expiry, then granted",
      kills: [],
      onRequest(req, state) {
        if (!isLease(req) || action(req) !== "acquire" || tracked(req, state).state !== "expired") return;
        const key = `refused since ${keyOf(req)}`;
        const since = (state.get(key) as number | undefined) ?? Date.now();
        state.set(key, since);
        if (Date.now() - since < 5000) return errorResponse(req, 409, "LeaseAlreadyPresent");
      },
      onResponse: (req, res, state) => track(req, res, state),
    },
    rows: /^blob\/(container-)?lease\/state\/acquire(-same)?\/expired$/,
    notes: Object.fromEntries(
      ["blob/lease/state/", "blob/container-lease/state/"].flatMap((p) =>
        ["acquire", "acquire-same"].map((a) => [
          `${p}${a}/expired`,
          (n: Record<string, unknown>) =>
            Object.entries(n).some(([k, v]) => k.startsWith("granted after the expiry") && typeof v === "number" && v >= 4),
        ]),
      ),
    ),
  },
];

describe("legal variations fail nothing", function () {
  for (const v of VARIATIONS) {
    it(`${v.variation.description}: every row it touches passes and records it`, async function () {
      const a = await sharedAzurite();
      const proxy = await startProxy({ upstream: a.ports, mutant: v.variation });
      let results: RowResult[];
      try {
        results = (
          await runHeadless({ connectionString: proxy.connectionString, select: (id) => v.rows.test(id), expectations: "azurite" })
        ).results;
      } finally {
        await proxy.stop();
      }
      expect(proxy.stats.mutatedResponses + proxy.stats.mutatedRequests, "answers the variation changed").to.be.greaterThan(0);
      expect(results.map((r) => r.id).sort()).to.deep.equal(Object.keys(v.notes).sort());
      const wrong = results
        .filter((r) => r.status !== "PASS" || !v.notes[r.id](r.notes))
        .map((r) => `${r.id}: ${r.status} ${r.message ?? ""} ${JSON.stringify(r.notes)}`);
      expect(wrong, wrong.join("\n")).to.deep.equal([]);
    });
  }
});
