// X-T, the operations that take `x-ms-if-tags` as data: each is its record
// (operations.ts) and what the refusal leaves to read back. tags.rows.ts
// generates a row per entry; selftest/mutants/tag-conditions.ts a mutant
// family per entry.
import { claimAt, type ClaimRef } from "../../fixtures/harness/locations.ts";
import { op, type BlobOperation } from "./operations.ts";

export const T = "blob/tags/";
export const IF_TAGS = "x-ms-if-tags";

export interface TagClaim extends BlobOperation {
  row: string;
  /** Its line in TAG_CLAIMS. */
  at: ClaimRef;
  /** What the catalogue names to read back after the refusal (beside the state every row reads). */
  readBack: string;
}

const claim = (slug: string, readBack = "—"): TagClaim => ({
  ...op(slug),
  row: `${T}if-tags/${slug}`,
  at: claimAt(import.meta.url, `claim("${slug}"`),
  readBack,
});

export const TAG_CLAIMS: TagClaim[] = [
  claim("get-blob"),
  claim("get-blob-properties"),
  claim("get-blob-metadata"),
  claim("get-blob-tags"),
  claim("get-block-list"),
  claim("get-page-ranges"),
  claim("put-blob", "content, tags"),
  claim("put-block-list", "committed blocks, content"),
  claim("put-page", "pages"),
  claim("append-block", "length, block count"),
  claim("append-block-from-url", "length, block count"),
  claim("put-page-from-url", "pages"),
  claim("set-blob-properties", "properties"),
  claim("set-blob-metadata", "metadata"),
  claim("delete-blob", "the blob exists"),
  claim("lease-blob", "lease state available"),
  claim("snapshot-blob", "no new snapshot listed"),
  claim("copy-blob", "the destination"),
];

/** A predicate on the tag `state`, as a client writes it. */
export const predicate = (value: string) => `"state" = '${value}'`;
