// Loaded with `node --import` by the crash self-test: makes writing the JSON
// report throw (reporters/json.ts opens conformance.json and writes it part by
// part), standing in for any bug in the suite itself.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const real = fs.openSync;
fs.openSync = function (path: fs.PathLike, ...rest: unknown[]) {
  if (String(path).endsWith("conformance.json")) throw new TypeError("simulated bug: cannot serialise the report");
  return (real as (...a: unknown[]) => number).call(fs, path, ...rest);
} as typeof fs.openSync;
syncBuiltinESMExports();
