// Mutants generated from the "Returns ETag" column of the seed's tables: T1
// (suites/blob/container-ops-claims.ts), T2 (BLOB_OPS, suites/blob/blob-kit.ts),
// TB (suites/table/entity-ops-claims.ts), and the queue operations, none of
// which returns one (suites/queue/queue-claims.ts, row queue/no-etag). For an
// operation that returns an ETag: a target answering without it, and one
// answering a stale one (the ETag the resource had before its last change;
// an operation that creates the resource has none to answer); for one that
// returns none: a target adding one. Each is killed by the claim's row.
import { BLOB_OPS, BLOB_OPS_PREFIX } from "../../suites/blob/blob-kit.ts";
import { claimOf } from "../../suites/blob/conditional-claims.ts";
import { CONTAINER_OPS, CONTAINER_OPS_PREFIX } from "../../suites/blob/container-ops-claims.ts";
import { QUEUE_OPERATIONS } from "../../suites/queue/queue-claims.ts";
import { ENTITY_OPS, ENTITY_OPS_PREFIX } from "../../suites/table/entity-ops-claims.ts";
import { operationFamily, type Service } from "../../model/result.ts";
import { abortAnswer } from "./blob-kit.ts";
import { pendingCopy } from "./lease-kit.ts";
import { listed, remember, serveStale } from "./etag-kit.ts";
import { operation, type ClaimTable, type Mutant, type ProxyRequest, type ProxyResponse } from "./types.ts";

interface EtagClaim {
  table: string;
  /** The row that checks the claim. */
  row: string;
  operation: string;
  service: Service;
  etag: boolean;
  /** It makes a new resource (no earlier ETag to answer). */
  creates?: boolean;
  /** It acts on a copy still pending, which Azurite never leaves: the proxy keeps copies pending (conditional-claims.ts). */
  pendingCopy?: boolean;
}

const CLAIMS: EtagClaim[] = [
  ...CONTAINER_OPS.map((o) => ({
    table: "T1 Container operations",
    row: `${CONTAINER_OPS_PREFIX}${o.slug}/etag`,
    operation: o.operation,
    service: "blob" as const,
    etag: o.etag,
    creates: o.creates,
  })),
  ...BLOB_OPS.map((o) => ({
    table: "T2 Blob operations",
    row: `${BLOB_OPS_PREFIX}${o.slug}/etag`,
    operation: o.operation,
    service: "blob" as const,
    etag: o.etag,
    pendingCopy: claimOf(`${BLOB_OPS_PREFIX}${o.slug}`).pendingCopy,
  })),
  ...ENTITY_OPS.map((o) => ({
    table: "TB Table entities",
    row: `${ENTITY_OPS_PREFIX}${o.slug}/etag`,
    operation: o.operation,
    service: "table" as const,
    etag: o.etag,
    creates: o.creates,
  })),
  ...QUEUE_OPERATIONS.map((op) => ({
    table: "Q Queue messages",
    row: "queue/no-etag",
    operation: op,
    service: "queue" as const,
    etag: false,
  })),
];

const ok = (res: ProxyResponse) => res.status >= 200 && res.status < 300;
const isOp = (claim: EtagClaim, req: ProxyRequest) => req.service === claim.service && operationFamily(operation(req)) === claim.operation;
const slug = (claim: EtagClaim) => claim.operation.toLowerCase().replace(/[^a-z0-9]+/g, "-");
const FAKE_ETAG = '"0x8DC0FFEE0000042"';

function missing(claim: EtagClaim): Mutant {
  return {
    name: `etag-${slug(claim)}-missing`,
    description: `${claim.operation} answers without an ETag`,
    kills: [claim.row],
    cell: claim.row,
    onResponse(req, res) {
      if (!isOp(claim, req) || !ok(res)) return;
      delete res.headers["etag"];
      const list = listed(res);
      if (!list) return;
      for (const e of list.entities) delete e["odata.etag"];
      res.body = Buffer.from(JSON.stringify(list.body));
    },
  };
}

function stale(claim: EtagClaim): Mutant {
  return {
    name: `etag-${slug(claim)}-stale`,
    description: `${claim.operation} answers the ETag the resource had before its last change`,
    kills: [claim.row],
    cell: claim.row,
    onResponse(req, res, state) {
      remember(req, res, state);
      if (isOp(claim, req) && ok(res)) serveStale(req, res, state);
    },
  };
}

function added(claim: EtagClaim): Mutant {
  const name = `etag-${slug(claim)}-added`;
  const description = `${claim.operation} answers with an ETag where the article says none is returned`;
  // The copy the operation needs is kept pending by the proxy, which answers the operation itself.
  if (claim.pendingCopy)
    return { ...pendingCopy(name, description, [claim.row], (req) => abortAnswer(req, { etag: FAKE_ETAG })), cell: claim.row };
  return {
    name,
    description,
    kills: [claim.row],
    cell: claim.row,
    onResponse(req, res) {
      if (isOp(claim, req) && ok(res)) res.headers["etag"] = FAKE_ETAG;
    },
  };
}

const GENERATED = CLAIMS.map((claim) => ({
  claim,
  mutants: !claim.etag ? [added(claim)] : claim.creates ? [missing(claim)] : [missing(claim), stale(claim)],
}));

export const MUTANTS: Mutant[] = GENERATED.flatMap((g) => g.mutants);

/** The tables these mutants come from: each claim, its row, and its mutants (the self-test checks each claim has one killed). */
export const CLAIM_TABLES: ClaimTable[] = [...new Set(CLAIMS.map((c) => c.table))].map((table) => ({
  table,
  kind: "Returns ETag",
  claims: GENERATED.filter((g) => g.claim.table === table).map((g) => ({
    claim: `${g.claim.operation}: ${g.claim.etag ? "returns an ETag" : "returns no ETag"}`,
    row: g.claim.row,
    mutants: g.mutants.map((m) => m.name),
  })),
}));
