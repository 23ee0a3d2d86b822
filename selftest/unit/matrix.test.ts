// The report's matrix is built from the places rows name (model/matrix.ts,
// fillMatrix): a cell's ID is its row's own, a cell several rows stand in names
// their common prefix, finer rows sit inside the cell another row claims, and
// a place that fits no layout is an error, not a silent gap.
import { assert } from "chai";
import { fillMatrix, type MatrixLayout, type MatrixPlace } from "../../model/matrix.ts";

const LAYOUT: MatrixLayout = {
  key: "S",
  title: "A table",
  source: "test",
  order: 1,
  columns: [
    { key: "a", header: "A" },
    { key: "b", header: "B" },
  ],
};
const at = (row: string, column: string, extra: Partial<MatrixPlace> = {}): MatrixPlace[] => [{ section: "S", row, column, ...extra }];
const fill = (rows: { id: string; matrix?: MatrixPlace[] }[], layout: MatrixLayout = LAYOUT) => fillMatrix([layout], rows)[0];

describe("the report's matrix, filled from the rows' places", function () {
  it("puts each row in the cell it names, rows in the order they first appear, and leaves out rows with no place", function () {
    const s = fill([
      { id: "x/two/a", matrix: at("Two", "a", { claim: "Yes" }) },
      { id: "x/one/b", matrix: at("One", "b", { claim: "412" }) },
      { id: "x/unplaced" },
      { id: "x/two/b", matrix: at("Two", "b", { claim: "No" }) },
    ]);
    assert.deepEqual(s.rows, [
      { label: "Two", cells: { a: { claim: "Yes", id: "x/two/a" }, b: { claim: "No", id: "x/two/b" } } },
      { label: "One", cells: { b: { claim: "412", id: "x/one/b" } } },
    ]);
  });

  it("orders the rows as the layout says, whatever order the rows come in", function () {
    const s = fill(
      [
        { id: "x/two", matrix: at("Two", "a", { claim: "Yes" }) },
        { id: "x/one", matrix: at("One", "a", { claim: "Yes" }) },
      ],
      { ...LAYOUT, rowOrder: ["One", "Two"] },
    );
    assert.deepEqual(
      s.rows.map((r) => r.label),
      ["One", "Two"],
    );
  });

  it("names a cell several rows stand in by their common ID prefix, on whole segments", function () {
    const s = fill([
      { id: "f/lease/acquire/infinite", matrix: at("Lease", "a", { claim: "412" }) },
      { id: "f/lease/change", matrix: at("Lease", "a", { claim: "412" }) },
      { id: "f/leases/other", matrix: at("Other", "a", { claim: "Yes" }) },
      { id: "f/leases/other-two", matrix: at("Other", "a", { claim: "Yes" }) },
    ]);
    assert.equal(s.rows[0].cells.a.id, "f/lease");
    assert.equal(s.rows[1].cells.a.id, "f/leases", "not the character prefix f/leases/other");
  });

  it("shows finer rows inside the cell another row claims, in the order they come", function () {
    const s = fill([
      { id: "c/op/conditional/if-match", matrix: at("Op", "b", { sub: "IM" }) },
      { id: "c/op/conditional", matrix: at("Op", "b", { claim: "Yes" }) },
      { id: "c/op/conditional/if-none-match", matrix: at("Op", "b", { sub: "INM" }) },
    ]);
    assert.deepEqual(s.rows[0].cells.b, {
      claim: "Yes",
      id: "c/op/conditional",
      subs: [
        { label: "IM", id: "c/op/conditional/if-match" },
        { label: "INM", id: "c/op/conditional/if-none-match" },
      ],
    });
  });

  it("refuses a place that fits no layout, finer rows in a cell no row claims, two claims for one cell, and a listed row left empty", function () {
    assert.throws(() => fill([{ id: "r", matrix: [{ section: "T", row: "R", column: "a", claim: "Yes" }] }]), /r: .*no section "T"/);
    assert.throws(() => fill([{ id: "r", matrix: at("R", "z", { claim: "Yes" }) }]), /no column "z"/);
    assert.throws(() => fill([{ id: "r", matrix: at("R", "a") }]), /neither a claim nor a sub label/);
    assert.throws(() => fill([{ id: "r/h", matrix: at("R", "a", { sub: "IM" }) }]), /finer rows in S \/ R \/ a, a cell no row claims/);
    assert.throws(
      () =>
        fill([
          { id: "r1", matrix: at("R", "a", { claim: "Yes" }) },
          { id: "r2", matrix: at("R", "a", { claim: "No" }) },
        ]),
      /r2: S \/ R \/ a claims "No", another row "Yes"/,
    );
    assert.throws(
      () => fill([{ id: "r", matrix: at("R", "a", { claim: "Yes" }) }], { ...LAYOUT, rowOrder: ["R", "Gone"] }),
      /S \/ Gone has no cell/,
    );
  });
});
