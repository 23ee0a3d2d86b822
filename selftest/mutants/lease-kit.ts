// What lease mutants share: the lease of each blob and container as the target
// sees it (followed from the lease actions the proxy forwards and the lease
// state the target reports on reads: track(), never from the rows' own code),
// and a copy kept pending, since Azurite completes copies at once (so Abort
// Copy Blob could never be tried): pendingCopy() answers Abort Copy Blob
// itself, with the lease the target holds on the destination. With the
// catalogue's rules, that simulation is PENDING_COPY_CONTROL, which the
// mutation self-test runs to show the simulation alone changes no verdict.
// (A helper module: it has no mutants of its own.)
import type { Action } from "../../suites/blob/lease-table.ts";
import { blobOp, errorResponse, type BlobOp } from "./blob-kit.ts";
import { query, segments, type Mutant, type MutantState, type ProxyRequest, type ProxyResponse } from "./types.ts";

export type LeaseState = "available" | "leased" | "breaking" | "broken" | "expired";
/** The lease-state table's columns: the lease states, and an Expired lease whose blob was then written. */
export type Column = LeaseState | "expired-modified";

export interface Tracked {
  state: LeaseState;
  /** The active lease's ID, as granted by the target. */
  holder?: string;
  /** Acquired with a finite duration. */
  finite?: boolean;
  /** x-ms-lease-duration of the acquire. */
  duration?: string;
  /** The blob (or the container's metadata) was written while the lease read Expired (the lease's ID, A, is kept in holder). */
  writtenAfterExpiry?: boolean;
}

export const WRITES: BlobOp[] = ["put-blob", "set-blob-properties", "set-blob-metadata", "put-block", "put-block-list", "put-page"];
export const isLease = (req: ProxyRequest) => req.service === "blob" && req.method === "PUT" && query(req).get("comp") === "lease";
export const isContainer = (req: ProxyRequest) =>
  req.service === "blob" && segments(req).length === 1 && query(req).get("restype") === "container";
export const action = (req: ProxyRequest) => (req.headers["x-ms-lease-action"] ?? "").toLowerCase();
export const ok = (res: ProxyResponse) => res.status >= 200 && res.status < 300;
export const code = (res: ProxyResponse) => res.headers["x-ms-error-code"] ?? /<Code>([^<]+)<\/Code>/.exec(res.body.toString("utf8"))?.[1];
export const keyOf = (req: ProxyRequest) => `lease:${segments(req).join("/")}`;
export const sameId = (a?: string, b?: string) => !!a && !!b && a.toLowerCase() === b.toLowerCase();
export const locked = (t: Tracked) => t.state === "leased" || t.state === "breaking";

export function tracked(req: ProxyRequest, state: MutantState): Tracked {
  return (state.get(keyOf(req)) as Tracked | undefined) ?? { state: "available" };
}

/** Follows the lease of the resource `req` addresses, from the target's own (unmutated) answer. */
export function track(req: ProxyRequest, res: ProxyResponse, state: MutantState): void {
  // A snapshot's or a version's answers are not its base's lease.
  if (req.service !== "blob" || query(req).has("snapshot") || query(req).has("versionid")) return;
  const key = keyOf(req);
  const cur = tracked(req, state);
  if (isLease(req)) {
    if (!ok(res)) return;
    const granted = res.headers["x-ms-lease-id"] ?? req.headers["x-ms-proposed-lease-id"];
    switch (action(req)) {
      case "acquire":
        state.set(key, {
          state: "leased",
          holder: granted,
          finite: (req.headers["x-ms-lease-duration"] ?? "-1") !== "-1",
          duration: req.headers["x-ms-lease-duration"],
        });
        break;
      case "renew":
        state.set(key, { ...cur, state: "leased" });
        break;
      case "change":
        state.set(key, { ...cur, holder: granted });
        break;
      case "release":
        state.set(key, { state: "available" });
        break;
      case "break":
        state.set(key, { ...cur, state: Number(res.headers["x-ms-lease-time"] ?? "0") > 0 ? "breaking" : "broken" });
        break;
    }
    return;
  }
  const containerWrite = isContainer(req) && req.method === "PUT" && query(req).get("comp") === "metadata";
  if (ok(res) && cur.state === "expired" && (WRITES.includes(blobOp(req)!) || containerWrite)) {
    state.set(key, { ...cur, writtenAfterExpiry: true });
    return;
  }
  const reported = res.headers["x-ms-lease-state"];
  if (ok(res) && reported && (req.method === "HEAD" || req.method === "GET")) state.set(key, { ...cur, state: reported as LeaseState });
}

