// The holder's lease ID once its lease was broken, on a blob and on a
// container (catalogue L; what Azure is on record answering: Python's
// test_container.test_lease_container_break_period, Delete Container with the
// broken lease's ID → 412 LeaseLost, and test_common_blob
// .test_lease_blob_break_period, Put Blob with it → 412 LeaseLost; a share's
// is file/share-lease/lost-after-break). A write carrying it is refused 412
// LeaseLost, the resource read back unchanged, after a break of a finite and
// of an infinite lease. A row for each resource (lease-state.rows.ts,
// lease-state-container.rows.ts).
import { eachVariation, expectEqual, expectRawStatus } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { answer, claimOn } from "../../fixtures/harness/claims.ts";
import type { RawRequest } from "../../fixtures/wire/raw.ts";
import { propsQuery, type LeaseTarget } from "./lease-kit.ts";
import { leasesInState } from "./lease-setup.ts";
import { RESOURCES } from "./lease-state-kit.ts";
import type { LeaseResource } from "./lease-table.ts";

/** The write each resource is sent with the broken lease's ID. */
const WRITE: Record<LeaseResource, { operation: string; request(x: LeaseTarget, id: string): RawRequest }> = {
  blob: {
    operation: "Put Blob",
    request: (x, id) => ({
      method: "PUT",
      path: x.path,
      headers: { "x-ms-blob-type": "BlockBlob", "x-ms-lease-id": id },
      body: "written with the broken lease's ID",
    }),
  },
  container: {
    operation: "Delete Container",
    request: (x, id) => ({ method: "DELETE", path: x.path, query: { restype: "container" }, headers: { "x-ms-lease-id": id } }),
  },
};

const LOST = { status: 412, code: "LeaseLost" };

/** What a refused write must leave: the resource there, its ETag, and a blob's content. */
async function readBack(t: RowContext, x: LeaseTarget): Promise<{ status: number; etag?: string; content?: string }> {
  const res = await t.raw("blob", { method: "GET", path: x.path, query: propsQuery(x) });
  return { status: res.status, etag: res.headers["etag"], ...(x.kind === "blob" ? { content: res.body } : {}) };
}

async function lostAfterBreak(t: RowContext, resource: LeaseResource): Promise<void> {
  const write = WRITE[resource];
  await eachVariation(
    [false, true].map((finite) => ({
      label: `after a break of ${finite ? "a 60 s" : "an infinite"} lease`,
      run: async () => {
        const [s] = await leasesInState(t, [await RESOURCES[resource].create(t)], "broken", finite);
        const before = await readBack(t, s.x);
        const what = `${write.operation} with the holder's lease ID after a break of ${finite ? "a 60 s" : "an infinite"} lease`;
        t.step(what);
        expectRawStatus(what, await t.raw("blob", write.request(s.x, s.a)), LOST);
        expectEqual(`${what}, refused: the ${resource} read back`, await readBack(t, s.x), before);
      },
    })),
    { together: true },
  );
}

/** The row of a resource: `blob/lease/state/lost-after-break`, `blob/container-lease/state/lost-after-break`. */
export function lostAfterBreakRow(resource: LeaseResource): RowDef {
  const r = RESOURCES[resource];
  const write = WRITE[resource];
  const request = write.request({ kind: resource, path: resource === "blob" ? "/c/b" : "/c" }, "id");
  return {
    id: `${r.prefix}lost-after-break`,
    title: `${write.operation} with the holder's lease ID once its lease was broken (a 60 s and an infinite lease, period 0) → 412 LeaseLost, the ${resource} unchanged`,
    level: "rest",
    source: r.source,
    service: "blob",
    answers: [claimOn("blob", request, { params: { "x-ms-lease-id": "holder" }, lease: "broken" }, [answer(412, "LeaseLost")])],
    run: (t) => lostAfterBreak(t, resource),
  };
}
