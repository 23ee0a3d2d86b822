// M Models: the article's strong consistency with optimistic concurrency, as
// a statement about all interleavings. Several clients run random sequences
// (from the run's seed) concurrently on one blob, or one table entity; every
// operation's invocation and completion time and result are recorded, and the
// history must be linearizable as a register with compare-and-set whose
// versions are named by ETags (fixtures/harness/linearizability.ts).
import { performance } from "node:perf_hooks";
import fc from "fast-check";
import { AssertionError } from "chai";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import {
  blobModel,
  checkLinearizable,
  tableEntityModel,
  type BlobInput,
  type EntityInput,
  type Model,
  type Operation,
  type RegisterOutput,
  type RegisterState,
} from "../../fixtures/harness/linearizability.ts";
import { replayCommand, seeded } from "../../fixtures/harness/models.ts";
import type { RawRequest, RawResponse } from "../../fixtures/wire/raw.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { isTransportFault, RowSignal } from "../../fixtures/wire/signals.ts";
import type { Service } from "../../fixtures/wire/target.ts";
import { entityPath, PK } from "../table/table-kit.ts";

/** Clients per history, operations per client, histories per row (run side by side). */
export const CLIENTS = 4;
export const OPS = 12;
export const HISTORIES = 4;

type Kind = "read" | "write" | "cas" | "create" | "delete" | "delete-cas";
const KINDS = fc.constantFrom<Kind>("read", "read", "cas", "cas", "cas", "write", "create", "delete", "delete-cas");

/** One operation as a client issues it: the model's input, and the request that performs it. */
interface Issued<I> {
  input: I;
  request: RawRequest;
  output(res: RawResponse): RegisterOutput;
}

interface Target<I> {
  service: Service;
  model: Model<RegisterState, I, RegisterOutput>;
  /** A fresh, empty key for one history. */
  prepare(t: RowContext): Promise<string>;
  /** What `kind` means for a client that last saw `etag`. */
  issue(where: string, kind: Kind, value: string, etag: string | undefined): Issued<I>;
}

const status = (res: RawResponse, extra: Partial<RegisterOutput> = {}): RegisterOutput => ({
  status: res.status,
  ...(res.status < 300 ? extra : {}),
});

const BLOB: Target<BlobInput> = {
  service: "blob",
  model: blobModel,
  async prepare(t) {
    const c = await t.newContainer();
    return `/${c.containerName}/register`;
  },
  issue(path, kind, value, etag): Issued<BlobInput> {
    const put = (headers: Record<string, string>): RawRequest => ({
      method: "PUT",
      path,
      headers: { "x-ms-blob-type": "BlockBlob", ...headers },
      body: value,
    });
    const written = (res: RawResponse) => status(res, { etag: res.headers["etag"] });
    switch (kind) {
      case "read":
        return {
          input: { op: "read" },
          request: { method: "GET", path },
          output: (res) => status(res, { etag: res.headers["etag"], value: res.body }),
        };
      case "write":
        return { input: { op: "write", value }, request: put({}), output: written };
      case "cas":
        return { input: { op: "writeIfMatch", etag: etag!, value }, request: put({ "if-match": etag! }), output: written };
      case "create":
        return { input: { op: "create", value }, request: put({ "if-none-match": "*" }), output: written };
      case "delete":
        return { input: { op: "delete" }, request: { method: "DELETE", path }, output: (res) => status(res) };
      case "delete-cas":
        return {
          input: { op: "deleteIfMatch", etag: etag! },
          request: { method: "DELETE", path, headers: { "if-match": etag! } },
          output: (res) => status(res),
        };
    }
  },
};

const ENTITY: Target<EntityInput> = {
  service: "table",
  model: tableEntityModel,
  async prepare(t) {
    return (await t.newTable()).tableName;
  },
  issue(table, kind, value, etag): Issued<EntityInput> {
    const path = entityPath(table, "register");
    const json: Record<string, string> = { "content-type": "application/json" };
    const body = (extra: object = {}) => JSON.stringify({ v: value, ...extra });
    const written = (res: RawResponse) => status(res, { etag: res.headers["etag"] });
    switch (kind) {
      case "read":
        return {
          input: { op: "read" },
          request: { method: "GET", path },
          output: (res) =>
            status(res, { etag: res.headers["etag"], value: res.status === 200 ? (JSON.parse(res.body) as { v: string }).v : undefined }),
        };
      case "write":
        return { input: { op: "upsert", value }, request: { method: "PUT", path, headers: json, body: body() }, output: written };
      case "cas":
        return {
          input: { op: "update", etag: etag!, value },
          request: { method: "PUT", path, headers: { ...json, "if-match": etag! }, body: body() },
          output: written,
        };
      case "create":
        return {
          input: { op: "insert", value },
          request: {
            method: "POST",
            path: `/${table}`,
            headers: { ...json, prefer: "return-no-content" },
            body: body({ PartitionKey: PK, RowKey: "register" }),
          },
          output: written,
        };
      case "delete":
      case "delete-cas":
        // Delete Entity always carries If-Match: `*` is its unconditional form.
        return {
          input: { op: "delete", etag: kind === "delete" ? "*" : etag! },
          request: { method: "DELETE", path, headers: { "if-match": kind === "delete" ? "*" : etag! } },
          output: (res) => status(res),
        };
    }
  },
};

