// TB Table entities (the seed's table of entity operations), as data: one
// entry per row, what the article says of its ETag and of If-Match, on top of
// its operation's record (operations.ts: name and slug). The rows
// (entity-ops.rows.ts), the matrix and the generated mutants
// (selftest/mutants/etag-claims.ts, entity-if-match.ts) come from it.
import { claimAt } from "../../fixtures/harness/locations.ts";
import { tableOp } from "./operations.ts";

/** An operation's name and slug, from its record. */
const op = (slug: string) => {
  const r = tableOp(slug);
  return { slug: r.slug, operation: r.operation };
};

export interface EntityOpClaim {
  slug: string;
  /** The REST operation (as fixtures/wire/operations.ts names requests), its record's. */
  operation: string;
  /** The seed's "Returns ETag value". */
  etag: boolean;
  /** The seed's "If-Match required": the operation checks it (a stale one is refused with 412). */
  ifMatch: boolean;
  /** REST reference page(s) behind the row. */
  rest: string;
  /** It makes a new entity: there is no earlier ETag it could answer. */
  creates?: boolean;
  /** How it writes, if it does: conditionally (If-Match), or as an upsert (no concurrency check at all). */
  writes?: "conditional" | "upsert";
}

export const ENTITY_OPS_PREFIX = "table/entity-ops/";
/** The line of an operation's claims in ENTITY_OPS. */
export const entityOpAt = (slug: string) => claimAt(import.meta.url, `op("${slug}")`);

export const ENTITY_OPS: EntityOpClaim[] = [
  {
    ...op("query-entities"),
    etag: true,
    ifMatch: false,
    rest: "Query Entities (odata.etag per entity), Get Entity (ETag header)",
  },
  { ...op("insert-entity"), etag: true, ifMatch: false, rest: "Insert Entity", creates: true },
  { ...op("update-entity"), etag: true, ifMatch: true, rest: "Update Entity", writes: "conditional" },
  { ...op("merge-entity"), etag: true, ifMatch: true, rest: "Merge Entity", writes: "conditional" },
  { ...op("delete-entity"), etag: false, ifMatch: true, rest: "Delete Entity", writes: "conditional" },
  {
    ...op("insert-or-replace-entity"),
    etag: true,
    ifMatch: false,
    rest: "Insert Or Replace Entity",
    writes: "upsert",
  },
  {
    ...op("insert-or-merge-entity"),
    etag: true,
    ifMatch: false,
    rest: "Insert Or Merge Entity",
    writes: "upsert",
  },
];
