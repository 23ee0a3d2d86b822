// Mutants for the T2 blob-operation `rest` rows no blob-ops mutant named
// (suites/blob/blob-ops-copy.rows.ts, suites/blob/blob-ops-rest.rows.ts). Most
// of these rows are pinned on Azurite: their mutant either adds a deviation
// that makes them fail differently, or answers as the catalogue does so the
// pin turns UNEXPECTED_PASS (said so in the description).
import { blobOp, errorResponse, ok } from "./blob-kit.ts";
import type { Mutant, ProxyRequest, ProxyResponse } from "./types.ts";

const P = "blob/blob-ops/";

const code = (res: ProxyResponse) => res.headers["x-ms-error-code"] ?? /<Code>([^<]+)<\/Code>/.exec(res.body.toString("utf8"))?.[1];
const hasSourceCondition = (req: ProxyRequest) => Object.keys(req.headers).some((h) => h.startsWith("x-ms-source-if-"));
const hasDestinationCondition = (req: ProxyRequest) =>
  ["if-match", "if-none-match", "if-modified-since", "if-unmodified-since"].some((h) => h in req.headers);

/** Rewrites a ConditionNotMet refusal's code (header and body). */
function recode(res: ProxyResponse, to: string): void {
  if (res.status !== 412 || code(res) !== "ConditionNotMet") return;
  res.headers["x-ms-error-code"] = to;
  res.body = Buffer.from(res.body.toString("utf8").split("ConditionNotMet").join(to));
}

export const MUTANTS: Mutant[] = [
  {
    name: "blob-ops-extra-copy-ignores-source-if-none-match",
    description: "Copy Blob ignores x-ms-source-if-none-match (stripped before forwarding: the copy goes ahead)",
    kills: [`${P}copy-blob/source-conditional/if-none-match`],
    onRequest(req) {
      if (blobOp(req) === "copy-blob") delete req.headers["x-ms-source-if-none-match"];
    },
  },
  {
    name: "blob-ops-extra-copy-if-none-match-only-star",
    description: "Copy Blob evaluates If-None-Match on the destination only for *: an ETag value never matches (the copy goes ahead)",
    kills: [`${P}copy-blob/destination-conditional/if-none-match`],
    onRequest(req) {
      if (blobOp(req) === "copy-blob" && req.headers["if-none-match"] && req.headers["if-none-match"] !== "*")
        delete req.headers["if-none-match"];
    },
  },
  {
    name: "blob-ops-extra-copy-source-code-specific",
    description:
      "Azurite's pinned deviation absent: a failing source condition on Copy Blob is refused with SourceConditionNotMet (the pin must turn UNEXPECTED_PASS)",
    kills: [`${P}copy-blob/source-conditional/error-code`],
    onResponse(req, res) {
      if (blobOp(req) === "copy-blob" && hasSourceCondition(req) && !hasDestinationCondition(req)) recode(res, "SourceConditionNotMet");
    },
  },
  {
    name: "blob-ops-extra-copy-destination-code-specific",
    description:
      "Azurite's pinned deviation absent: a failing destination condition on Copy Blob is refused with TargetConditionNotMet (the pin must turn UNEXPECTED_PASS)",
    kills: [`${P}copy-blob/destination-conditional/error-code`],
    onResponse(req, res) {
      if (blobOp(req) === "copy-blob" && hasDestinationCondition(req) && !hasSourceCondition(req)) recode(res, "TargetConditionNotMet");
    },
  },
  {
    name: "blob-ops-extra-put-blob-if-match-star-literal",
    description:
      "Put Blob compares If-Match: * as a literal ETag, so it is never met: 412 ConditionNotMet whether or not the blob exists (Azurite's pinned deviation on a missing blob turns UNEXPECTED_PASS)",
    kills: [`${P}put-blob/if-match-star-missing-blob`],
    versions: "<3.36.0",
    onRequest(req) {
      if (blobOp(req) === "put-blob" && req.headers["if-match"] === "*") return errorResponse(req, 412, "ConditionNotMet");
    },
  },
  {
    name: "blob-ops-extra-put-blob-if-match-star-creates",
    description:
      "Put Blob ignores If-Match: * (stripped before forwarding), so it creates a missing blob: Azurite's behaviour before 3.36.0, a FAIL where the row passes",
    kills: [`${P}put-blob/if-match-star-missing-blob`],
    versions: ">=3.36.0",
    onRequest(req) {
      if (blobOp(req) === "put-blob" && req.headers["if-match"] === "*") delete req.headers["if-match"];
    },
  },
  {
    name: "blob-ops-extra-reads-ignore-if-match",
    description:
      "Get Blob and Get Blob Properties ignore If-Match (stripped before forwarding; Azurite's pinned 412 on a missing blob becomes 404 and the pins turn UNEXPECTED_PASS)",
    kills: [`${P}get-blob/if-match-missing-blob`, `${P}get-blob-properties/if-match-missing-blob`],
    onRequest(req) {
      const op = blobOp(req);
      if (op === "get-blob" || op === "get-blob-properties") delete req.headers["if-match"];
    },
  },
  {
    name: "blob-ops-extra-get-block-list-etag-only-when-committed",
    description:
      "Azurite's pinned deviation absent: Get Block List answers without an ETag while the blob has no committed block (the pin must turn UNEXPECTED_PASS)",
    kills: [`${P}get-block-list/etag-after-commit`],
    onResponse(req, res) {
      if (blobOp(req) !== "get-block-list" || !ok(res)) return;
      const committed = /<CommittedBlocks>([\s\S]*?)<\/CommittedBlocks>/.exec(res.body.toString("utf8"))?.[1] ?? "";
      if (!committed.includes("<Block>")) delete res.headers["etag"];
    },
  },
];
