// The ETags a target handed out, resource by resource, as the proxy saw them
// (before any mutant's rewrite): what a mutant serving a stale ETag serves.
// (A helper module: it has no mutants of its own.)
import { query, segments, type MutantState, type ProxyRequest, type ProxyResponse } from "./types.ts";

/** The resource a request is about: a container, a blob (or one of its snapshots), a table entity (an insert names it in its body). */
export function resource(req: ProxyRequest): string {
  const snapshot = query(req).get("snapshot");
  const segs = segments(req);
  if (req.service === "table" && req.method === "POST" && segs.length === 1 && !segs[0].startsWith("$") && segs[0] !== "Tables") {
    try {
      return entityKey(req, JSON.parse(req.body.toString("utf8")) as Listed);
    } catch {
      // not an entity body: keyed by its path
    }
  }
  return `${req.service}:${segs.join("/")}${snapshot ? `?snapshot=${snapshot}` : ""}`;
}

// Table entities listed by Query Entities carry their ETags in the body, one per entity.
export type Listed = { PartitionKey?: string; RowKey?: string; "odata.etag"?: string };
export const entityKey = (req: ProxyRequest, e: Listed) =>
  `table:${segments(req)[0]?.replace(/\(.*$/, "")}(PartitionKey='${e.PartitionKey}',RowKey='${e.RowKey}')`;

export function listed(res: ProxyResponse): { body: { value?: Listed[] }; entities: Listed[] } | undefined {
  if (!(res.headers["content-type"] ?? "").includes("json")) return undefined;
  try {
    const body = JSON.parse(res.body.toString("utf8")) as { value?: Listed[] };
    return Array.isArray(body.value) ? { body, entities: body.value } : undefined;
  } catch {
    return undefined;
  }
}

const ok = (res: ProxyResponse) => res.status >= 200 && res.status < 300;

/** Every distinct ETag each resource answered with, in order: what the target said before the rewrite. */
export function remember(req: ProxyRequest, res: ProxyResponse, state: MutantState): void {
  if (!ok(res)) return;
  const seen = (key: string, etag: string | undefined) => {
    if (!etag) return;
    const history = (state.get(key) as string[] | undefined) ?? [];
    if (history.at(-1) !== etag) state.set(key, [...history, etag]);
  };
  seen(resource(req), res.headers["etag"]);
  for (const e of listed(res)?.entities ?? []) seen(entityKey(req, e), e["odata.etag"]);
}

/** The ETag a resource had before the one answered now (its latest other one). */
export function before(key: string, now: string, state: MutantState): string | undefined {
  return ((state.get(key) as string[] | undefined) ?? []).filter((e) => e !== now).at(-1);
}

/** Rewrites an answer to show each resource's previous ETag (in the header, and per entity of a JSON listing). */
export function serveStale(req: ProxyRequest, res: ProxyResponse, state: MutantState): void {
  const etag = res.headers["etag"];
  const old = etag && before(resource(req), etag, state);
  if (old) res.headers["etag"] = old;
  const list = listed(res);
  if (!list) return;
  for (const e of list.entities) {
    const prior = e["odata.etag"] && before(entityKey(req, e), e["odata.etag"], state);
    if (prior) e["odata.etag"] = prior;
  }
  res.body = Buffer.from(JSON.stringify(list.body));
}
