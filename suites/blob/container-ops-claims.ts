// T1 Container operations (the seed's table of container operations), as
// data: one entry per row, what the article says of its ETag. The rows
// (container-ops.rows.ts), the matrix and the generated mutants
// (selftest/mutants/etag-claims.ts) come from it; its conditional column is in
// conditional-claims.ts.
import { claimAt } from "../../fixtures/harness/locations.ts";

export interface ContainerOpClaim {
  slug: string;
  /** The REST operation (as fixtures/wire/operations.ts names requests). */
  operation: string;
  /** The seed's "Returns ETag value". */
  etag: boolean;
  /** REST reference page(s) behind the row. */
  rest: string;
  /** It makes a new resource: there is no earlier ETag it could answer. */
  creates?: boolean;
}

export const CONTAINER_OPS_PREFIX = "blob/container-ops/";
/** The line of an operation's claims in the table below. */
export const containerOpAt = (slug: string) => claimAt(import.meta.url, `slug: "${slug}"`);

export const CONTAINER_OPS: ContainerOpClaim[] = [
  { slug: "create-container", operation: "Create Container", etag: true, rest: "Create Container", creates: true },
  { slug: "get-container-properties", operation: "Get Container Properties", etag: true, rest: "Get Container Properties" },
  { slug: "get-container-metadata", operation: "Get Container Metadata", etag: true, rest: "Get Container Metadata" },
  {
    slug: "set-container-metadata",
    operation: "Set Container Metadata",
    etag: true,
    rest: "Set Container Metadata (If-Modified-Since only)",
  },
  { slug: "get-container-acl", operation: "Get Container ACL", etag: true, rest: "Get Container ACL" },
  {
    slug: "set-container-acl",
    operation: "Set Container ACL",
    etag: true,
    rest: "Set Container ACL (If-Modified-Since, If-Unmodified-Since)",
  },
  {
    slug: "delete-container",
    operation: "Delete Container",
    etag: false,
    rest: "Delete Container (If-Modified-Since, If-Unmodified-Since)",
  },
  { slug: "lease-container", operation: "Lease Container", etag: true, rest: "Lease Container (If-Modified-Since, If-Unmodified-Since)" },
  { slug: "list-blobs", operation: "List Blobs", etag: false, rest: "List Blobs" },
];
