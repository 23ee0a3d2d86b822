// The concurrency surface (catalogue section S): every (REST operation,
// concurrency parameter) pair the installed SDKs' generated operation specs
// take. This module is the pure part: which parameters count and their kind,
// the pairs of a set of specs, the operation names the surface adds to the
// request classifier's, catalogue/surface.tsv as text, and how two lists of
// pairs differ. Loading the SDKs' specs is fixtures/run/surface.ts; what a
// run sent of the surface is model/surface-coverage.ts.

/** The Service of model/result.ts, restated: result.ts imports this module's types. */
export type SurfaceService = "blob" | "queue" | "table" | "file";

export type SurfaceKind =
  | "condition"
  | "tag predicate"
  | "source condition"
  | "sequence number"
  | "append condition"
  | "lease id"
  | "lease parameter"
  | "queue parameter";

export interface SurfacePair {
  service: SurfaceService;
  /** The REST operation, as the request classifier names its requests, with the surface's variant (surfaceOperationOf). */
  operation: string;
  /** The SDK's generated operation, `<group>.<method>` (`pageBlob.clearPages`). */
  sdkOperation: string;
  /** The header or query parameter, lower case. */
  parameter: string;
  kind: SurfaceKind;
}

/** A pair with the rows that sent it (catalogue/surface.tsv's last column). */
export interface ListedPair extends SurfacePair {
  rows: string[];
}

const CONDITIONS = ["if-match", "if-none-match", "if-modified-since", "if-unmodified-since"];
const LEASE_IDS = ["x-ms-lease-id", "x-ms-source-lease-id"];
const LEASE_PARAMETERS = ["x-ms-lease-duration", "x-ms-proposed-lease-id", "x-ms-lease-break-period"];
const QUEUE_PARAMETERS = ["popreceipt", "visibilitytimeout", "messagettl"];

/** The kind of a concurrency parameter (section S's list), none for any other parameter. */
export function kindOf(parameter: string): SurfaceKind | undefined {
  const p = parameter.toLowerCase();
  if (CONDITIONS.includes(p)) return "condition";
  if (p === "x-ms-if-tags") return "tag predicate";
  if (p.startsWith("x-ms-source-if-")) return "source condition";
  if (p.startsWith("x-ms-if-sequence-number-")) return "sequence number";
  if (p === "x-ms-blob-condition-appendpos" || p === "x-ms-blob-condition-maxsize") return "append condition";
  if (LEASE_IDS.includes(p)) return "lease id";
  if (LEASE_PARAMETERS.includes(p)) return "lease parameter";
  if (QUEUE_PARAMETERS.includes(p)) return "queue parameter";
  return undefined;
}

/** One parameter of a generated operation spec: its wire name, and its value when the spec fixes it. */
export interface SdkParameter {
  name: string;
  constant?: string;
}

/** A generated operation spec, as much of it as names the request and its parameters. */
export interface SdkOperationSpec {
  service: SurfaceService;
  sdkOperation: string;
  method: string;
  /** The path template, e.g. `/{containerName}/{blob}`. */
  path: string;
  query: SdkParameter[];
  headers: SdkParameter[];
}

/**
 * Operations the surface splits where the request classifier names one
 * (fixtures/wire/operations.ts keeps "Put Page" and "Set Blob Properties": the
 * mutants and the pins match those names), by a header the evidence records.
 */
const VARIANTS: { operation: string; variant: (header: (name: string) => string | undefined) => string | undefined }[] = [
  { operation: "Put Page", variant: (h) => (h("x-ms-page-write")?.toLowerCase() === "clear" ? "clear" : "update") },
  {
    operation: "Set Blob Properties",
    variant: (h) =>
      h("x-ms-sequence-number-action") !== undefined
        ? "sequence number"
        : h("x-ms-blob-content-length") !== undefined
          ? "resize"
          : undefined,
  },
];

/** The surface's name for a request the classifier named `operation`: "Put Page" with `x-ms-page-write: clear` is "Put Page (clear)". */
export function surfaceOperationOf(operation: string, header: (name: string) => string | undefined): string {
  const split = VARIANTS.find((v) => v.operation === operation);
  const variant = split?.variant(header);
  return variant ? `${operation} (${variant})` : operation;
}

