// TB Table entities (the seed's table of entity operations), as data: one
// entry per row, what the article says of its ETag and of If-Match. The rows
// (entity-ops.rows.ts), the matrix and the generated mutants
// (selftest/mutants/etag-claims.ts, entity-if-match.ts) come from it.
import { claimAt } from "../../fixtures/harness/locations.ts";

export interface EntityOpClaim {
  slug: string;
  /** The REST operation (as fixtures/wire/operations.ts names requests). */
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
export const entityOpAt = (slug: string) => claimAt(import.meta.url, `slug: "${slug}",`);

export const ENTITY_OPS: EntityOpClaim[] = [
  {
    slug: "query-entities",
    operation: "Query Entities",
    etag: true,
    ifMatch: false,
    rest: "Query Entities (odata.etag per entity), Get Entity (ETag header)",
  },
  { slug: "insert-entity", operation: "Insert Entity", etag: true, ifMatch: false, rest: "Insert Entity", creates: true },
  { slug: "update-entity", operation: "Update Entity", etag: true, ifMatch: true, rest: "Update Entity", writes: "conditional" },
  { slug: "merge-entity", operation: "Merge Entity", etag: true, ifMatch: true, rest: "Merge Entity", writes: "conditional" },
  { slug: "delete-entity", operation: "Delete Entity", etag: false, ifMatch: true, rest: "Delete Entity", writes: "conditional" },
  {
    slug: "insert-or-replace-entity",
    operation: "Insert Or Replace Entity",
    etag: true,
    ifMatch: false,
    rest: "Insert Or Replace Entity",
    writes: "upsert",
  },
  {
    slug: "insert-or-merge-entity",
    operation: "Insert Or Merge Entity",
    etag: true,
    ifMatch: false,
    rest: "Insert Or Merge Entity",
    writes: "upsert",
  },
];
