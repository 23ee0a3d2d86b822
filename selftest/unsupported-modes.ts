// Half-featured targets: the proxy answers one family of operations with
// 501 NotImplemented, as a young emulator does. Each mode names the
// operations (or families, fixtures/wire/operations.ts) it lacks; the same names
// pin it in an expectation file's `unsupported`.
import { operationFamily } from "../model/result.ts";
import { operation, type ProxyRequest } from "./mutants/types.ts";

export interface UnsupportedMode {
  name: string;
  description: string;
  /** Operations or families the target does not implement. */
  operations: string[];
}

export const UNSUPPORTED_MODES: UnsupportedMode[] = [
  { name: "page-blobs", description: "no page blobs", operations: ["Put Blob (PageBlob)", "Put Page", "Get Page Ranges"] },
  { name: "snapshot-blob", description: "no Snapshot Blob", operations: ["Snapshot Blob"] },
  { name: "lease-container", description: "no container leases", operations: ["Lease Container"] },
  { name: "table-batch", description: "no entity group transactions", operations: ["Entity Group Transaction"] },
  { name: "update-message", description: "no Update Message", operations: ["Update Message"] },
];

/** Whether an operation is one the mode lacks (by name or family). */
export const lacks = (mode: UnsupportedMode, operation: string): boolean =>
  mode.operations.includes(operation) || mode.operations.includes(operationFamily(operation));

/** The proxy's `unsupported` option for a mode. */
export const unsupportedBy =
  (mode: UnsupportedMode) =>
  (req: ProxyRequest): boolean =>
    lacks(mode, operation(req));
