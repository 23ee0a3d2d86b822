// Mutants generated from the operations that take x-ms-if-tags
// (suites/blob/tags-claims.ts): per operation, a target that ignores the
// predicate, one that refuses a false one wrongly (a read with 304, a write
// with another code), and one that refuses a true one too. Operations the
// embedded Azurite answers 501 have UNSUPPORTED rows there and no mutant.
// Hand-written: Set Blob Tags and Get Blob Tags, the copy source's predicate,
// an invalid predicate evaluated.
import { IF_TAGS, T, TAG_CLAIMS } from "../../suites/blob/tags-claims.ts";
import { EMBEDDED_LACKS } from "./append-conditions.ts";
import { conditionMutants } from "./condition-kit.ts";
import { isClaimOp } from "./conditional.ts";
import { errorAnswer, operation, type ClaimTable, type Mutant, type ProxyRequest } from "./types.ts";

const LACKS = [...EMBEDDED_LACKS, "Put Page From URL"];

const claims = TAG_CLAIMS.filter((c) => !LACKS.includes(c.operation)).map((claim) => ({
  claim,
  mutants: conditionMutants({
    row: claim.row,
    name: `tags-${claim.slug}`,
    operation: claim.operation,
    matches: (req) => isClaimOp(claim, req),
    header: IF_TAGS,
    status: 412,
    code: "ConditionNotMet",
    failing: true,
    holding: true,
  }),
}));

const isSetTags = (req: ProxyRequest) => operation(req) === "Set Blob Tags";
const isCopy = (req: ProxyRequest) => operation(req) === "Copy Blob";
const noContent = (req: ProxyRequest) => ({
  status: 204,
  headers: { "x-ms-version": req.headers["x-ms-version"] ?? "", date: new Date().toUTCString() },
  body: Buffer.alloc(0),
});

/** A target that refuses every request of an operation carrying a predicate: the rows Azurite fails at their first step then fail at a later one. */
const refusesEveryPredicate = (name: string, what: string, row: string, is: (req: ProxyRequest) => boolean): Mutant => ({
  name,
  description: `${what} refuses x-ms-if-tags with 412 ConditionNotMet whatever its value, a true one too`,
  kills: [row],
  onRequest(req) {
    if (is(req) && req.headers[IF_TAGS] !== undefined) return errorAnswer(req, 412, "ConditionNotMet");
  },
});

const HAND: Mutant[] = [
  refusesEveryPredicate("tags-set-tags-true-refused", "Set Blob Tags", `${T}if-tags/set-blob-tags`, isSetTags),
  refusesEveryPredicate(
    "tags-set-tier-true-refused",
    "Set Blob Tier",
    `${T}if-tags/set-blob-tier`,
    (req) => operation(req) === "Set Blob Tier",
  ),
  refusesEveryPredicate(
    "tags-metadata-true-refused",
    "Set Blob Metadata",
    `${T}if-tags/with-etag-conditions`,
    (req) => operation(req) === "Set Blob Metadata",
  ),
  {
    name: "tags-find-refused",
    description: "Find Blobs by Tags is refused (403 AuthorizationPermissionMismatch)",
    kills: [`${T}find-blobs-by-tags/eventual`],
    onRequest(req) {
      if (operation(req) === "Find Blobs by Tags") return errorAnswer(req, 403, "AuthorizationPermissionMismatch");
    },
  },
  {
    name: "tags-set-not-applied",
    description: "Set Blob Tags answers 204 but keeps the old tags (answered without forwarding)",
    kills: [`${T}get-tags/strong`, `${T}set-tags/etag-unchanged`],
    onRequest(req) {
      if (isSetTags(req)) return noContent(req);
    },
  },
  {
    name: "tags-set-changes-etag",
    description: "Set Blob Tags moves the blob's ETag (a metadata write of the same metadata goes with it)",
    kills: [`${T}set-tags/etag-unchanged`],
    onRequest(req) {
      // Turn the tag write into a metadata write: the ETag and Last-Modified move, the tags stay.
      if (isSetTags(req) && !req.headers[IF_TAGS]) {
        req.url = req.url.replace("comp=tags", "comp=metadata");
        req.headers["x-ms-meta-state"] = "original";
        req.body = Buffer.alloc(0);
        req.headers["content-length"] = "0";
        delete req.headers["content-type"];
      }
    },
  },
  {
    name: "tags-source-predicate-ignored",
    description: "Copy Blob ignores x-ms-source-if-tags (stripped before forwarding)",
    kills: [`${T}source-if-tags/copy-blob`],
    onRequest(req) {
      if (isCopy(req)) delete req.headers["x-ms-source-if-tags"];
    },
  },
  {
    name: "tags-source-predicate-source-code",
    description: "Copy Blob refuses a false x-ms-source-if-tags with SourceConditionNotMet instead of ConditionNotMet",
    kills: [`${T}source-if-tags/copy-blob`],
    onResponse(req, res) {
      if (isCopy(req) && req.headers["x-ms-source-if-tags"] && res.headers["x-ms-error-code"] === "ConditionNotMet") {
        res.headers["x-ms-error-code"] = "SourceConditionNotMet";
        res.body = Buffer.from(res.body.toString("utf8").replace(/<Code>ConditionNotMet</, "<Code>SourceConditionNotMet<"));
      }
    },
  },
  {
    name: "tags-unquoted-value-evaluated",
    description: "A predicate whose value lacks quotes is evaluated as if quoted, not refused with 400",
    kills: [`${T}if-tags/invalid`],
    onRequest(req) {
      const v = req.headers[IF_TAGS];
      if (v && /= v1$/.test(v)) req.headers[IF_TAGS] = v.replace(/= v1$/, "= 'v1'");
    },
  },
];

export const MUTANTS: Mutant[] = [...claims.flatMap((c) => c.mutants), ...HAND];

export const CLAIM_TABLES: ClaimTable[] = [
  {
    table: "X-T Blob index tag conditions",
    kind: "x-ms-if-tags",
    claims: claims.map(({ claim, mutants }) => ({
      claim: `${claim.operation}, a false predicate → 412`,
      row: claim.row,
      mutants: mutants.map((m) => m.name),
    })),
  },
];
