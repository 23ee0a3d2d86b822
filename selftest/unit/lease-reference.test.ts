// The lease model's reference (suites/blob/lease-reference.ts) without a
// target: its lease actions are the catalogue's outcome tables, read from the
// catalogue's own text, cell by cell, on blobs and on containers; its writes and reads follow each resource's lease-ops rules;
// time moves a lease through its end by the server's clock.
import { strict as assert } from "node:assert";
import { ACTIONS, cellOf, columnsOf, type Action, type Column, type LeaseResource } from "../../suites/blob/lease-table.ts";
import { catalogueText, readCell, tableAfter, type WrittenCell } from "./catalogue-text.ts";
import { expectedAnswers, MARGIN_MS, settle, stepModel, type LeaseCommand, type LeaseModel } from "../../suites/blob/lease-reference.ts";

const T0 = Date.parse("2026-11-25T12:00:00Z");

function model(resource: LeaseModel["resource"], state: Column, extra: Partial<LeaseModel> = {}): LeaseModel {
  return {
    resource,
    state,
    holder: state === "available" ? undefined : "L1",
    finite: false,
    content: "v1",
    etag: '"e1"',
    stale: '"e0"',
    ...extra,
  };
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

/** How the catalogue's blob table labels its rows (the container table uses the slugs themselves). */
const BLOB_ROW: Record<string, Action> = {
  "acquire (no ID or B)": "acquire",
  "acquire A": "acquire-same",
  "renew A": "renew",
  "renew B": "renew-other",
  "change A→B": "change",
  "change B→C (B not the holder)": "change-other",
  "release A": "release",
  "release B": "release-other",
  "break (period 0)": "break-0",
  "break (period > 0)": "break-period",
};

/** The catalogue's lease table of a resource, as written: action → column → cell. */
function writtenTable(resource: LeaseResource): Map<Action, Map<Column, WrittenCell>> {
  const [head, ...rows] = tableAfter(catalogueText(), resource === "blob" ? "Lease actions × states" : "| Action | `available`");
  const columns = head.slice(1).map(
    (h) =>
      h
        .replace(/`/g, "")
        .replace(/\(A\)$/, "")
        .toLowerCase() as Column,
  );
  const out = new Map<Action, Map<Column, WrittenCell>>();
  for (const [label, ...cells] of rows) {
    const action = resource === "blob" ? BLOB_ROW[label] : (label.replace(/`/g, "") as Action);
    assert.ok(ACTIONS.includes(action), `${resource}: a row of the catalogue's table the test does not know: ${label}`);
    out.set(action, new Map(cells.map((c, i) => [columns[i], readCell(c)])));
  }
  assert.deepEqual([...out.keys()].sort(), [...ACTIONS].sort(), `${resource}: the catalogue's table has every action`);
  return out;
}

/**
 * The blob table's `expired-modified` column is prose: "acquire (no ID, B or A)
 * → 201; renew A → 409 `Code`". The suite's other cells there are the Expired
 * column's refusals (lease-table.ts), which hold whether or not the write made
 * the target forget A's lease.
 */
function blobExpiredModified(written: Map<Action, Map<Column, WrittenCell>>): Map<Action, WrittenCell> {
  const text = catalogueText();
  const para = text.slice(text.indexOf("Expired after a write"), text.indexOf("The row `change B→C`"));
  const acquire = /acquire \(no ID, B or A\) → (\d{3})/.exec(para);
  const renew = /renew A → (\d{3}) `(\w+)`/.exec(para);
  assert.ok(acquire && renew, "the catalogue's paragraph on the expired-modified column reads as the test expects");
  const out = new Map<Action, WrittenCell>(
    ACTIONS.filter((a) => cellOf("blob", a, "expired-modified")).map((a) => [a, { ...written.get(a)!.get("expired")!, after: undefined }]),
  );
  out.set("acquire", { status: Number(acquire[1]) });
  out.set("acquire-same", { status: Number(acquire[1]) });
  out.set("renew", { status: Number(renew[1]), code: renew[2] });
  return out;
}

