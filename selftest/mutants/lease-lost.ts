// Mutants for the holder's ID once its lease was broken
// (suites/blob/lease-lost.ts): a target that still honours it (the write
// applied, as if the lease were held), and one that answers it with another
// code than 412 LeaseLost. The lease each resource holds is followed from the
// target's own answers (lease-kit.ts track).
import { blobOp } from "./blob-kit.ts";
import { isContainer, sameId, track, tracked } from "./lease-kit.ts";
import { errorAnswer, type Mutant, type ProxyRequest } from "./types.ts";

const ROWS = ["blob/lease/state/lost-after-break", "blob/container-lease/state/lost-after-break"];

/** Put Blob or Delete Container carrying the broken lease's holder's ID. */
function withBrokenHolder(req: ProxyRequest, state: Parameters<typeof tracked>[1]): boolean {
  const write = blobOp(req) === "put-blob" || (isContainer(req) && req.method === "DELETE");
  const lease = tracked(req, state);
  return write && lease.state === "broken" && sameId(req.headers["x-ms-lease-id"], lease.holder);
}

export const MUTANTS: Mutant[] = [
  {
    name: "lease-lost-holder-still-honoured",
    description:
      "Once a lease is broken, a write with its holder's ID is applied as if the lease were still held (Put Blob 201, Delete Container 202), not refused 412 LeaseLost",
    kills: ROWS,
    onRequest(req, state) {
      if (withBrokenHolder(req, state)) delete req.headers["x-ms-lease-id"];
    },
    onResponse: track,
  },
  {
    name: "lease-lost-answered-as-mismatch",
    description:
      "Once a lease is broken, a write with its holder's ID is refused 412 LeaseIdMismatchWith…Operation, not LeaseLost (the state unchanged)",
    kills: ROWS,
    onRequest(req, state) {
      if (withBrokenHolder(req, state))
        return errorAnswer(req, 412, isContainer(req) ? "LeaseIdMismatchWithContainerOperation" : "LeaseIdMismatchWithBlobOperation");
    },
    onResponse: track,
  },
];
