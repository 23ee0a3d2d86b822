// The linearizability checker (fixtures/harness/linearizability.ts) on
// hand-written histories: textbook register and queue histories,
// compare-and-set, the blob and table-entity models with server-chosen ETags,
// and timed-out operations. Random histories are in
// linearizability-random.test.ts.
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

const op = <I, O>(client: number, call: number, ret: number, input: I, output?: O): Operation<I, O> => ({
  client,
  call,
  ret,
  input,
  output,
});
const T = Infinity; // never returned

function assertFails<I, O>(r: CheckResult<I, O>, message?: string): asserts r is Extract<CheckResult<I, O>, { ok: false }> {
  assert.strictEqual(r.ok, false, `${message ?? ""} ${JSON.stringify(r)}`);
}

// Porcupine's README register (initially 0); null after a ghost: any value.
type RegIn = { op: "put"; value: number } | { op: "get" } | { op: "ghost" };
const register: Model<number | null, RegIn, number> = {
  init: () => 0,
  step: (s, i, o) =>
    i.op === "put"
      ? { ok: true, state: i.value }
      : i.op === "ghost"
        ? { ok: true, state: null }
        : { ok: o !== undefined && (s === null || s === o), state: o ?? s },
  ghost: (i) => (i.op === "get" ? undefined : { op: "ghost" }),
};

// Knossos' cas-register: read, write, cas(from, to) → true/false.
type CasIn = { op: "read" } | { op: "write"; value: number } | { op: "cas"; from: number; to: number };
const casRegister: Model<number, CasIn, number | boolean> = {
  init: () => 0,
  step: (s, i, o) =>
    i.op === "write"
      ? { ok: true, state: i.value }
      : i.op === "read"
        ? { ok: o === s, state: s }
        : o === true || o === undefined
          ? { ok: s === i.from, state: i.to }
          : { ok: s !== i.from, state: s },
};

// A FIFO queue (Herlihy & Wing's running example).
type QIn = { op: "enq"; value: string } | { op: "deq" };
const queue: Model<readonly string[], QIn, string | null> = {
  init: () => [],
  step: (s, i, o) =>
    i.op === "enq"
      ? { ok: true, state: [...s, i.value] }
      : s.length === 0
        ? { ok: o === null, state: s }
        : { ok: o === s[0], state: s.slice(1) },
};

type BlobOp = Operation<BlobInput, RegisterOutput>;
const read = (c: number, call: number, ret: number, output?: RegisterOutput): BlobOp => op(c, call, ret, { op: "read" }, output);
const write = (c: number, call: number, ret: number, value: string, output?: RegisterOutput): BlobOp =>
  op(c, call, ret, { op: "write", value }, output);
const ifMatch = (c: number, call: number, ret: number, etag: string, value: string, output?: RegisterOutput): BlobOp =>
  op(c, call, ret, { op: "writeIfMatch", etag, value }, output);
const create = (c: number, call: number, ret: number, value: string, output?: RegisterOutput): BlobOp =>
  op(c, call, ret, { op: "create", value }, output);
const del = (c: number, call: number, ret: number, output?: RegisterOutput): BlobOp => op(c, call, ret, { op: "delete" }, output);
const delIfMatch = (c: number, call: number, ret: number, etag: string, output?: RegisterOutput): BlobOp =>
  op(c, call, ret, { op: "deleteIfMatch", etag }, output);
const ok = (etag: string, value?: string, status = value === undefined ? 201 : 200): RegisterOutput => ({ status, etag, value });
const st = (status: number): RegisterOutput => ({ status });