/** Where the suite's table (and so the reference) departs from what the cell says, if anywhere. */
function departure(resource: LeaseResource, action: Action, column: Column, w: WrittenCell): string | undefined {
  const cell = cellOf(resource, action, column);
  const at = `${resource} ${action}/${column}`;
  if (w.none) return cell ? `${at}: the catalogue has no cell, the suite has one` : undefined;
  if (!cell) return `${at}: the catalogue has a cell, the suite none`;
  if (w.disputed) return cell.level === "disputed" ? undefined : `${at}: disputed in the catalogue, ${cell.level} in the suite`;
  const [o] = cell.outcomes;
  if (cell.outcomes.length !== 1 || o.status !== w.status || o.code !== w.code)
    return `${at}: the catalogue says ${w.status} ${w.code ?? ""}, the suite ${cell.outcomes.map((x) => `${x.status} ${x.code ?? ""}`).join(" or ")}`;
  if (w.after && JSON.stringify(o.after) !== JSON.stringify(w.after))
    return `${at}: the catalogue says → ${w.after}, the suite ${JSON.stringify(o.after)}`;
  const answers = expectedAnswers(model(resource, column), COMMAND[action]).map((e) => `${e.status} ${e.codes?.[0] ?? ""}`);
  if (answers.join() !== `${w.status} ${w.code ?? ""}`) return `${at}: the reference answers ${answers.join(" or ")}`;
  return undefined;
}

