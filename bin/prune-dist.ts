// The last step of `npm run build`: removes from dist/ what no source makes
// any more (a file moved or deleted since the last build). The build is
// incremental and tsc never deletes an output, so without this a moved row
// file would ship twice and register its rows twice. Only stale files go: a
// build running beside this one loses nothing it wrote.
import { existsSync, readdirSync, rmdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { ROOT } from "../fixtures/paths.ts";

const DIST = join(ROOT, "dist");

/** The source a file of dist/ is built from (none for the build's own state). */
function sourceOf(file: string): string | undefined {
  const rel = relative(DIST, file);
  if (rel.endsWith(".tsbuildinfo")) return undefined;
  const base = rel
    .replace(/\.d\.ts$/, ".ts")
    .replace(/\.d\.cts$/, ".cjs")
    .replace(/\.js$/, ".ts");
  return join(ROOT, base);
}

/** Removes stale files below `dir`, then `dir` itself if it is left empty; returns how many files went. */
function prune(dir: string): number {
  let removed = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) removed += prune(path);
    else {
      const source = sourceOf(path);
      if (source && !existsSync(source)) {
        rmSync(path, { force: true });
        removed++;
      }
    }
  }
  if (dir !== DIST && readdirSync(dir).length === 0) rmdirSync(dir);
  return removed;
}

if (existsSync(DIST)) {
  const removed = prune(DIST);
  if (removed) console.log(`dist/: ${removed} file(s) no source makes any more, removed`);
}
