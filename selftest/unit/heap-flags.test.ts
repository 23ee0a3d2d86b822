// `npm test` runs the suite with the V8 flags fixtures/heap.ts names (the
// bench measures it with them): package.json's script spells them out.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { assert } from "chai";
import { SUITE_NODE_FLAGS } from "../../fixtures/heap.ts";
import { ROOT } from "../../fixtures/paths.ts";

describe("the suite's V8 flags (fixtures/heap.ts)", function () {
  it("are those of package.json's test script, before the suite loads", function () {
    const script = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.test;
    assert.equal(script, `node ${SUITE_NODE_FLAGS.join(" ")} --import tsx bin/conformance.ts`);
  });
});
