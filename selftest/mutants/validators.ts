// Mutants generated from the writes of general/validators-advance
// (suites/general/validator-claims.ts): for each write, a target whose
// validators do not advance with it: the write answers, and reads then show,
// the ETag the resource had before it; or its Last-Modified (an entity's
// Timestamp) stays where it was. Each is killed by the write's row.
import { VALIDATORS_ADVANCE, WRITES, type ValidatorWrite } from "../../suites/general/validator-claims.ts";
import { operationFamily } from "../../model/result.ts";
import { before, remember, resource } from "./etag-kit.ts";
import { operation, type ClaimTable, type Mutant, type MutantState, type ProxyRequest, type ProxyResponse } from "./types.ts";

const ok = (res: ProxyResponse) => res.status >= 200 && res.status < 300;
const isOp = (w: ValidatorWrite, req: ProxyRequest) => req.service === w.service && operationFamily(operation(req)) === w.operation;
const row = (w: ValidatorWrite) => `${VALIDATORS_ADVANCE}/${w.slug}`;

/** A value kept per resource: `from → to` rewrites of what the target answers. */
function aliases(state: MutantState, key: string): Map<string, string> {
  if (!state.has(key)) state.set(key, new Map<string, string>());
  return state.get(key) as Map<string, string>;
}

function etagUnchanged(w: ValidatorWrite): Mutant {
  return {
    name: `validators-${w.slug}-etag-unchanged`,
    description: `${w.operation} leaves the resource's ETag as it was: it answers, and reads then show, the ETag from before`,
    kills: [row(w)],
    cell: row(w),
    onResponse(req, res, state) {
      remember(req, res, state);
      const etag = res.headers["etag"];
      if (!etag || !ok(res)) return;
      const map = aliases(state, `etag alias ${resource(req)}`);
      const old = isOp(w, req) ? before(resource(req), etag, state) : undefined;
      if (old) map.set(etag, map.get(old) ?? old);
      if (map.has(etag)) res.headers["etag"] = map.get(etag)!;
    },
  };
}

/** An entity's Timestamp in a JSON answer; a blob's or container's Last-Modified header. */
function lastModified(req: ProxyRequest, res: ProxyResponse): string | undefined {
  if (req.service !== "table") return res.headers["last-modified"];
  return /"Timestamp"\s*:\s*"([^"]+)"/.exec(res.body.toString("utf8"))?.[1];
}

function setLastModified(req: ProxyRequest, res: ProxyResponse, value: string): void {
  if (req.service !== "table") res.headers["last-modified"] = value;
  else res.body = Buffer.from(res.body.toString("utf8").replace(/("Timestamp"\s*:\s*")[^"]+(")/, `$1${value}$2`));
}

function lastModifiedStuck(w: ValidatorWrite): Mutant {
  return {
    name: `validators-${w.slug}-last-modified-stuck`,
    description: `${w.operation} leaves the resource's ${w.resource === "entity" ? "Timestamp" : "Last-Modified"} where it was`,
    kills: [row(w)],
    cell: row(w),
    onResponse(req, res, state) {
      if (!ok(res)) return;
      const key = resource(req);
      const seen = lastModified(req, res);
      if (isOp(w, req) && state.has(`lm ${key}`)) state.set(`lm stuck ${key}`, state.get(`lm ${key}`));
      if (seen) state.set(`lm ${key}`, seen);
      const stuck = state.get(`lm stuck ${key}`) as string | undefined;
      if (stuck && seen) setLastModified(req, res, stuck);
    },
  };
}

const GENERATED = WRITES.map((w) => ({ w, mutants: [etagUnchanged(w), lastModifiedStuck(w)] }));

export const MUTANTS: Mutant[] = [
  ...GENERATED.flatMap((g) => g.mutants),
  // Hand-picked: the conditional cells build their history on this claim; a target breaking it
  // fails them, naming the claim, instead of leaving them PRECONDITION_FAILED.
  {
    ...etagUnchanged(WRITES.find((w) => w.slug === "set-blob-metadata")!),
    name: "validators-conditional-history-etag-frozen",
    kills: ["blob/blob-ops/put-blob/conditional/if-match"],
    cell: undefined,
  },
];

export const CLAIM_TABLES: ClaimTable[] = [
  {
    table: "G Validators advance",
    kind: "a new ETag, a later Last-Modified",
    claims: GENERATED.flatMap(({ w, mutants }) => [
      { claim: `${w.operation}: a new ETag`, row: row(w), mutants: [mutants[0].name] },
      {
        claim: `${w.operation}: a later ${w.resource === "entity" ? "Timestamp" : "Last-Modified"}`,
        row: row(w),
        mutants: [mutants[1].name],
      },
    ]),
  },
];
