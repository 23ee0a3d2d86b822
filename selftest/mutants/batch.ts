// Hand-written mutants of the batch rows (catalogue, X-B). They rewrite the
// sub-responses inside the multipart answer: a refused sub-request reported
// as done, and a batch that reports itself atomic (every sub-request failed
// when one did, although the others were applied).
import { operation, type Mutant, type ProxyRequest, type ProxyResponse } from "./types.ts";

const B = "blob/batch/";
const STATUS_LINE = /HTTP\/1\.1 (\d{3})[^\r\n]*\r\n/g;

const isBatch = (req: ProxyRequest) => operation(req) === "Blob Batch";

/** Rewrites each sub-response's status line (and error code) as `rewrite` says. */
function rewriteSubResponses(
  res: ProxyResponse,
  rewrite: (status: number, all: number[]) => { status: number; code?: string } | undefined,
): void {
  const text = res.body.toString("utf8");
  const all = [...text.matchAll(STATUS_LINE)].map((m) => Number(m[1]));
  const parts = text.split(/(?=HTTP\/1\.1 \d{3})/);
  const out = parts.map((part) => {
    const m = /^HTTP\/1\.1 (\d{3})[^\r\n]*\r\n/.exec(part);
    if (!m) return part;
    const to = rewrite(Number(m[1]), all);
    if (!to) return part;
    const rest = part.slice(m[0].length).replace(/x-ms-error-code: [^\r\n]*\r\n/i, "");
    return `HTTP/1.1 ${to.status} Rewritten\r\n${to.code ? `x-ms-error-code: ${to.code}\r\n` : ""}${rest}`;
  });
  res.body = Buffer.from(out.join(""));
  res.headers["content-length"] = String(res.body.length);
}

export const MUTANTS: Mutant[] = [
  {
    name: "batch-refused-sub-reported-done",
    description: "A batch reports a refused sub-request (412) as done (202)",
    kills: [`${B}sub-if-match`, `${B}sub-lease`],
    onResponse(req, res) {
      if (isBatch(req)) rewriteSubResponses(res, (status) => (status === 412 ? { status: 202 } : undefined));
    },
  },
  {
    name: "batch-done-sub-reported-refused",
    description:
      "A batch reports sub-requests that succeeded with 200 (Set Blob Tier) as refused (412 ConditionNotMet), though they were applied",
    kills: [`${B}sub-set-tier-if-tags`],
    onResponse(req, res) {
      if (isBatch(req)) rewriteSubResponses(res, (status) => (status === 200 ? { status: 412, code: "ConditionNotMet" } : undefined));
    },
  },
  {
    name: "batch-reports-atomic",
    description: "A batch reports every sub-request failed (412) when one did, although the others were applied",
    kills: [`${B}not-atomic`],
    onResponse(req, res) {
      if (isBatch(req))
        rewriteSubResponses(res, (status, all) =>
          status < 300 && all.some((s) => s >= 400) ? { status: 412, code: "ConditionNotMet" } : undefined,
        );
    },
  },
];
