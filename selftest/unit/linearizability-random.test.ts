// The linearizability checker (fixtures/harness/linearizability.ts) on large
// random histories: blob and table-entity histories accepted within a step
// budget, an injected stale read found with its minimal failing window, a
// brute-force cross-check of the search, and the checker giving up. The
// hand-written histories are in linearizability-models.test.ts.
import { assert } from "chai";
import {
  blobModel,
  checkLinearizable,
  tableEntityModel,
  type BlobInput,
  type CheckResult,
  type EntityInput,
  type Model,
  type Operation,
  type RegisterOutput,
} from "../../fixtures/harness/linearizability.ts";

const T = Infinity; // never returned

function assertFails<I, O>(r: CheckResult<I, O>, message?: string): asserts r is Extract<CheckResult<I, O>, { ok: false }> {
  assert.strictEqual(r.ok, false, `${message ?? ""} ${JSON.stringify(r)}`);
}

type BlobOp = Operation<BlobInput, RegisterOutput>;

function rng(seed: number) {
  return () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** Operations on one blob by `clients` clients, simulated sequentially at
 * linearization points 10 apart, each given an interval around its point. */
function randomBlobHistory(seed: number, n: number, clients = 6, timeouts = 0.02, table = false) {
  const rand = rng(seed);
  const pick = <X>(xs: X[]) => xs[Math.floor(rand() * xs.length)];
  let blob: { etag: string; value: string } | null = null;
  let nextTag = 0;
  const busy = new Array<number>(clients).fill(-Infinity);
  const lastEtag = new Array<string>(clients).fill("*");
  const history: BlobOp[] = [];
  const versions: { etag: string; value: string; createdAt: number }[] = [];
  for (let i = 0; history.length < n; i++) {
    const p = 10 * i;
    const call = p - Math.floor(rand() * 25);
    const free = busy.map((b, c) => (b < call ? c : -1)).filter((c) => c >= 0);
    if (free.length === 0) continue;
    const c = pick(free);
    const timedOut = rand() < timeouts;
    const ret = timedOut ? T : p + 1 + Math.floor(rand() * 25);
    busy[c] = timedOut ? p + 30 : ret;
    const applies = !timedOut || rand() < 0.5;
    const fresh = (value: string): RegisterOutput => {
      blob = { etag: `"0x${(nextTag++).toString(16)}"`, value };
      versions.push({ ...blob, createdAt: p });
      return { status: 201, etag: blob.etag };
    };
    const value = `v${i}`;
    let kind = pick(["read", "read", "read", "ifMatch", "ifMatch", "write", "create", "delete", "deleteIfMatch"]);
    if (table && kind === "delete") kind = "deleteIfMatch"; // Delete Entity always has If-Match
    let input: BlobInput;
    let output: RegisterOutput | undefined;
    const cur = blob as { etag: string; value: string } | null;
    if (kind === "read") {
      input = { op: "read" };
      output = cur ? { status: 200, ...cur } : { status: 404 };
      if (cur) lastEtag[c] = cur.etag;
    } else if (kind === "ifMatch" || kind === "deleteIfMatch") {
      const etag = table && kind === "deleteIfMatch" && rand() < 0.3 ? "*" : rand() < 0.8 ? lastEtag[c] : (cur?.etag ?? "*");
      input = kind === "ifMatch" ? { op: "writeIfMatch", etag, value } : { op: "deleteIfMatch", etag };
      const holds = cur !== null && (etag === "*" || etag === cur.etag);
      if (!applies) output = undefined;
      else if (!holds) output = { status: !cur && (table || kind === "deleteIfMatch") ? 404 : 412 };
      else if (kind === "ifMatch") output = fresh(value);
      else ((blob = null), (output = { status: 202 }));
    } else if (kind === "write") {
      input = { op: "write", value };
      output = applies ? fresh(value) : undefined;
    } else if (kind === "create") {
      input = { op: "create", value };
      output = !applies ? undefined : cur ? { status: 409 } : fresh(value);
    } else {
      input = { op: "delete" };
      output = !applies ? undefined : cur ? ((blob = null), { status: 202 }) : { status: 404 };
    }
    if (output?.etag) lastEtag[c] = output.etag;
    history.push({ client: c, call, ret, input, output: timedOut ? undefined : output });
  }
  return { history, versions };
}

/** Brute force: some order of a subset (all that returned, any that did not)
 * respecting real time is accepted by the model step by step. */
function bruteForce<S, I, O>(model: Model<S, I, O>, h: Operation<I, O>[]): boolean {
  const go = (done: Set<number>, state: S): boolean => {
    if (h.every((o, i) => done.has(i) || o.ret === T)) return true;
    return h.some((o, i) => {
      if (done.has(i) || h.some((p, j) => !done.has(j) && j !== i && p.ret < o.call)) return false;
      const r = model.step(state, o.input, o.ret === T ? undefined : o.output);
      return r.ok && go(new Set([...done, i]), r.state);
    });
  };
  return go(new Set(), model.init());
}

/** `history` with one read late in it answering a version long overwritten. */
function injectStaleRead(seed: number, n: number, timeouts: number) {
  const { history, versions } = randomBlobHistory(seed, n, 6, timeouts);
  const at = history.findIndex((o, i) => i > 0.8 * n && o.input.op === "read" && o.output?.status === 200);
  const old = versions.find((v) => v.createdAt < history[at].call - 1000 && v.etag !== history[at].output!.etag)!;
  const bad = history.map((o, i) => (i === at ? { ...o, output: { status: 200, etag: old.etag, value: old.value } } : o));
  return { bad, victim: bad[at] };
}

// The checker's cost is bounded in search steps, which no machine's load changes
// (about 10^6 steps a second here); how long a check takes is the bench's business.
const NO_TIME_LIMIT = { timeoutMs: Number.POSITIVE_INFINITY };

describe("linearizability: random histories", function () {
  it("a 2,000-operation linearizable blob history (6 clients, 2% timeouts) is accepted within 200,000 steps", function () {
    const { history } = randomBlobHistory(1, 2000);
    assert.deepEqual(checkLinearizable(blobModel, history, { ...NO_TIME_LIMIT, maxSteps: 200_000 }), { ok: true });
  });

  it("a 1,000-operation linearizable table entity history is accepted", function () {
    const asEntity = (i: BlobInput): EntityInput =>
      i.op === "writeIfMatch"
        ? { op: "update", etag: i.etag, value: i.value }
        : i.op === "deleteIfMatch"
          ? { op: "delete", etag: i.etag }
          : i.op === "create"
            ? { op: "insert", value: i.value }
            : i.op === "write"
              ? { op: "upsert", value: i.value }
              : { op: "read" };
    const { history } = randomBlobHistory(2, 1000, 5, 0.02, true);
    assert.deepEqual(
      checkLinearizable(
        tableEntityModel,
        history.map((o) => ({ ...o, input: asEntity(o.input) })),
      ),
      { ok: true },
    );
  });

  it("one injected stale read in 1,000 operations: found within 100,000 steps, and shown as a window of at most 8 that fails on its own", function () {
    for (const seed of [7, 8, 9]) {
      const { bad, victim } = injectStaleRead(seed, 1000, 0);
      const r = checkLinearizable(blobModel, bad, { ...NO_TIME_LIMIT, maxSteps: 100_000 });
      assertFails(r);
      assert.include(r.window, victim);
      assert.isAtMost(r.window.length, 8, r.explanation);
      assertFails(checkLinearizable(blobModel, r.window, { explain: false }), "the window alone");
    }
  });

  it("the same with 1% timed-out operations (within the default 2,000,000 steps): the window keeps only the timeouts that could have mattered", function () {
    for (const seed of [7, 8, 9]) {
      const { bad, victim } = injectStaleRead(seed, 1000, 0.01);
      const r = checkLinearizable(blobModel, bad, { ...NO_TIME_LIMIT, maxSteps: 2_000_000 });
      assertFails(r);
      assert.include(r.window, victim);
      assert.isAtMost(r.window.length, 16, r.explanation);
      assertFails(checkLinearizable(blobModel, r.window, { explain: false }), "the window alone");
    }
  });

  it("agrees with a brute-force search on 300 small random histories, mutated or not", function () {
    const rand = rng(42);
    let failing = 0;
    for (let k = 0; k < 300; k++) {
      const { history } = randomBlobHistory(1000 + k, 6, 3, 0.15);
      const h = history.map((o) => {
        if (rand() > 0.15 || !o.output) return o;
        const etag = rand() < 0.5 ? o.output.etag : `"0x${Math.floor(rand() * 4).toString(16)}"`;
        return { ...o, output: { ...o.output, status: rand() < 0.3 ? 412 : o.output.status, etag } };
      });
      const r = checkLinearizable(blobModel, h);
      assert.strictEqual(r.ok, bruteForce(blobModel, h), JSON.stringify(h));
      if (r.ok === false) {
        failing++;
        assert.strictEqual(bruteForce(blobModel, r.window), false, "the window fails on its own");
      }
    }
    assert.isAbove(failing, 30);
  });

  it("gives up with 'unknown' when the step budget or the time runs out", function () {
    const { history } = randomBlobHistory(5, 500);
    assert.deepEqual(checkLinearizable(blobModel, history, { maxSteps: 100 }), { ok: "unknown", reason: "step budget exhausted" });
    assert.deepEqual(checkLinearizable(blobModel, history, { timeoutMs: -1 }), { ok: "unknown", reason: "time limit reached" });
  });
});
