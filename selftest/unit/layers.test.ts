// The module graph: no import cycle anywhere, and each layer imports only the
// layers below it. model/ (the result model) imports nothing of the project;
// reporters/ render the model and import nothing else; fixtures/ is layered by
// its folders: the leaves at its top (paths.ts, options.ts) import nothing,
// wire/ (talking to a target) the model, harness/ (the row harness) the wire,
// azurite/ (the embedded Azurite) the wire, run/ (the run pipeline) all of
// these; none of them imports reporters, suites, the CLI or the self-tests
// (the one exception is the run's orchestration, fixtures/run/run-suite.ts,
// which writes the reports); suites import the harness, the wire and the
// model only. Imports are read with TypeScript's own parser
// (ts.preProcessFile), type-only imports included.
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { assert } from "chai";
import ts from "typescript";
import { filesEndingWith } from "../../fixtures/paths.ts";
import { ROOT } from "../../fixtures/paths.ts";

const DIRS = ["model", "fixtures", "reporters", "suites", "bin", "bench", "selftest"];

/** Project file → the project files it imports (relative specifiers only). */
function moduleGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const dir of DIRS) {
    for (const file of filesEndingWith(join(ROOT, dir), ".ts")) {
      const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
      const deps = info.importedFiles.map((f) => f.fileName).filter((n) => n.startsWith("."));
      graph.set(
        relative(ROOT, file),
        deps.map((d) => relative(ROOT, resolve(dirname(file), d))),
      );
    }
  }
  return graph;
}

/** Strongly connected components of more than one module, or a module importing itself (Tarjan). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** A file's layer: its top directory, or within fixtures/ its folder ("fixtures" for the leaves at its top). */
export function layerOf(file: string): string {
  const parts = file.split("/");
  return parts[0] === "fixtures" && parts.length > 2 ? `fixtures/${parts[1]}` : parts[0];
}

/** What each layer may import, beyond itself (docs/developing.md, Layout, says the same). */
const MAY_IMPORT: Record<string, string[]> = {
  model: [],
  reporters: ["model"],
  fixtures: [],
  "fixtures/wire": ["fixtures", "model"],
  "fixtures/harness": ["fixtures/wire", "fixtures", "model"],
  "fixtures/azurite": ["fixtures/wire", "fixtures"],
  "fixtures/run": ["fixtures/harness", "fixtures/wire", "fixtures/azurite", "fixtures", "model"],
  suites: ["fixtures/harness", "fixtures/wire", "fixtures", "model"],
};
/** The run's orchestration: it writes the reports. */
const ORCHESTRATION = new Set(["fixtures/run/run-suite.ts"]);

/** The imports that break the layers' rules ("<file> imports <dep>"). */
export function layerViolations(graph: Map<string, string[]>): string[] {
  const bad: string[] = [];
  for (const [file, deps] of graph) {
    const layer = layerOf(file);
    const allowed = MAY_IMPORT[layer];
    if (!allowed || ORCHESTRATION.has(file)) continue;
    for (const dep of deps) {
      const to = layerOf(dep);
      if (to !== layer && !allowed.includes(to)) bad.push(`${file} imports ${dep}`);
    }
  }
  return bad;
}

describe("module graph", function () {
  const graph = moduleGraph();

  it("reads the project's modules", function () {
    assert.isAbove(graph.size, 50);
    assert.isTrue(graph.get("fixtures/harness/engine.ts")!.includes("model/result.ts"), "the engine imports the result model");
  });

  it("has no import cycle", function () {
    assert.deepEqual(cycles(graph), []);
  });

  it("the cycle check finds one (a self-check)", function () {
    const g = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    assert.deepEqual(cycles(g), [["a", "b", "c"]]);
  });

  it("each layer imports only the layers below it; reporters never import the engine", function () {
    assert.deepEqual(layerViolations(graph), []);
  });

  it("every folder of fixtures/ has its rule", function () {
    const folders = new Set([...graph.keys()].filter((f) => f.startsWith("fixtures/")).map(layerOf));
    assert.deepEqual(
      [...folders].filter((l) => !(l in MAY_IMPORT)),
      [],
    );
    assert.includeMembers([...folders], ["fixtures", "fixtures/wire", "fixtures/harness", "fixtures/azurite", "fixtures/run"]);
  });

  it("compat-only code (bin/compat/) serves bin/compat.ts and the self-tests only, so it stays out of the package", function () {
    const users = [...graph].filter(([, deps]) => deps.some((d) => d.startsWith("bin/compat/"))).map(([f]) => f);
    assert.deepEqual(
      users.filter((f) => f !== "bin/compat.ts" && !f.startsWith("bin/compat/") && !f.startsWith("selftest/")),
      [],
    );
    assert.include(users, "bin/compat.ts");
  });

  it("the layer check finds a wire that imports the run, and a suite that imports the run (a self-check)", function () {
    const g = new Map([
      ["fixtures/wire/raw.ts", ["fixtures/run/config.ts", "fixtures/wire/target.ts", "model/result.ts", "fixtures/paths.ts"]],
      ["fixtures/harness/engine.ts", ["fixtures/wire/raw.ts"]],
      ["suites/blob/x.rows.ts", ["fixtures/harness/engine.ts", "fixtures/run/run.ts"]],
      ["fixtures/run/run-suite.ts", ["reporters/json.ts"]],
    ]);
    assert.deepEqual(layerViolations(g), [
      "fixtures/wire/raw.ts imports fixtures/run/config.ts",
      "suites/blob/x.rows.ts imports fixtures/run/run.ts",
    ]);
  });
});