describe("the lease model's reference: a pure step function over the lease table", function () {
  for (const resource of ["blob", "container"] as const) {
    it(`answers every ${resource} cell as the catalogue's own table text says (status, code, state after)`, function () {
      const written = writtenTable(resource);
      const cells: [Action, Column, WrittenCell][] = [...written].flatMap(([a, row]) =>
        [...row].map(([c, w]) => [a, c, w] as [Action, Column, WrittenCell]),
      );
      if (resource === "blob") for (const [a, w] of blobExpiredModified(written)) cells.push([a, "expired-modified", w]);
      const departures = cells.map(([a, c, w]) => departure(resource, a, c, w)).filter(Boolean);
      assert.deepEqual(departures, []);
      const suite = ACTIONS.flatMap((a) => columnsOf(resource, a).map((c) => `${a}/${c}`));
      const stated = cells.filter(([, , w]) => !w.none).map(([a, c]) => `${a}/${c}`);
      assert.deepEqual(
        suite.filter((x) => !stated.includes(x)),
        [],
        `${resource}: cells the suite has and the catalogue does not state`,
      );
    });

    it(`states every ${resource} cell's state after and holder as the suite's table does`, function () {
      for (const action of ACTIONS)
        for (const column of columnsOf(resource, action)) {
          const cell = cellOf(resource, action, column)!;
          const got = expectedAnswers(model(resource, column), COMMAND[action]);
          for (const [i, e] of got.entries()) {
            const o = cell.outcomes[i];
            const after = e.next(answer, T0).map((m) => m.state);
            assert.deepEqual(after, Array.isArray(o.after) ? o.after : [o.after], `${resource} ${action}/${column}: state after`);
            if (o.holder)
              assert.ok(
                e.next(answer, T0).every((m) => m.holder === (o.holder === "A" ? "L1" : "L2")),
                `${resource} ${action}/${column}: holder`,
              );
          }
        }
    });
  }

  it("reads a catalogue cell that departs from the suite's table as a departure", function () {
    assert.match(
      departure("blob", "acquire", "leased", { status: 409, code: "LeaseIsBreakingAndCannotBeAcquired" }) ?? "",
      /catalogue says 409 LeaseIsBreaking/,
    );
    assert.match(departure("blob", "break-0", "leased", { status: 202, after: "breaking" }) ?? "", /→ breaking/);
    assert.match(departure("container", "release", "expired-modified", { status: 200 }) ?? "", /the suite none/);
    assert.match(departure("container", "renew", "expired-modified", { status: 200 }) ?? "", /the catalogue says 200/);
    assert.equal(departure("blob", "acquire", "leased", { status: 409, code: "LeaseAlreadyPresent" }), undefined);
  });

  it("has no answer where the table has no cell (a container's release after a write)", function () {
    assert.deepEqual(expectedAnswers(model("container", "expired-modified"), COMMAND.release), []);
    assert.equal(expectedAnswers(model("blob", "expired-modified"), COMMAND["renew-other"]).length, 1);
  });

  it("moves a finite lease through its end by the server's clock, either side allowed near it", function () {
    const [leased] = stepModel(
      model("blob", "available"),
      { kind: "lease", verb: "acquire", id: "L1", duration: 15 },
      T0,
      201,
      undefined,
      answer,
    );
    assert.equal(leased.state, "leased");
    assert.equal(leased.endsAt, T0 + 15_000);
    assert.deepEqual(
      settle(leased, T0 + 15_000 - MARGIN_MS - 1).map((m) => m.state),
      ["leased"],
    );
    assert.deepEqual(
      settle(leased, T0 + 15_000).map((m) => m.state),
      ["leased", "expired"],
    );
    assert.deepEqual(
      settle(leased, T0 + 15_000 + MARGIN_MS).map((m) => m.state),
      ["expired"],
    );
    // A renew answered past the end is judged against the expired lease: 200, leased again for 15 s.
    const [renewed] = stepModel(leased, { kind: "lease", verb: "renew", id: "L1" }, T0 + 20_000, 200, undefined, answer);
    assert.equal(renewed.state, "leased");
    assert.equal(renewed.endsAt, T0 + 35_000);
  });

  it("after an expired lease's resource is written, renew A differs by resource as the catalogue says (blob 409, container disputed)", function () {
    const write: LeaseCommand = { kind: "write", condition: "none", content: "v2" };
    const blob = stepModel(model("blob", "expired"), write, T0, 201, undefined, answer);
    assert.deepEqual(
      blob.map((m) => [m.state, m.etag]),
      [["expired-modified", '"e2"']],
    );
    const renew: LeaseCommand = { kind: "lease", verb: "renew", id: "L1" };
    assert.deepEqual(
      expectedAnswers(blob[0], renew).map((e) => [e.status, e.codes]),
      [[409, ["LeaseIdMismatchWithLeaseOperation"]]],
    );
    const container = stepModel(model("container", "expired"), write, T0, 200, undefined, answer);
    assert.deepEqual(
      container.map((m) => m.state),
      ["expired-modified"],
    );
    assert.deepEqual(
      expectedAnswers(container[0], renew).map((e) => [e.status, e.codes]),
      [
        [200, undefined],
        [409, ["LeaseIdMismatchWithLeaseOperation"]],
      ],
    );
  });

  it("keeps each resource's lease-ops rules: a blob write needs the ID, a container's is shared", function () {
    const none: LeaseCommand = { kind: "write", condition: "none", content: "v2" };
    assert.deepEqual(
      expectedAnswers(model("blob", "leased"), none).map((e) => [e.status, e.codes]),
      [[412, ["LeaseIdMissing"]]],
    );
    assert.deepEqual(
      expectedAnswers(model("container", "leased"), none).map((e) => e.status),
      [200],
    );
    const other: LeaseCommand = { kind: "write", id: "L2", condition: "none", content: "v2" };
    assert.deepEqual(
      expectedAnswers(model("container", "leased"), other).map((e) => [e.status, e.codes]),
      [[412, ["LeaseIdMismatchWithContainerOperation"]]],
    );
    const withId: LeaseCommand = { kind: "read", id: "L1", condition: "none" };
    assert.deepEqual(
      expectedAnswers(model("container", "available"), withId).map((e) => [e.status, e.codes]),
      [[412, ["LeaseNotPresentWithContainerOperation"]]],
    );
    assert.deepEqual(
      expectedAnswers(model("blob", "available"), withId).map((e) => [e.status, e.codes]),
      [[412, ["LeaseNotPresentWithBlobOperation"]]],
    );
    // A refused write leaves the model as it was; a read that succeeds must show the model's content and ETag.
    assert.deepEqual(stepModel(model("blob", "leased"), none, T0, 412, "LeaseIdMissing", answer), [model("blob", "leased")]);
    const read: LeaseCommand = { kind: "read", condition: "none" };
    assert.deepEqual(stepModel(model("blob", "leased"), read, T0, 200, undefined, { headers: { etag: '"e1"' }, body: "v1" }).length, 1);
    assert.deepEqual(stepModel(model("blob", "leased"), read, T0, 200, undefined, { headers: { etag: '"e1"' }, body: "lost" }), []);
  });
});
