// Mutants for TB Table entities, table batches and general/snapshot-isolation
// (suites/table/*, suites/general/snapshot-isolation.rows.ts): at least one
// documented deviation per row, each named with the rows that must catch it.
import { randomUUID } from "node:crypto";
import { query, segments, type Mutant, type ProxyRequest, type ProxyResponse } from "./types.ts";

const P = "table/entity-ops/";
const FAKE_ETAG = `W/"datetime'2001-01-01T00%3A00%3A00.0000000Z'"`;

type TableOp = "query" | "get" | "insert" | "update" | "merge" | "delete" | "batch";

/** Which entity operation a table-service request is, if any. */
export function tableOp(req: ProxyRequest): TableOp | undefined {
  if (req.service !== "table") return undefined;
  const seg = segments(req);
  if (seg.length !== 1) return undefined;
  if (seg[0] === "$batch") return req.method === "POST" ? "batch" : undefined;
  const m = /^([^(]+)\((.*)\)$/.exec(seg[0]);
  if (!m) return req.method === "POST" && seg[0] !== "Tables" ? "insert" : undefined;
  if (m[1] === "Tables") return undefined;
  if (m[2] === "") return req.method === "GET" ? "query" : undefined;
  if (req.method === "GET") return "get";
  if (req.method === "PUT") return "update";
  if (req.method === "MERGE" || req.method === "PATCH") return "merge";
  if (req.method === "DELETE") return "delete";
  return undefined;
}

export const is = (req: ProxyRequest, ...ops: TableOp[]) => ops.includes(tableOp(req)!);

function noContent(etag?: string): ProxyResponse {
  const headers: Record<string, string> = { "x-ms-version": "2019-02-02", date: new Date().toUTCString() };
  if (etag) headers["etag"] = etag;
  return { status: 204, headers, body: Buffer.alloc(0) };
}

/** Rewrites the entities of a JSON query answer. */
function rewriteEntities(res: ProxyResponse, fn: (entities: Record<string, unknown>[]) => void): void {
  if (res.status !== 200) return;
  let doc: { value?: Record<string, unknown>[] };
  try {
    doc = JSON.parse(res.body.toString("utf8"));
  } catch {
    return;
  }
  if (!Array.isArray(doc.value)) return;
  fn(doc.value);
  res.body = Buffer.from(JSON.stringify(doc));
}

// --- the batch that is applied partially --------------------------------

export const PARTIAL = "x-selftest-partial-index";

/** Splits a changeset request body into [preamble, ops, batch boundary, changeset boundary]. */
export function changeset(body: string): { batch: string; cs: string; head: string; ops: string[] } | undefined {
  const batch = /^--(batch_[^\r\n]+)/.exec(body)?.[1];
  const cs = /boundary=(changeset_[^\r\n;]+)/.exec(body)?.[1];
  if (!batch || !cs) return undefined;
  const parts = body.split(`--${cs}`);
  return { batch, cs, head: parts[0], ops: parts.slice(1, -1) };
}

/** A changeset request body holding `ops` only. */
export function rebuilt(parsed: NonNullable<ReturnType<typeof changeset>>, ops: string[]): Buffer {
  return Buffer.from(`${parsed.head}${ops.map((op) => `--${parsed.cs}${op}`).join("")}--${parsed.cs}--\r\n--${parsed.batch}--\r\n`);
}

/** Answers a batch the mutant marked (PARTIAL) as failed at the marked operation, whatever the target applied. */
export function reportFailureAtMark(req: ProxyRequest, res: ProxyResponse): void {
  const index = req.headers[PARTIAL];
  if (index === undefined || res.status !== 202) return;
  const b = failedBatch(Number(index));
  res.body = b;
  res.headers["content-type"] = `multipart/mixed; boundary=${/^--(\S+)/.exec(b.toString("utf8"))![1]}`;
}

function failedBatch(index: number): Buffer {
  const b = `batchresponse_${randomUUID()}`;
  const c = `changesetresponse_${randomUUID()}`;
  const error = JSON.stringify({
    "odata.error": {
      code: "UpdateConditionNotSatisfied",
      message: { lang: "en-US", value: `${index}:The update condition specified in the request was not satisfied.` },
    },
  });
  return Buffer.from(
    [
      `--${b}`,
      `Content-Type: multipart/mixed; boundary=${c}`,
      "",
      `--${c}`,
      "Content-Type: application/http",
      "Content-Transfer-Encoding: binary",
      "",
      "HTTP/1.1 412 Precondition Failed",
      `Content-ID: ${index + 1}`,
      "Content-Type: application/json;odata=minimalmetadata;charset=utf-8",
      "",
      error,
      `--${c}--`,
      `--${b}--`,
      "",
    ].join("\r\n"),
  );
}

export const MUTANTS: Mutant[] = [
  {
    name: "table-if-match-star-upserts",
    description: "Update / Merge Entity with If-Match: * insert a missing entity instead of answering 404",
    kills: [`${P}update-entity/if-match/missing-entity`, `${P}merge-entity/if-match/missing-entity`],
    onRequest(req) {
      if (is(req, "update", "merge") && req.headers["if-match"] === "*") delete req.headers["if-match"];
    },
  },
  {
    name: "table-delete-missing-succeeds",
    description: "Delete Entity of a missing entity answers 204 instead of 404",
    kills: [`${P}delete-entity/if-match/missing-entity`],
    onResponse(req, res) {
      if (is(req, "delete") && res.status === 404) Object.assign(res, noContent());
    },
  },
  {
    name: "table-malformed-if-match-ignored",
    description: "A malformed If-Match on Update / Merge / Delete Entity is treated as *",
    kills: [`${P}update-entity/if-match/malformed`, `${P}merge-entity/if-match/malformed`, `${P}delete-entity/if-match/malformed`],
    onRequest(req) {
      const im = req.headers["if-match"];
      if (is(req, "update", "merge", "delete") && im && !/^(\*|W\/".*"|".*")$/.test(im)) req.headers["if-match"] = "*";
    },
  },
  {
    name: "table-delete-without-if-match-deletes",
    description: "Delete Entity without If-Match deletes (as if * were sent) instead of answering 400",
    kills: [`${P}delete-entity/if-match/absent`],
    onRequest(req) {
      if (is(req, "delete") && !req.headers["if-match"]) req.headers["if-match"] = "*";
    },
  },
  {
    name: "table-write-without-if-match-not-applied",
    description: "Update / Merge Entity without If-Match answer 204 but write nothing",
    kills: [`${P}update-entity/if-match/absent`, `${P}merge-entity/if-match/absent`],
    onRequest(req) {
      if (is(req, "update", "merge") && !req.headers["if-match"]) return noContent(FAKE_ETAG);
    },
  },
  {
    name: "table-insert-conflict-hidden",
    description: "Insert Entity over an existing entity answers 204 (as if inserted) instead of 409",
    kills: [`${P}insert-entity/existing-entity`],
    onResponse(req, res) {
      if (is(req, "insert") && res.status === 409) Object.assign(res, noContent(FAKE_ETAG));
    },
  },
  {
    name: "table-batch-applied-partially",
    description: "A changeset's first operation is committed on its own; the failure is reported at the first later conditional operation",
    kills: ["table/batch/atomic-on-412", "table/batch/atomic-any-position"],
    onRequest(req) {
      if (!is(req, "batch")) return;
      const parsed = changeset(req.body.toString("utf8"));
      if (!parsed || parsed.ops.length < 2) return;
      const failing = parsed.ops.findIndex((op, i) => i > 0 && /\r?\nIf-Match: (?!\*)/i.test(op));
      if (failing < 0) return;
      req.headers[PARTIAL] = String(failing);
      req.body = rebuilt(parsed, [parsed.ops[0]]);
    },
    onResponse: reportFailureAtMark,
  },
  {
    name: "table-query-mixed-generations",
    description: "A partition query serves a mixed view of a batch: the last entity from the previous generation",
    kills: ["general/snapshot-isolation"],
    onResponse(req, res) {
      if (!is(req, "query") || !query(req).get("$filter")) return;
      rewriteEntities(res, (es) => {
        const last = es.at(-1);
        if (es.length > 1 && last && typeof last.gen === "number" && last.gen > 0) last.gen = last.gen - 1;
      });
    },
  },
];
