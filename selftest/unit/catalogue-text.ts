// The catalogue's own text (catalogue/CATALOGUE.md, the specification's copy):
// self-tests read its tables, so data the suite holds is checked against what
// the specification says rather than against itself.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../fixtures/paths.ts";

export const CATALOGUE_PATH = join(ROOT, "catalogue", "CATALOGUE.md");

export const catalogueText = (): string => readFileSync(CATALOGUE_PATH, "utf8");

/** The cells of the first Markdown table after the first line containing `marker`: its header, then each row (the separator left out). */
export function tableAfter(text: string, marker: string): string[][] {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.includes(marker));
  if (at < 0) throw new Error(`the catalogue has no line with ${JSON.stringify(marker)}`);
  const start = lines.findIndex((l, i) => i >= at && l.startsWith("|"));
  if (start < 0) throw new Error(`no table after ${JSON.stringify(marker)}`);
  const rows: string[][] = [];
  for (const line of lines.slice(start)) {
    if (!line.startsWith("|")) break;
    const cells = line
      .slice(1, line.trimEnd().endsWith("|") ? line.trimEnd().length - 1 : undefined)
      .split("|")
      .map((c) => c.trim());
    if (!cells.every((c) => /^:?-+:?$/.test(c))) rows.push(cells);
  }
  return rows;
}

/** A lease table cell as written: "409 LeaseAlreadyPresent", "202 → Broken", "200 if …", "`disputed` (†)", "—". */
export interface WrittenCell {
  status?: number;
  code?: string;
  after?: string;
  disputed?: boolean;
  none?: boolean;
}

export function readCell(text: string): WrittenCell {
  const t = text.replace(/`/g, "").trim();
  if (t === "—") return { none: true };
  if (t.startsWith("disputed")) return { disputed: true };
  const m = /^(\d{3})(?:\s+([A-Z][A-Za-z]+))?(?:\s*→\s*([A-Za-z]+))?/.exec(t);
  if (!m) throw new Error(`a lease table cell the test cannot read: ${JSON.stringify(text)}`);
  return { status: Number(m[1]), code: m[2], after: m[3]?.toLowerCase() };
}