describe("linearizability: classic examples", function () {
  it("Porcupine's README: put 100 concurrent with gets of 100 and 0 is linearizable", function () {
    const h = [
      op(0, 0, 100, { op: "put", value: 100 } as RegIn, 0),
      op(1, 25, 75, { op: "get" } as RegIn, 100),
      op(2, 30, 60, { op: "get" } as RegIn, 0),
    ];
    assert.deepEqual(checkLinearizable(register, h), { ok: true });
  });

  it("Porcupine's README: a get of 0 after a get of 200 has returned is not", function () {
    const h = [
      op(0, 0, 100, { op: "put", value: 200 } as RegIn, 0),
      op(1, 10, 30, { op: "get" } as RegIn, 200),
      op(2, 40, 90, { op: "get" } as RegIn, 0),
    ];
    const r = checkLinearizable(register, h);
    assertFails(r);
    assert.lengthOf(r.window, 3);
    assert.include(r.explanation, "t=90");
  });

  it("Herlihy & Wing's queue: overlapping enqueues may take either order; a dequeue that overtakes a completed enqueue may not", function () {
    const enq = (value: string) => ({ op: "enq", value }) as QIn;
    const deq = { op: "deq" } as QIn;
    const good = [op(0, 0, 2, enq("x"), null), op(1, 1, 3, enq("y"), null), op(0, 4, 5, deq, "y"), op(1, 4.5, 6, deq, "x")];
    assert.deepEqual(checkLinearizable(queue, good), { ok: true });
    const bad = [op(0, 0, 1, enq("x"), null), op(1, 2, 3, enq("y"), null), op(0, 4, 5, deq, "y")];
    assertFails(checkLinearizable(queue, bad));
    assertFails(checkLinearizable(queue, [op(0, 0, 1, deq, "x"), op(1, 2, 3, enq("x"), null)]));
  });

  it("compare-and-set: two cas from the same value cannot both succeed; a read after a successful cas sees it", function () {
    const w = op<CasIn, number | boolean>(0, 0, 1, { op: "write", value: 1 }, true);
    const cas = (c: number, call: number, ret: number, from: number, to: number, out: boolean) =>
      op<CasIn, number | boolean>(c, call, ret, { op: "cas", from, to }, out);
    const rd = (c: number, call: number, ret: number, v: number) => op<CasIn, number | boolean>(c, call, ret, { op: "read" }, v);
    assertFails(checkLinearizable(casRegister, [w, cas(1, 2, 5, 1, 2, true), cas(2, 3, 6, 1, 3, true)]));
    assert.deepEqual(checkLinearizable(casRegister, [w, cas(1, 2, 5, 1, 2, true), cas(2, 3, 6, 1, 3, false), rd(0, 7, 8, 2)]), {
      ok: true,
    });
    assertFails(checkLinearizable(casRegister, [w, cas(1, 2, 3, 1, 2, true), rd(2, 4, 5, 1)]));
    // A timed-out cas may have happened (the read of 2) or not (the cas of 1 → 3 afterwards).
    assert.deepEqual(checkLinearizable(casRegister, [w, cas(1, 2, T, 1, 2, false), rd(2, 4, 5, 2)]), { ok: true });
    assert.deepEqual(checkLinearizable(casRegister, [w, cas(1, 2, T, 1, 2, false), cas(2, 4, 5, 1, 3, true)]), { ok: true });
  });
});

