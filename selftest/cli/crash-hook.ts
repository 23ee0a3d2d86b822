// Loaded with `node --import` by the crash self-test: makes writing the JSON
// report throw, standing in for any bug in the suite itself.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const real = fs.writeFileSync;
fs.writeFileSync = function (path: fs.PathOrFileDescriptor, ...rest: unknown[]) {
  if (String(path).endsWith("conformance.json")) throw new TypeError("simulated bug: cannot serialise the report");
  return (real as (...a: unknown[]) => void).call(fs, path, ...rest);
} as typeof fs.writeFileSync;
syncBuiltinESMExports();
