// The lease model's reference (suites/blob/lease-reference.ts) without a
// target: its lease actions are the outcome table, cell by cell, on blobs and
// on containers; its writes and reads follow each resource's lease-ops rules;
// time moves a lease through its end by the server's clock.
import { strict as assert } from "node:assert";
import { ACTIONS, cellOf, columnsOf, type Action, type Column } from "../../suites/blob/lease-table.ts";
import { expectedAnswers, MARGIN_MS, settle, stepModel, type LeaseCommand, type LeaseModel } from "../../suites/blob/lease-reference.ts";

const T0 = Date.parse("2026-11-25T12:00:00Z");

function model(resource: LeaseModel["resource"], state: Column, extra: Partial<LeaseModel> = {}): LeaseModel {
  return { resource, state, holder: state === "available" ? undefined : "L1", finite: false, content: "v1", etag: '"e1"', stale: '"e0"', ...extra };
}

/** The request of each table action by L1 (the holder, A) or L2 (another ID, B). */
const COMMAND: Record<Action, LeaseCommand> = {
  acquire: { kind: "lease", verb: "acquire", id: "L2", duration: -1 },
  "acquire-same": { kind: "lease", verb: "acquire", id: "L1", duration: -1 },
  renew: { kind: "lease", verb: "renew", id: "L1" },
  "renew-other": { kind: "lease", verb: "renew", id: "L2" },
  change: { kind: "lease", verb: "change", id: "L1" },
  "change-other": { kind: "lease", verb: "change", id: "L2" },
  release: { kind: "lease", verb: "release", id: "L1" },
  "release-other": { kind: "lease", verb: "release", id: "L2" },
  "break-0": { kind: "lease", verb: "break", id: "L1", breakPeriod: 0 },
  "break-period": { kind: "lease", verb: "break", id: "L1", breakPeriod: 15 },
};

const answer = { headers: { etag: '"e2"' }, body: "" };

describe("the lease model's reference: a pure step function over the lease table", function () {
  for (const resource of ["blob", "container"] as const) {
    it(`answers every ${resource} cell as the table says (status, code, state after, holder)`, function () {
      let cells = 0;
      for (const action of ACTIONS)
        for (const column of columnsOf(resource, action)) {
          const cell = cellOf(resource, action, column)!;
          const got = expectedAnswers(model(resource, column), COMMAND[action]);
          assert.deepEqual(
            got.map((e) => [e.status, e.codes?.[0]]),
            cell.outcomes.map((o) => [o.status, o.code]),
            `${resource} ${action}/${column}`,
          );
          for (const [i, e] of got.entries()) {
            const o = cell.outcomes[i];
            const after = e.next(answer, T0).map((m) => m.state);
            assert.deepEqual(after, Array.isArray(o.after) ? o.after : [o.after], `${resource} ${action}/${column}: state after`);
            if (o.holder) assert.ok(e.next(answer, T0).every((m) => m.holder === (o.holder === "A" ? "L1" : "L2")), `${resource} ${action}/${column}: holder`);
          }
          cells++;
        }
      assert.equal(cells, resource === "blob" ? 56 : 53);
    });
  }

  it("has no answer where the table has no cell (a container's release after a write)", function () {
    assert.deepEqual(expectedAnswers(model("container", "expired-modified"), COMMAND.release), []);
    assert.equal(expectedAnswers(model("blob", "expired-modified"), COMMAND["renew-other"]).length, 1);
  });

  it("moves a finite lease through its end by the server's clock, either side allowed near it", function () {
    const [leased] = stepModel(model("blob", "available"), { kind: "lease", verb: "acquire", id: "L1", duration: 15 }, T0, 201, undefined, answer);
    assert.equal(leased.state, "leased");
    assert.equal(leased.endsAt, T0 + 15_000);
    assert.deepEqual(settle(leased, T0 + 15_000 - MARGIN_MS - 1).map((m) => m.state), ["leased"]);
    assert.deepEqual(settle(leased, T0 + 15_000).map((m) => m.state), ["leased", "expired"]);
    assert.deepEqual(settle(leased, T0 + 15_000 + MARGIN_MS).map((m) => m.state), ["expired"]);
    // A renew answered past the end is judged against the expired lease: 200, leased again for 15 s.
    const [renewed] = stepModel(leased, { kind: "lease", verb: "renew", id: "L1" }, T0 + 20_000, 200, undefined, answer);
    assert.equal(renewed.state, "leased");
    assert.equal(renewed.endsAt, T0 + 35_000);
  });

  it("after an expired lease's resource is written, renew A differs by resource as the catalogue says (blob 409, container disputed)", function () {
    const write: LeaseCommand = { kind: "write", condition: "none", content: "v2" };
    const blob = stepModel(model("blob", "expired"), write, T0, 201, undefined, answer);
    assert.deepEqual(blob.map((m) => [m.state, m.etag]), [["expired-modified", '"e2"']]);
    const renew: LeaseCommand = { kind: "lease", verb: "renew", id: "L1" };
    assert.deepEqual(expectedAnswers(blob[0], renew).map((e) => [e.status, e.codes]), [[409, ["LeaseIdMismatchWithLeaseOperation"]]]);
    const container = stepModel(model("container", "expired"), write, T0, 200, undefined, answer);
    assert.deepEqual(container.map((m) => m.state), ["expired-modified"]);
    assert.deepEqual(expectedAnswers(container[0], renew).map((e) => [e.status, e.codes]), [
      [200, undefined],
      [409, ["LeaseIdMismatchWithLeaseOperation"]],
    ]);
  });

  it("keeps each resource's lease-ops rules: a blob write needs the ID, a container's is shared", function () {
    const none: LeaseCommand = { kind: "write", condition: "none", content: "v2" };
    assert.deepEqual(expectedAnswers(model("blob", "leased"), none).map((e) => [e.status, e.codes]), [[412, ["LeaseIdMissing"]]]);
    assert.deepEqual(expectedAnswers(model("container", "leased"), none).map((e) => e.status), [200]);
    const other: LeaseCommand = { kind: "write", id: "L2", condition: "none", content: "v2" };
    assert.deepEqual(expectedAnswers(model("container", "leased"), other).map((e) => [e.status, e.codes]), [[412, ["LeaseIdMismatchWithContainerOperation"]]]);
    const withId: LeaseCommand = { kind: "read", id: "L1", condition: "none" };
    assert.deepEqual(expectedAnswers(model("container", "available"), withId).map((e) => [e.status, e.codes]), [[412, ["LeaseNotPresentWithContainerOperation"]]]);
    assert.deepEqual(expectedAnswers(model("blob", "available"), withId).map((e) => [e.status, e.codes]), [[412, ["LeaseNotPresentWithBlobOperation"]]]);
    // A refused write leaves the model as it was; a read that succeeds must show the model's content and ETag.
    assert.deepEqual(stepModel(model("blob", "leased"), none, T0, 412, "LeaseIdMissing", answer), [model("blob", "leased")]);
    const read: LeaseCommand = { kind: "read", condition: "none" };
    assert.deepEqual(stepModel(model("blob", "leased"), read, T0, 200, undefined, { headers: { etag: '"e1"' }, body: "v1" }).length, 1);
    assert.deepEqual(stepModel(model("blob", "leased"), read, T0, 200, undefined, { headers: { etag: '"e1"' }, body: "lost" }), []);
  });
});