describe("linearizability: blob model with ETags", function () {
  it("a sequential life cycle with every kind of operation is linearizable", function () {
    const h = [
      read(0, 0, 1, st(404)),
      ifMatch(0, 2, 3, "*", "a", st(412)), // If-Match on a missing blob: 412 ConditionNotMet
      create(0, 4, 5, "a", ok("E1")),
      create(1, 6, 7, "b", st(409)),
      read(1, 8, 9, ok("E1", "a")),
      ifMatch(1, 10, 11, "E1", "b", ok("E2")),
      ifMatch(0, 12, 13, "E1", "c", st(412)),
      write(0, 14, 15, "d", ok("E3")),
      delIfMatch(1, 16, 17, "E2", st(412)),
      delIfMatch(1, 18, 19, "E3", st(202)),
      del(0, 20, 21, st(404)),
      create(0, 22, 23, "e", ok("E4")),
      del(1, 24, 25, st(202)),
    ];
    assert.deepEqual(checkLinearizable(blobModel, h), { ok: true });
  });

  it("statuses the catalogue does not allow are rejected (If-Match on a missing blob → 404; If-None-Match:* on an existing one → 412)", function () {
    assertFails(checkLinearizable(blobModel, [ifMatch(0, 0, 1, "*", "a", st(404))]));
    assertFails(checkLinearizable(blobModel, [create(0, 0, 1, "a", ok("E1")), create(1, 2, 3, "b", st(412))]));
  });

  it("a stale If-Match that succeeded is not linearizable", function () {
    const h = [
      create(0, 0, 1, "v0", ok("E0")),
      read(1, 2, 3, ok("E0", "v0")),
      ifMatch(0, 4, 5, "E0", "v1", ok("E1")),
      ifMatch(1, 6, 7, "E0", "v2", ok("E2")),
    ];
    const r = checkLinearizable(blobModel, h);
    assertFails(r);
    assert.includeMembers(r.window, [h[2], h[3]]);
    assert.isAtMost(r.window.length, 3);
    assert.deepEqual(checkLinearizable(blobModel, [...h.slice(0, 3), ifMatch(1, 6, 7, "E0", "v2", st(412))]), { ok: true });
  });

  it("two concurrent If-Match writes with the same ETag cannot both succeed", function () {
    const base = create(0, 0, 1, "v0", ok("E0"));
    const a = ifMatch(1, 2, 6, "E0", "a", ok("Ea"));
    const r = checkLinearizable(blobModel, [base, a, ifMatch(2, 3, 7, "E0", "b", ok("Eb"))]);
    assertFails(r);
    assert.includeMembers(r.window, [a, r.window.at(-1)!]);
    assert.isAtMost(r.window.length, 3);
    assert.include(r.explanation, "(result not needed", "the create: any version may exist before");
    assert.deepEqual(checkLinearizable(blobModel, [base, a, ifMatch(2, 3, 7, "E0", "b", st(412))]), { ok: true });
    // Either order is fine while they overlap.
    assert.deepEqual(checkLinearizable(blobModel, [base, ifMatch(1, 2, 6, "E0", "a", st(412)), ifMatch(2, 3, 7, "E0", "b", ok("Eb"))]), {
      ok: true,
    });
  });

  it("an ETag reused after delete and re-create is not linearizable", function () {
    const h = [create(0, 0, 1, "v", ok("E1")), del(1, 2, 3, st(202)), create(0, 4, 5, "v", ok("E1"))];
    const r = checkLinearizable(blobModel, h);
    assertFails(r);
    assert.includeMembers(r.window, [h[0], h[2]]);
    assert.deepEqual(checkLinearizable(blobModel, [h[0], h[1], create(0, 4, 5, "v", ok("E2"))]), { ok: true });
    // Nor may a read present an old ETag for the new version.
    assertFails(checkLinearizable(blobModel, [h[0], h[1], create(0, 4, 5, "w", ok("E2")), read(1, 6, 7, ok("E1", "w"))]));
  });

  it("a read that returns a value older than a completed write is not linearizable; a concurrent one may", function () {
    const w1 = write(0, 0, 1, "v1", ok("E1"));
    const w2 = write(0, 2, 3, "v2", ok("E2"));
    const stale = read(1, 4, 5, ok("E1", "v1"));
    const r = checkLinearizable(blobModel, [w1, w2, stale]);
    assertFails(r);
    assert.deepEqual(r.window, [w1, w2, stale]);
    assert.match(r.explanation, /"v1"\} -> \(result not needed/, "w1 only stands for 'anything may exist before'");
    assert.deepEqual(checkLinearizable(blobModel, [w1, w2, read(1, 2.5, 5, ok("E1", "v1"))]), { ok: true });
    assertFails(checkLinearizable(blobModel, [w1, w2, read(1, 2.5, 5, ok("E2", "v1"))]), "an ETag names exactly one version");
  });

  it("a timed-out write may or may not have taken effect, at any time after its call", function () {
    const base = create(0, 0, 1, "v0", ok("E0"));
    const lost = write(1, 2, T, "v1");
    assert.deepEqual(checkLinearizable(blobModel, [base, lost, read(2, 5, 6, ok("E0", "v0"))]), { ok: true }, "not applied");
    assert.deepEqual(
      checkLinearizable(blobModel, [base, lost, read(2, 5, 6, ok("Ex", "v1"))]),
      { ok: true },
      "applied; ETag learned from the read",
    );
    assert.deepEqual(
      checkLinearizable(blobModel, [base, lost, read(2, 5, 6, ok("E0", "v0")), read(2, 7, 8, ok("Ex", "v1"))]),
      { ok: true },
      "applied late",
    );
    assertFails(checkLinearizable(blobModel, [base, lost, read(2, 5, 6, ok("Ex", "v1")), read(2, 7, 8, ok("E0", "v0"))]));
    assertFails(checkLinearizable(blobModel, [base, lost, read(2, 5, 6, ok("E0", "v1"))]), "v1 under the old ETag");
    // A timed-out conditional write: applied, or refused and so without effect.
    const lostIf = ifMatch(1, 2, T, "E0", "v1");
    assert.deepEqual(checkLinearizable(blobModel, [base, lostIf, ifMatch(2, 5, 6, "E0", "v2", ok("E2"))]), { ok: true });
    assert.deepEqual(checkLinearizable(blobModel, [base, lostIf, ifMatch(2, 5, 6, "E0", "v2", st(412)), read(2, 7, 8, ok("Ey", "v1"))]), {
      ok: true,
    });
    assertFails(checkLinearizable(blobModel, [base, lostIf, ifMatch(2, 5, 6, "E0", "v2", st(412)), read(2, 7, 8, ok("E0", "v0"))]));
    // A timed-out delete.
    assert.deepEqual(checkLinearizable(blobModel, [base, del(1, 2, T), read(2, 5, 6, st(404))]), { ok: true });
    assert.deepEqual(checkLinearizable(blobModel, [base, del(1, 2, T), read(2, 5, 6, ok("E0", "v0"))]), { ok: true });
  });
});

