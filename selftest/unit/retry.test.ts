// The retry policy's rules (fixtures/wire/retry.ts), without a target: what is
// retried, how long it waits, and which retried tries may have been applied.
import { assert } from "chai";
import { createEmptyPipeline, createHttpHeaders, createPipelineRequest, type PipelineResponse } from "@azure/core-rest-pipeline";
import { recordingHttpClient, withEvidence, type EvidenceStore, type Exchange } from "../../fixtures/wire/evidence.ts";
import {
  ambiguousRetry,
  changesState,
  conformanceRetryPolicy,
  delayBefore,
  MAX_RETRY_AFTER_MS,
  mayHaveApplied,
  retryAfterMs,
} from "../../fixtures/wire/retry.ts";

const ex = (p: Partial<Exchange>): Exchange => ({
  seq: 1,
  via: "sdk",
  method: "GET",
  url: "/c/b",
  requestHeaders: {},
  responseHeaders: {},
  ms: 1,
  ...p,
});

/** Sends one request through the policy to a transport answering `statuses` in turn (500.1: a 500 FeatureNotSupported); returns the recorded exchanges and the pauses asked for. */
async function tries(statuses: (number | string)[], maxTries = 3, method = "PUT") {
  const store: EvidenceStore = { exchanges: [], seq: 0, secrets: [], pause: async (ms) => void pauses.push(ms) };
  const pauses: number[] = [];
  let i = 0;
  const transport = recordingHttpClient(1000, {
    async sendRequest(request): Promise<PipelineResponse> {
      const s = statuses[Math.min(i++, statuses.length - 1)];
      if (typeof s === "string") throw Object.assign(new Error(s), { name: "RestError", code: s, request });
      const headers: Record<string, string> =
        s === 503 ? { "retry-after": "1" } : s === 500.1 ? { "x-ms-error-code": "FeatureNotSupported" } : {};
      return { request, status: Math.floor(s), headers: createHttpHeaders(headers), bodyAsText: "" };
    },
  });
  const pipeline = createEmptyPipeline();
  pipeline.addPolicy(conformanceRetryPolicy({ maxTries }), { phase: "Retry" });
  const outcome = await withEvidence(store, () =>
    pipeline.sendRequest(transport, createPipelineRequest({ url: "http://127.0.0.1:1/c/b", method: method as "PUT" })).then(
      (r) => r.status,
      (e: { code?: string }) => e.code,
    ),
  );
  return { outcome, exchanges: store.exchanges, pauses };
}

describe("retry policy", function () {
  it("retries 503, 500, 502, 504, 408 and resets; the evidence has every try, superseded ones marked retried", async function () {
    const { outcome, exchanges } = await tries([503, 500, 201]);
    assert.equal(outcome, 201);
    assert.deepEqual(
      exchanges.map((e) => [e.status, e.try, e.retried]),
      [
        [503, undefined, true],
        [500, 2, true],
        [201, 3, undefined],
      ],
    );
    assert.equal((await tries([408, 200])).outcome, 200);
    assert.equal((await tries(["ECONNRESET", 200])).outcome, 200);
    for (const s of [502, 504]) assert.equal((await tries([s, 200])).outcome, 200, `a gateway's ${s}`);
  });

  it("leaves other answers alone: a 412, a 404, a 505, an abort the caller asked for", async function () {
    for (const s of [412, 404, 505]) assert.equal((await tries([s, 200])).exchanges.length, 1, String(s));
    const aborted = await tries(["ABORT_ERR", 200]);
    assert.equal(aborted.outcome, "ABORT_ERR");
    assert.equal(aborted.exchanges.length, 1);
  });

  it("never retries an answer that the operation is not implemented: a 501, Azurite's 500 FeatureNotSupported", async function () {
    const notImplemented = await tries([501, 200]);
    assert.equal(notImplemented.outcome, 501);
    assert.equal(notImplemented.exchanges.length, 1);
    const feature = await tries([500.1, 200]);
    assert.equal(feature.outcome, 500);
    assert.equal(feature.exchanges.length, 1);
  });

  it("stops after --max-tries, the last answer standing", async function () {
    const { outcome, exchanges } = await tries([503], 3);
    assert.equal(outcome, 503);
    assert.equal(exchanges.length, 3);
    assert.isUndefined(exchanges[2].retried, "the last try is not superseded: the request went unanswered");
  });

  it("waits Retry-After (capped), else an exponential backoff with jitter", async function () {
    assert.deepEqual((await tries([503, 200])).pauses, [1000]);
    assert.equal(retryAfterMs("2"), 2000);
    assert.equal(retryAfterMs("600"), MAX_RETRY_AFTER_MS);
    assert.isUndefined(retryAfterMs("soon"));
    const headers = createHttpHeaders();
    const none = { headers } as PipelineResponse;
    for (let n = 0; n < 20; n++) {
      const d2 = delayBefore(2, none);
      const d4 = delayBefore(4, none);
      assert.isTrue(d2 >= 100 && d2 <= 300, `before try 2: ${d2}`);
      assert.isTrue(d4 >= 400 && d4 <= 1200, `before try 4: ${d4}`);
      assert.isAtMost(delayBefore(10, none), 2000);
    }
  });

  it("a retried write may have been applied after a 500, a 408 or a reset, not after a 503 or a refused connection", function () {
    assert.isTrue(mayHaveApplied(ex({ status: 500 })));
    assert.isTrue(mayHaveApplied(ex({ status: 408 })));
    assert.isTrue(mayHaveApplied(ex({ transportError: "ECONNRESET: socket hang up" })));
    assert.isFalse(mayHaveApplied(ex({ status: 503 })));
    assert.isFalse(mayHaveApplied(ex({ transportError: "ECONNREFUSED: connect" })));
    assert.isTrue(changesState(ex({ method: "PUT" })));
    assert.isTrue(changesState(ex({ method: "GET", url: "/q/messages?numofmessages=1" })), "Get Messages dequeues");
    assert.isFalse(changesState(ex({ method: "GET", url: "/q/messages?peekonly=true" })));
    assert.isFalse(changesState(ex({ method: "HEAD", url: "/c/b" })));
    assert.isUndefined(
      ambiguousRetry([ex({ method: "GET", status: 500, retried: true }), ex({ method: "PUT", status: 503, retried: true })]),
    );
    assert.equal(ambiguousRetry([ex({ method: "PUT", status: 500, retried: true })])?.status, 500);
  });
});
