// A finished row's parts of the reports, made as the row ends: its JSON and
// its HTML evidence, the bulk of both files. The run's last rows are long
// waits with the machine idle; the end of the run then only assembles.
import type { RowResult } from "../model/result.ts";
import { resultDetail } from "./html.ts";
import { resultJson } from "./json.ts";

export function renderAhead(r: RowResult): void {
  resultJson(r);
  resultDetail(r);
}
