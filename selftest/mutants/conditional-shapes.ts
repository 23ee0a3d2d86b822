// Mutants generated from the shapes of conditional requests
// (suites/blob/conditional-shapes.ts): for each (operation, shape) a target
// that ignores the conditions on that shape (the request's other shapes keep
// them), and for a snapshot's or a version's reads one that evaluates them
// against the base blob's current validators instead of the snapshot's or
// version's own. Shapes the embedded Azurite cannot run (a feature it lacks,
// versioning off) have no mutant: their rows never pass there.
import { operationFamily } from "../../model/result.ts";
import { SHAPES, type ConditionShape, type WireShape } from "../../suites/blob/conditional-shapes.ts";
import { errorResponse } from "./blob-kit.ts";
import { operation, query, segments, type ClaimTable, type Mutant, type MutantState, type ProxyRequest } from "./types.ts";

const CONDITIONS = ["if-match", "if-none-match", "if-modified-since", "if-unmodified-since"];
/** Rows the embedded Azurite cannot pass, with why. */
const CANNOT_PASS: Record<string, string> = {
  "blob/conditional-rules/ranged-read/range-crc64": "Azurite answers the range's CRC64 500 FeatureNotSupported (pinned as unsupported)",
  "blob/conditional-rules/version-read/get-blob": "Azurite has no versioning (NOT_AVAILABLE)",
  "blob/conditional-rules/version-read/get-blob-properties": "Azurite has no versioning (NOT_AVAILABLE)",
};

const wire = (req: ProxyRequest): WireShape => ({
  method: req.method,
  headers: req.headers,
  query: query(req),
  body: req.body.toString("utf8"),
});
const ofShape = (shape: ConditionShape, req: ProxyRequest) =>
  req.service === "blob" && operationFamily(operation(req)) === operationFamily(shape.operation) && shape.marks(wire(req));
const carried = (req: ProxyRequest) => CONDITIONS.filter((h) => req.headers[h] !== undefined);

/** The base blob's validators as its own answers last gave them (a snapshot's or a version's answers left out). */
interface Base {
  etag: string;
  lastModified: number;
}
const baseKey = (req: ProxyRequest) => `shape-base:${segments(req).join("/")}`;
function followBase(req: ProxyRequest, res: { status: number; headers: Record<string, string> }, state: MutantState): void {
  const q = query(req);
  if (req.service !== "blob" || q.has("snapshot") || q.has("versionid") || res.status < 200 || res.status >= 300) return;
  const { etag, "last-modified": lm } = res.headers;
  if (etag && lm && q.get("comp") !== "lease") state.set(baseKey(req), { etag, lastModified: Date.parse(lm) });
}

/** Whether a condition holds on validators (RFC 9110 13.1; catalogue C). */
function holds(h: string, value: string, v: Base): boolean {
  const date = Date.parse(value);
  switch (h) {
    case "if-match":
      return value === "*" || value === v.etag;
    case "if-none-match":
      return value !== "*" && value !== v.etag;
    case "if-modified-since":
      return v.lastModified > date;
    default:
      return v.lastModified <= date;
  }
}

function mutantsOf(shape: ConditionShape): Mutant[] {
  const slug = shape.id.replace("blob/conditional-rules/", "").replace(/\//g, "-");
  const base = { kills: [shape.id], cell: shape.id };
  const ignored: Mutant = {
    ...base,
    name: `shape-${slug}-ignored`,
    description: `${shape.operation} ${shape.shape} ignores its conditions (stripped before forwarding)`,
    onRequest(req) {
      if (ofShape(shape, req)) for (const h of CONDITIONS) delete req.headers[h];
    },
  };
  if (shape.on === "blob") return [ignored];
  const onBase: Mutant = {
    ...base,
    name: `shape-${slug}-on-base`,
    description: `${shape.operation} ${shape.shape} evaluates its conditions against the base blob's current validators`,
    onRequest(req, state) {
      const b = state.get(baseKey(req)) as Base | undefined;
      if (!ofShape(shape, req) || !b || !carried(req).length) return;
      const failing = carried(req).find((h) => !holds(h, req.headers[h], b));
      if (failing) return errorResponse(req, failing === "if-none-match" || failing === "if-modified-since" ? 304 : 412, "ConditionNotMet");
      for (const h of CONDITIONS) delete req.headers[h];
    },
    onResponse: followBase,
  };
  return [ignored, onBase];
}

const generated = SHAPES.filter((s) => !(s.id in CANNOT_PASS)).map((shape) => ({ shape, mutants: mutantsOf(shape) }));

export const MUTANTS: Mutant[] = generated.flatMap((g) => g.mutants);

export const CLAIM_TABLES: ClaimTable[] = [
  {
    table: "C Every shape of a conditional request",
    kind: "a condition on every shape of its operation",
    claims: generated.map(({ shape, mutants }) => ({
      claim: `${shape.operation} ${shape.shape}`,
      row: shape.id,
      mutants: mutants.map((m) => m.name),
    })),
  },
];