/** The column a request meets: the lease state, or an expired lease whose resource was written since. */
export const columnOf = (lease: Tracked): Column => (lease.writtenAfterExpiry ? "expired-modified" : lease.state);

/** The table's actions a lease request can be, by the ID it carries and the lease's (last) holder. */
export function actionsOf(req: ProxyRequest, lease: Tracked): Action[] {
  const id = req.headers["x-ms-lease-id"];
  const proposed = req.headers["x-ms-proposed-lease-id"];
  const unknown = lease.holder === undefined;
  const byHolder = (who: string | undefined, mine: Action, other: Action): Action[] =>
    unknown ? [mine, other] : sameId(who, lease.holder) ? [mine] : [other];
  switch (action(req)) {
    case "acquire":
      return byHolder(proposed, "acquire-same", "acquire");
    case "renew":
      return byHolder(id, "renew", "renew-other");
    case "change":
      return byHolder(id, "change", "change-other");
    case "release":
      return byHolder(id, "release", "release-other");
    case "break":
      return [Number(req.headers["x-ms-lease-break-period"] ?? "0") === 0 ? "break-0" : "break-period"];
  }
  return [];
}

/**
 * A copy kept pending (Azurite completes copies at once, so Abort Copy Blob
 * could never be tried): Copy Blob answers pending, reads report the copy
 * pending until an Abort Copy Blob, which the proxy answers through `abort`
 * with the lease the target holds on the destination. The same simulation with
 * the catalogue's rules is PENDING_COPY_CONTROL, which the self-test runs to
 * show the simulation alone changes no verdict.
 */
export function pendingCopy(
  name: string,
  description: string,
  kills: string[],
  abort: (req: ProxyRequest, lease: Tracked) => ProxyResponse,
): Mutant {
  const copyKey = (req: ProxyRequest) => `copy:${segments(req).join("/")}`;
  return {
    name,
    description,
    kills,
    onRequest(req, state) {
      if (blobOp(req) !== "abort-copy-blob" || state.get(copyKey(req)) !== "pending") return;
      const answer = abort(req, tracked(req, state));
      if (ok(answer)) state.set(copyKey(req), "aborted");
      return answer;
    },
    onResponse(req, res, state) {
      track(req, res, state);
      const op = blobOp(req);
      if (op === "copy-blob" && res.status === 202) {
        res.headers["x-ms-copy-status"] = "pending";
        state.set(copyKey(req), "pending");
      } else if ((op === "get-blob" || op === "get-blob-properties") && ok(res) && state.has(copyKey(req))) {
        res.headers["x-ms-copy-status"] = state.get(copyKey(req)) as string;
      }
    },
  };
}

export const aborted = (req: ProxyRequest): ProxyResponse => ({
  status: 204,
  headers: { "x-ms-version": req.headers["x-ms-version"] ?? "", date: new Date().toUTCString() },
  body: Buffer.alloc(0),
});

/** Abort Copy Blob as the catalogue has it: the destination's active lease needs its ID; an ID on an unleased blob is refused. */
export function abortAsDocumented(req: ProxyRequest, lease: Tracked): ProxyResponse {
  const id = req.headers["x-ms-lease-id"];
  if (locked(lease) && !id) return errorResponse(req, 412, "LeaseIdMissing");
  if (locked(lease) && !sameId(id, lease.holder)) return errorResponse(req, 412, "LeaseIdMismatchWithBlobOperation");
  if (!locked(lease) && id) return errorResponse(req, 412, "LeaseNotPresentWithBlobOperation");
  return aborted(req);
}

export const ABORT = "blob/lease-ops/abort-copy-blob/";

/** Not a mutant: the pending-copy simulation with no deviation. Every row it names must PASS through it. */
export const PENDING_COPY_CONTROL: Mutant = pendingCopy(
  "leases-state-pending-copy-control",
  "Control: copies kept pending, Abort Copy Blob answered as documented (204, no ETag, conditions ignored, lease honoured)",
  ["blob/blob-ops/abort-copy-blob/", ABORT],
  abortAsDocumented,
);
