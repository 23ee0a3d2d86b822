// Mutants generated from the append conditions (suites/blob/append.rows.ts, APPEND_CLAIMS):
// per claim, a target that ignores the condition, one that refuses with
// another code, and one that refuses a holding value. Claims on an operation
// the embedded Azurite does not implement (Append Block From URL) have rows
// that are UNSUPPORTED there, so no mutant of them could be seen to be killed:
// they are left out, and listed as such.
import { A, APPENDPOS } from "../../suites/blob/append-claims.ts";
import { APPEND_CLAIMS } from "../../suites/blob/append.rows.ts";
import { conditionMutants } from "./condition-kit.ts";
import { operation, toSuccess, type ClaimTable, type Mutant, type ProxyRequest } from "./types.ts";

/** Operations the embedded Azurite answers 501. */
export const EMBEDDED_LACKS = ["Append Block From URL"];

const claims = APPEND_CLAIMS.filter((c) => !EMBEDDED_LACKS.includes(c.operation)).map((c) => ({
  claim: c,
  mutants: conditionMutants({ ...c, name: `append-${c.row.slice("blob/append/".length).replace(/\//g, "-")}`, status: 412 }),
}));

const isSeal = (req: ProxyRequest) => operation(req) === "Append Blob Seal";

/** Hand-written: what no condition claim states (the seal's rules, a condition beside If-Match). */
const HAND: Mutant[] = [
  {
    name: "append-if-match-ignored-beside-appendpos",
    description: "Append Block evaluates only appendpos when both it and If-Match are sent (If-Match stripped)",
    kills: [`${A}appendpos/stale-if-match`],
    onRequest(req) {
      if (operation(req) === "Append Block" && req.headers[APPENDPOS] !== undefined) delete req.headers["if-match"];
    },
  },
  {
    name: "append-sealed-blob-accepts-append",
    description: "Append Block on a sealed blob answers 201 (its 409 BlobIsSealed turned into a success)",
    kills: [`${A}seal/refuses-append`],
    onResponse(req, res) {
      if (operation(req) === "Append Block" && res.headers["x-ms-error-code"] === "BlobIsSealed") toSuccess(res, 201);
    },
  },
  {
    name: "append-seal-not-applied",
    description: "Append Blob Seal answers 200 but seals nothing (answered without forwarding)",
    kills: [`${A}seal/refuses-append`, `${A}seal/idempotent`],
    onRequest(req) {
      if (isSeal(req))
        return {
          status: 200,
          headers: { "x-ms-version": req.headers["x-ms-version"] ?? "", date: new Date().toUTCString() },
          body: Buffer.alloc(0),
        };
    },
  },
  {
    name: "append-seal-answers-unread-etag",
    description: "Append Blob Seal answers a new ETag that no later read returns",
    kills: [`${A}seal/etag`],
    onResponse(req, res) {
      if (isSeal(req) && res.status === 200) {
        res.headers["etag"] = '"0x8DEADBEEF000000"';
      }
    },
  },
];

export const MUTANTS: Mutant[] = [...claims.flatMap((c) => c.mutants), ...HAND];

export const CLAIM_TABLES: ClaimTable[] = [
  {
    table: "X-A Append blobs",
    kind: "append conditions",
    claims: claims.map(({ claim, mutants }) => ({
      claim: `${claim.operation}, ${claim.header}`,
      row: claim.row,
      mutants: mutants.map((m) => m.name),
    })),
  },
];
