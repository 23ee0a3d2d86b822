// The whole suite's verdicts on a correct target through the proxy with no
// mutant: the shared external run (cli/external-run.ts: an Azurite of the
// embedded version by connection string, through the proxy), which every
// self-test file that compares a deviating target with a correct one reads.
import type { RowResult } from "../model/result.ts";
import { loadAllSuites } from "../fixtures/harness/registry.ts";
import { externalRun } from "./cli/external-run.ts";
import { readReport } from "./cli/cli-kit.ts";

let results: Promise<RowResult[]> | undefined;

/** The baseline's results, once this process has loaded the suites too (its callers look rows up in the registry). */
export function proxiedBaseline(): Promise<RowResult[]> {
  results ??= Promise.all([externalRun(), loadAllSuites()]).then(([run]) => readReport(run.dir).results);
  return results;
}