/** The classifier's name of a surface operation: "Put Page (clear)" → "Put Page"; any other name is the classifier's own. */
export function classifierOperationOf(operation: string): string {
  return VARIANTS.find((v) => operation.startsWith(`${v.operation} (`))?.operation ?? operation;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
export const pairKey = (p: SurfacePair): string => [p.service, p.operation, p.sdkOperation, p.parameter, p.kind].join("\t");

/** Service, operation, parameter, SDK operation: the order of catalogue/surface.tsv. */
export function sortPairs<T extends SurfacePair>(pairs: T[]): T[] {
  return [...pairs].sort(
    (a, b) =>
      compare(a.service, b.service) ||
      compare(a.operation, b.operation) ||
      compare(a.parameter, b.parameter) ||
      compare(a.sdkOperation, b.sdkOperation),
  );
}

/** Every (operation, concurrency parameter) pair of the specs, once, named by `nameOf`. */
export function pairsOfSpecs(specs: SdkOperationSpec[], nameOf: (spec: SdkOperationSpec) => string): SurfacePair[] {
  const out = new Map<string, SurfacePair>();
  for (const spec of specs) {
    const operation = nameOf(spec);
    for (const { name } of [...spec.query, ...spec.headers]) {
      const kind = kindOf(name);
      if (!kind) continue;
      const pair: SurfacePair = { service: spec.service, operation, sdkOperation: spec.sdkOperation, parameter: name.toLowerCase(), kind };
      out.set(pairKey(pair), pair);
    }
  }
  return sortPairs([...out.values()]);
}

/** How a listed surface differs from the derived one: each pair one lacks, in words. */
export function surfaceDifferences(derived: SurfacePair[], listed: SurfacePair[]): string[] {
  const keys = (ps: SurfacePair[]) => new Set(ps.map(pairKey));
  const [d, l] = [keys(derived), keys(listed)];
  return [
    ...[...d].filter((k) => !l.has(k)).map((k) => `missing from the list (the installed SDKs take it): ${k.replace(/\t/g, " | ")}`),
    ...[...l].filter((k) => !d.has(k)).map((k) => `listed, but no installed SDK takes it: ${k.replace(/\t/g, " | ")}`),
  ];
}

export const SURFACE_COLUMNS = ["service", "REST operation", "SDK operation", "parameter", "kind", "rows"];

/** catalogue/surface.tsv: comment lines (`#`), the column names, one pair a line, its rows space-separated. */
export function formatSurface(pairs: ListedPair[], comments: string[]): string {
  const lines = sortPairs(pairs).map((p) =>
    [p.service, p.operation, p.sdkOperation, p.parameter, p.kind, [...p.rows].sort().join(" ")].join("\t"),
  );
  return [...comments.map((c) => `# ${c}`), `# ${SURFACE_COLUMNS.join("\t")}`, ...lines, ""].join("\n");
}

export function parseSurface(text: string): ListedPair[] {
  return text
    .split("\n")
    .filter((l) => l.trim() && !l.startsWith("#"))
    .map((l) => {
      const [service, operation, sdkOperation, parameter, kind, rows = ""] = l.split("\t");
      return {
        service: service as SurfaceService,
        operation,
        sdkOperation,
        parameter,
        kind: kind as SurfaceKind,
        rows: rows.split(" ").filter(Boolean),
      };
    });
}

/**
 * Pairs of the surface a request can carry but no state gives a meaning to
 * (catalogue S), each with why: listed in catalogue/surface.tsv with no row,
 * and reported as not applicable rather than unsent.
 */
export const NOT_APPLICABLE: { service: SurfaceService; operation: string; parameter: string; why: string }[] = [
  {
    service: "file",
    operation: "Rename Directory",
    parameter: "x-ms-source-lease-id",
    why: "directories take no lease, so the source lease ID has no state to test (catalogue S, Files)",
  },
];

/** Why a pair is not applicable, if it is not. */
export const notApplicable = (p: Pick<SurfacePair, "service" | "operation" | "parameter">): string | undefined =>
  NOT_APPLICABLE.find((n) => n.service === p.service && n.operation === p.operation && n.parameter === p.parameter)?.why;

/** Why a pair was not sent in a run (reporters/SCHEMA.md). */
export type NotSentReason = "NOT_APPLICABLE" | "NOT_AVAILABLE" | "UNSUPPORTED" | "PRECONDITION_FAILED" | "NOT_RUN" | "NO_ROW";

/** One pair in a report: what this run sent of it. */
export interface SurfaceEntry extends SurfacePair {
  /** Whether an exchange of this run carried the parameter on the operation. */
  sent: boolean;
  /** The rows whose evidence carried it. */
  rows: string[];
  /** Whether an exchange carrying it was refused as its kind refuses, with no other parameter it carried able to explain the refusal. */
  refusedAlone: boolean;
  /** The rows with such an exchange. */
  refusedBy?: string[];
  /** Why it was not sent. */
  notSentBecause?: NotSentReason;
  /**
   * Sent, not refused on its own: the rows that sent it and did not pass (a
   * target answering otherwise than the kind's refusal fails them), with their
   * status; none where every such row passed (the refusal is another kind's too).
   */
  notRefusedIn?: Record<string, string>;
}

/** A report's `surface`: every pair of the surface and what the run sent of it. */
export interface SurfaceCoverage {
  pairs: number;
  sent: number;
  refusedAlone: number;
  entries: SurfaceEntry[];
}