describe("linearizability: table entity model", function () {
  type EOp = Operation<EntityInput, RegisterOutput>;
  const e = (c: number, call: number, ret: number, input: EntityInput, output?: RegisterOutput): EOp => op(c, call, ret, input, output);
  const upd = (etag: string, value: string): EntityInput => ({ op: "update", etag, value });

  it("Update Entity with If-Match: 204 with a new ETag, 412 when stale, 404 when missing", function () {
    const h = [
      e(0, 0, 1, upd("*", "a"), st(404)),
      e(0, 2, 3, { op: "insert", value: "a" }, ok("E1", undefined, 201)),
      e(1, 4, 5, { op: "insert", value: "b" }, st(409)),
      e(1, 6, 7, upd("E1", "b"), ok("E2", undefined, 204)),
      e(0, 8, 9, upd("E1", "c"), st(412)),
      e(0, 10, 11, { op: "read" }, ok("E2", "b")),
      e(1, 12, 13, { op: "upsert", value: "d" }, ok("E3", undefined, 204)),
      e(0, 14, 15, { op: "delete", etag: "E2" }, st(412)),
      e(0, 16, 17, { op: "delete", etag: "E3" }, st(204)),
      e(1, 18, 19, upd("E3", "x"), st(404)),
    ];
    assert.deepEqual(checkLinearizable(tableEntityModel, h), { ok: true });
    assertFails(checkLinearizable(tableEntityModel, [e(0, 0, 1, upd("*", "a"), st(412))]), "missing → 404, not 412");
  });

  it("two concurrent updates with the same ETag cannot both succeed", function () {
    const h = [
      e(0, 0, 1, { op: "insert", value: "a" }, ok("E1", undefined, 201)),
      e(1, 2, 5, upd("E1", "b"), ok("E2", undefined, 204)),
      e(2, 3, 6, upd("E1", "c"), ok("E3", undefined, 204)),
    ];
    assertFails(checkLinearizable(tableEntityModel, h));
    assert.deepEqual(checkLinearizable(tableEntityModel, [h[0], h[1], e(2, 3, 6, upd("E1", "c"), st(412))]), { ok: true });
  });
});