/** Runs one history: every client its plan, concurrently, each operation timed. */
async function history<I>(t: RowContext, target: Target<I>, plan: Kind[][], tag: number): Promise<Operation<I, RegisterOutput>[]> {
  const where = await target.prepare(t);
  const ops: Operation<I, RegisterOutput>[] = [];
  await Promise.all(
    plan.map(async (kinds, client) => {
      let etag: string | undefined;
      for (const [i, planned] of kinds.entries()) {
        // A conditional write uses the ETag this client last saw; with none, it reads first.
        const kind = !etag && (planned === "cas" || planned === "delete-cas") ? "read" : planned;
        const issued = target.issue(where, kind, `h${tag}c${client}o${i}`, etag);
        const call = performance.now();
        try {
          const res = await t.raw(target.service, issued.request);
          const output = issued.output(res);
          ops.push({ client, input: issued.input, call, ret: performance.now(), output });
          if (output.etag) etag = output.etag;
          else if (output.status === 404) etag = undefined;
        } catch (err) {
          if (!isTransportFault(err)) throw err;
          // Unanswered: it may or may not have taken effect; this client stops, as in Jepsen.
          ops.push({ client, input: issued.input, call, ret: Infinity });
          return;
        }
      }
    }),
  );
  return ops;
}

async function linearizable<I>(t: RowContext, target: Target<I>): Promise<void> {
  const seed = seeded(t);
  const plans = fc.sample(fc.array(fc.array(KINDS, { minLength: OPS, maxLength: OPS }), { minLength: CLIENTS, maxLength: CLIENTS }), {
    seed,
    numRuns: HISTORIES,
  });
  t.step(`${HISTORIES} histories of ${CLIENTS} clients × ${OPS} operations, side by side`);
  const histories = await Promise.all(plans.map((plan, i) => history(t, target, plan, i)));
  t.note(
    "operations",
    histories.reduce((n, h) => n + h.length, 0),
  );
  t.note(
    "unanswered",
    histories.reduce((n, h) => n + h.filter((o) => o.ret === Infinity).length, 0),
  );
  for (const [i, h] of histories.entries()) {
    const verdict = checkLinearizable(target.model, h);
    if (verdict.ok === "unknown")
      throw new RowSignal("INCONCLUSIVE", `history ${i}: the linearizability search gave up (${verdict.reason})`);
    if (verdict.ok === false) {
      t.note("window", verdict.window);
      // First line stable (it is the failure's signature); the details and the replay follow.
      throw new AssertionError(
        `a concurrent history is not linearizable as a register with compare-and-set (${target.service === "blob" ? "one blob" : "one table entity"})\n` +
          `history ${i}: ${verdict.explanation}\nreplay: ${replayCommand(t, seed)}`,
      );
    }
  }
}

const SOURCE = "seed: strong consistency and optimistic concurrency (introduction); catalogue M";

const rows: RowDef[] = [
  {
    id: "general/linearizable/blob",
    title: `${CLIENTS} clients run random reads, If-Match writes (with the ETag they last saw), If-None-Match:* creates, unconditional writes and deletes on one blob: the history is linearizable, an ETag naming one version`,
    level: "rest",
    source: `${SOURCE}; REST: Put Blob, Get Blob, Delete Blob, Specifying Conditional Headers`,
    service: "blob",
    run: (t) => linearizable(t, BLOB),
  },
  {
    id: "general/linearizable/table-entity",
    title: `${CLIENTS} clients run random reads, Update Entity with If-Match, Insert, Insert Or Replace and Delete on one entity: the history is linearizable`,
    level: "rest",
    source: `${SOURCE}; REST: Update Entity, Insert Entity, Insert Or Replace Entity, Delete Entity`,
    service: "table",
    run: (t) => linearizable(t, ENTITY),
  },
];

defineTable({ table: "M Models", service: "blob" }, rows);
