// Mutants for TB transactions and validators (suites/table/transactions.rows.ts,
// entity-validators.rows.ts): a transaction that applies every operation but
// the failing one, one that takes an entity twice, a Timestamp that stays put
// while the ETag moves, a 204 insert without its ETag. Each named with the
// rows that must catch it.
import { changeset, is, PARTIAL, rebuilt, reportFailureAtMark } from "./table.ts";
import { segments, type Mutant, type ProxyResponse } from "./types.ts";

/** An operation of a changeset carrying an If-Match other than `*`: the one a transaction's condition can fail. */
const conditional = (op: string) => /\r?\nIf-Match: (?!\*)/i.test(op);
/** The entity an operation of a changeset names (its request line's URL). */
const entityOf = (op: string) => /\n(?:PUT|MERGE|PATCH|DELETE|POST) (\S+) HTTP/.exec(op)?.[1];

/** Rewrites the Timestamp of each entity of a JSON answer (one entity, or a query's `value`). */
function rewriteTimestamps(res: ProxyResponse, fn: (key: string, ts: string) => string): void {
  if (res.status !== 200) return;
  let doc: Record<string, unknown> & { value?: Record<string, unknown>[] };
  try {
    doc = JSON.parse(res.body.toString("utf8"));
  } catch {
    return;
  }
  for (const e of Array.isArray(doc.value) ? doc.value : [doc]) {
    if (typeof e.Timestamp === "string") e.Timestamp = fn(`${e.PartitionKey}/${e.RowKey}`, e.Timestamp);
  }
  res.body = Buffer.from(JSON.stringify(doc));
}

export const MUTANTS: Mutant[] = [
  {
    name: "table-batch-applies-all-but-failing",
    description:
      "A transaction applies every operation that succeeds on its own and reports the failing one: operations before and after a stale If-Match are committed",
    kills: ["table/batch/atomic-any-position", "table/batch/atomic-on-412"],
    onRequest(req) {
      if (!is(req, "batch")) return;
      const parsed = changeset(req.body.toString("utf8"));
      const failing = parsed?.ops.findIndex(conditional) ?? -1;
      if (!parsed || failing < 0 || parsed.ops.length < 2) return;
      req.headers[PARTIAL] = String(failing);
      req.body = rebuilt(
        parsed,
        parsed.ops.filter((_, i) => i !== failing),
      );
    },
    onResponse: reportFailureAtMark,
  },
  {
    name: "table-batch-duplicate-row-accepted",
    description: "A transaction naming one entity twice is accepted: only the last operation on that entity is kept, and the rest commit",
    kills: ["table/batch/duplicate-row"],
    onRequest(req) {
      if (!is(req, "batch")) return;
      const parsed = changeset(req.body.toString("utf8"));
      if (!parsed) return;
      const keep = parsed.ops.filter((op, i) => !parsed.ops.slice(i + 1).some((later) => entityOf(later) === entityOf(op)));
      if (keep.length === parsed.ops.length) return;
      req.body = rebuilt(parsed, keep);
    },
  },
  {
    name: "table-timestamp-frozen",
    description: "An entity's Timestamp stays at the first one read while its ETag moves with each write",
    kills: ["table/etag/timestamp-coupled"],
    onResponse(req, res, state) {
      if (!is(req, "get", "query")) return;
      const table = segments(req)[0].replace(/\(.*$/, "");
      rewriteTimestamps(res, (key, ts) => {
        const k = `timestamp ${table}/${key}`;
        if (!state.has(k)) state.set(k, ts);
        return state.get(k) as string;
      });
    },
  },
  {
    name: "table-no-content-insert-without-etag",
    description: "Insert Entity answered 204 (Prefer: return-no-content) carries no ETag header",
    kills: ["table/insert/no-content-etag"],
    onResponse(req, res) {
      if (is(req, "insert") && res.status === 204) delete res.headers["etag"];
    },
  },
];
