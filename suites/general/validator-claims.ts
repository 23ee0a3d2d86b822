// general/validators-advance (catalogue G): every write that changes a blob, a
// container or an entity gives it a new ETag and, when it comes at least one
// second after the previous change by the server's clock, a later
// Last-Modified (an entity's Timestamp). The writes as data, one row each
// (validators.rows.ts, `general/validators-advance/<write>`), and one pair of
// generated mutants each (selftest/mutants/validators.ts: the ETag does not
// change; Last-Modified does not advance).
import type { Service } from "../../model/result.ts";
import { claimAt } from "../../fixtures/harness/locations.ts";

export interface ValidatorWrite {
  slug: string;
  /** The REST operation (fixtures/wire/operations.ts names; a family covers its sub-actions). */
  operation: string;
  service: Service;
  resource: "blob" | "page-blob" | "container" | "entity";
}

export const VALIDATORS_ADVANCE = "general/validators-advance";
/** The line of a write in WRITES. */
export const validatorAt = (slug: string) => claimAt(import.meta.url, `slug: "${slug}",`);

export const WRITES: ValidatorWrite[] = [
  { slug: "put-blob", operation: "Put Blob", service: "blob", resource: "blob" },
  { slug: "set-blob-properties", operation: "Set Blob Properties", service: "blob", resource: "blob" },
  { slug: "set-blob-metadata", operation: "Set Blob Metadata", service: "blob", resource: "blob" },
  { slug: "put-block-list", operation: "Put Block List", service: "blob", resource: "blob" },
  { slug: "put-page", operation: "Put Page", service: "blob", resource: "page-blob" },
  { slug: "copy-blob", operation: "Copy Blob", service: "blob", resource: "blob" },
  { slug: "set-container-metadata", operation: "Set Container Metadata", service: "blob", resource: "container" },
  { slug: "set-container-acl", operation: "Set Container ACL", service: "blob", resource: "container" },
  { slug: "update-entity", operation: "Update Entity", service: "table", resource: "entity" },
  { slug: "merge-entity", operation: "Merge Entity", service: "table", resource: "entity" },
  { slug: "insert-or-replace-entity", operation: "Insert Or Replace Entity", service: "table", resource: "entity" },
  { slug: "insert-or-merge-entity", operation: "Insert Or Merge Entity", service: "table", resource: "entity" },
];
