// The module graph: no import cycle anywhere, and each layer imports only the
// layers below it. model/ (the result model) imports nothing of the project;
// reporters/ render the model and import nothing else; the engine and its
// fixtures never import reporters, suites, the CLI or the self-tests (the one
// exception is the run's orchestration, fixtures/run-suite.ts, which writes the
// reports); suites import fixtures and the model only. Imports are read with
// TypeScript's own parser (ts.preProcessFile), type-only imports included.
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
      graph.set(relative(ROOT, file), deps.map((d) => relative(ROOT, resolve(dirname(file), d))));
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

/** What each layer may import (by top directory), beyond itself. */
const MAY_IMPORT: Record<string, string[]> = {
  model: [],
  reporters: ["model"],
  fixtures: ["model"],
  suites: ["fixtures", "model"],
};
/** The run's orchestration: it writes the reports. */
const ORCHESTRATION = new Set(["fixtures/run-suite.ts"]);

describe("module graph", function () {
  const graph = moduleGraph();

  it("reads the project's modules", function () {
    assert.isAbove(graph.size, 50);
    assert.isTrue(graph.get("fixtures/engine.ts")!.includes("model/result.ts"), "the engine imports the result model");
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
    const bad: string[] = [];
    for (const [file, deps] of graph) {
      const layer = file.split("/")[0];
      const allowed = MAY_IMPORT[layer];
      if (!allowed || ORCHESTRATION.has(file)) continue;
      for (const dep of deps) {
        const to = dep.split("/")[0];
        if (to !== layer && !allowed.includes(to)) bad.push(`${file} imports ${dep}`);
      }
    }
    assert.deepEqual(bad, []);
  });
});
