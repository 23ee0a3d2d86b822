// How `npm run expectations:update` (expectations-update.ts) rewrites a
// target's expectation files from a run's report:
// - a row that FAILed (observed, before expectations) is pinned with its
//   status and signature; an existing pin keeps its reason and link, a new one
//   gets the reason "TODO: explain"; a pin with no signature (any failure, on
//   purpose) is kept as it is;
// - a row that now passes loses its pin; a pin with a version range
//   (`versions`) is narrowed instead to the versions below the one that passed
//   (the fix is taken to hold from there on), and dropped when nothing is left;
// - a pin whose range leaves the run's version out (the version in the
//   row's service's Server header) is kept as it is, unless the row failed
//   exactly as pinned: then the range is widened by that version (a row that
//   fails differently there is reported as a conflict, for a person);
// - a row that was not run, or ended without a verdict (INCONCLUSIVE,
//   NOT_AVAILABLE, PRECONDITION_FAILED, MANUAL), keeps its pin unchanged;
// - a pin for an ID the suite no longer has (not in the report, not registered
//   by the current suites) is dropped (reported);
// - an operation an UNSUPPORTED row lacks, not pinned yet, is pinned per
//   operation in the main file's `unsupported` (reason "TODO: explain"), and
//   an operation a server fault decided a row by (FAIL with `faults`), in its
//   `faults`; such a row gets no row pin. An operation pin whose operation
//   answered in this run (by exact name or family, within the pin's version
//   range) is dropped.
// Topic files are kept: each pin is rewritten in the file that holds it; a new
// pin goes to the topic file that already pins IDs of the same
// `<service>/<topic>/` prefix, else to the main file. A topic file left with
// no pins is deleted, unless it says what it is about ("about").
import { existsSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Pin, RowResult } from "../fixtures/harness/engine.ts";
import { answeredOperation, type ExpectationFile } from "../fixtures/harness/expectations.ts";
import { ConfigError } from "../fixtures/wire/target.ts";
import { operationPinFor, showSignature, signatureMatches, type OperationPin, type Report } from "../model/result.ts";
import { narrowBelow, pinApplies, pinFor, widenTo } from "../model/versions.ts";

export const TODO_REASON = "TODO: explain";

interface LoadedFile {
  path: string;
  existed: boolean;
  data: ExpectationFile;
}

export interface UpdateSummary {
  added: string[];
  changed: { id: string; from: string; to: string }[];
  /** Pins whose version range was narrowed (passes) or widened (fails as pinned). */
  ranged: { id: string; from: string; to: string }[];
  /** Pins out of the run's version range whose row failed differently: for a person. */
  conflicts: { id: string; versions: string; version?: string; signature?: string }[];
  removed: string[];
  stale: string[];
  /** Operations pinned as unsupported for the first time, and operation pins dropped (the operation answered). */
  addedOperations: string[];
  removedOperations: string[];
  kept: string[];
  todo: string[];
  written: string[];
  deleted: string[];
}
export function readJson<T>(path: string, what: string): T {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as T;
  } catch (err) {
    throw new ConfigError(
      `${what} ${path} cannot be read as JSON (${(err as NodeJS.ErrnoException).code ?? (err as Error).message.split("\n")[0]}).`,
    );
  }
}

/** The main file and its topic files (`<stem>.<topic>.json` beside it). */
export function loadFiles(mainPath: string, targetName: string): LoadedFile[] {
  const dir = dirname(mainPath);
  const stem = basename(mainPath, ".json");
  const files: LoadedFile[] = [
    existsSync(mainPath)
      ? { path: mainPath, existed: true, data: readJson<ExpectationFile>(mainPath, "Expectation file") }
      : { path: mainPath, existed: false, data: { target: targetName, pins: {} } },
  ];
  if (existsSync(dir)) {
    for (const f of readdirSync(dir).sort()) {
      if (f.startsWith(stem + ".") && f.endsWith(".json") && f !== basename(mainPath)) {
        const p = join(dir, f);
        files.push({ path: p, existed: true, data: readJson<ExpectationFile>(p, "Expectation file") });
      }
    }
  }
  for (const f of files) {
    if (!f.data || typeof f.data.pins !== "object" || f.data.pins === null)
      throw new ConfigError(`Expectation file ${f.path} has no "pins" object.`);
  }
  return files;
}

/** A pin in the older text form that the result matches is written in the data form (the same failure). */
const upgraded = (existing: Pin, r: RowResult): Pin["signature"] =>
  typeof existing.signature === "string" && r.failure ? r.failure : existing.signature;

const topicOf = (id: string) => id.split("/").slice(0, 2).join("/") + "/";

/** A pin with its keys in a stable order. */
function makePin(p: Pin): Pin {
  return {
    status: p.status,
    ...(p.versions ? { versions: p.versions } : {}),
    ...(p.signature !== undefined ? { signature: p.signature } : {}),
    reason: p.reason,
    ...(p.link ? { link: p.link } : {}),
  };
}

/**
 * The pin of an ID's entry that a run of this version speaks to (the one
 * whose range covers it, else the first: `pinFor`), and how to replace or
 * drop that one alone: the other pins of a list, for other versions, stay.
 */
function slot(file: LoadedFile, id: string, version: string | undefined): { pin?: Pin; set(p: Pin | undefined): void } {
  const entry = file.data.pins[id];
  const list = Array.isArray(entry) ? entry : entry ? [entry] : [];
  const pin = pinFor(entry, version);
  const at = pin ? list.indexOf(pin) : -1;
  return {
    pin,
    set(p) {
      const next = [...list];
      if (at >= 0) next.splice(at, 1, ...(p ? [p] : []));
      else if (p) next.push(p);
      if (next.length === 0) delete file.data.pins[id];
      else file.data.pins[id] = next.length === 1 ? next[0] : next;
    },
  };
}

/** Where each pinned ID is held (later files win), and the file a new pin of an ID goes to. */
interface Placement {
  owner: Map<string, LoadedFile>;
  home(id: string): LoadedFile;
}

/** Applies one row's result to its pin (summed up in `sum`); `version`: the target's, of the row's service. */
function applyResult(r: RowResult, place: Placement, version: string | undefined, sum: UpdateSummary): void {
  const file = place.owner.get(r.id);
  const held = file ? slot(file, r.id, version) : undefined;
  const existing = held?.pin;
  if (file && existing && !pinApplies(existing, version)) {
    // A pin for other versions: this run says nothing about it, unless the row failed exactly as pinned.
    const same = r.observed === existing.status && signatureMatches(existing.signature, r);
    if (r.observed === "FAIL" && same && version) {
      const to = widenTo(existing.versions!, version);
      sum.ranged.push({ id: r.id, from: existing.versions!, to });
      held!.set(makePin({ ...existing, versions: to, signature: upgraded(existing, r) }));
    } else {
      if (r.observed === "FAIL")
        sum.conflicts.push({ id: r.id, versions: existing.versions!, version, signature: showSignature(r.failure ?? r.signature) });
      sum.kept.push(r.id);
    }
    return;
  }
  if (r.observed === "PASS") {
    if (file && existing) {
      const to = existing.versions && version ? narrowBelow(existing.versions, version) : undefined;
      if (to) {
        sum.ranged.push({ id: r.id, from: existing.versions!, to });
        held!.set(makePin({ ...existing, versions: to }));
      } else {
        held!.set(undefined);
        sum.removed.push(r.id);
      }
    }
  } else if (r.observed === "FAIL" && r.faults?.length) {
    // A server fault decided it: pinned per operation (`faults`, applyOperations); the row's own pin stays.
    if (existing) sum.kept.push(r.id);
  } else if (r.observed === "FAIL" && existing?.status === "FAIL" && existing.signature === undefined) {
    // A pin with no signature holds any failure on purpose (a row whose failing variations depend on the target's timing): kept as it is.
    sum.kept.push(r.id);
  } else if (r.observed === "FAIL") {
    const pin = makePin({
      status: "FAIL",
      versions: existing?.versions,
      signature: r.failure ?? r.signature,
      reason: existing?.reason || TODO_REASON,
      link: existing?.link,
    });
    if (!existing) {
      place.home(r.id).data.pins[r.id] = pin;
      sum.added.push(r.id);
    } else {
      if (existing.status !== pin.status || !signatureMatches(existing.signature, r)) {
        sum.changed.push({
          id: r.id,
          from: `${existing.status}: ${showSignature(existing.signature)}`,
          to: `FAIL: ${showSignature(pin.signature)}`,
        });
      }
      held!.set(pin);
    }
  } else if (existing) {
    sum.kept.push(r.id);
  }
}

/** Drops the pins of IDs the suite no longer has (not in the report, not run, not registered). */
function dropStale(
  files: LoadedFile[],
  byId: Map<string, RowResult>,
  notRun: Set<string>,
  registered: Set<string> | undefined,
  sum: UpdateSummary,
): void {
  for (const f of files) {
    for (const id of Object.keys(f.data.pins)) {
      if (byId.has(id)) continue;
      if (notRun.has(id) || registered?.has(id)) sum.kept.push(id);
      else {
        delete f.data.pins[id];
        sum.stale.push(id);
      }
    }
  }
}

/**
 * Applies a report to loaded expectation files (in place); returns what
 * changed. `versions`: the target's version per service (pins' ranges are
 * matched against it).
 */
export function applyReport(
  files: LoadedFile[],
  report: Pick<Report, "results" | "notRun">,
  registered?: Set<string>,
  versions: Record<string, string> = {},
): UpdateSummary {
  const sum: UpdateSummary = {
    added: [],
    changed: [],
    ranged: [],
    conflicts: [],
    removed: [],
    stale: [],
    addedOperations: [],
    removedOperations: [],
    kept: [],
    todo: [],
    written: [],
    deleted: [],
  };
  // Later files win, as in the loader (topic files are merged over the main file).
  const owner = new Map<string, LoadedFile>();
  for (const f of files) {
    for (const id of Object.keys(f.data.pins)) {
      const prev = owner.get(id);
      if (prev) delete prev.data.pins[id];
      owner.set(id, f);
    }
  }
  const home = (id: string): LoadedFile => {
    const topic = topicOf(id);
    return files.slice(1).find((f) => Object.keys(f.data.pins).some((k) => k.startsWith(topic))) ?? files[0];
  };
  const byId = new Map<string, RowResult>(report.results.map((r) => [r.id, r]));
  const place: Placement = { owner, home };
  for (const r of report.results) applyResult(r, place, versions[r.service], sum);
  dropStale(files, byId, new Set(report.notRun ?? []), registered, sum);
  applyOperations(files, report, versions, sum);
  for (const f of files) {
    f.data.pins = Object.fromEntries(Object.entries(f.data.pins).sort(([a], [b]) => a.localeCompare(b)));
    for (const [id, entry] of Object.entries(f.data.pins))
      if ([entry].flat().some((pin) => pin.reason.startsWith("TODO"))) sum.todo.push(id);
  }
  return sum;
}

/**
 * Per-operation pins: new ones for what UNSUPPORTED rows lack (`unsupported`)
 * and for what a server fault decided (`faults`), none for an operation that
 * answered in this run.
 */
function applyOperations(files: LoadedFile[], report: Pick<Report, "results">, versions: Record<string, string>, sum: UpdateSummary): void {
  const answered = new Map<string, string>();
  for (const r of report.results) for (const ex of r.evidence ?? []) if (answeredOperation(ex)) answered.set(ex.operation!, r.service);
  const kinds = [
    {
      key: "unsupported",
      label: "unsupported",
      status: "UNSUPPORTED",
      met: (r: RowResult) => (r.observed === "UNSUPPORTED" ? r.unsupported : undefined),
    },
    { key: "faults", label: "server fault", status: "FAIL", met: (r: RowResult) => (r.observed === "FAIL" ? r.faults : undefined) },
  ] as const;
  for (const { key, label, status, met } of kinds) {
    const all = (): Record<string, OperationPin> => Object.assign({}, ...files.map((f) => f.data[key] ?? {}));
    for (const f of files) {
      for (const [op, pin] of Object.entries(f.data[key] ?? {})) {
        const seen = [...answered].find(
          ([o, service]) => operationPinFor(o, { [op]: pin }) && pinApplies({ status, ...pin }, versions[service]),
        );
        if (!seen) continue;
        delete f.data[key]![op];
        sum.removedOperations.push(`${label} ${op} (${seen[0]} answered)`);
      }
      if (f.data[key] && Object.keys(f.data[key]!).length === 0) delete f.data[key];
    }
    for (const r of report.results) {
      for (const u of met(r) ?? []) {
        if (operationPinFor(u.operation, all())) continue;
        (files[0].data[key] ??= {})[u.operation] = { reason: TODO_REASON };
        sum.addedOperations.push(`${label} ${u.operation}`);
      }
    }
    for (const f of files) {
      if (f.data[key]) f.data[key] = Object.fromEntries(Object.entries(f.data[key]!).sort(([a], [b]) => a.localeCompare(b)));
      for (const [op, pin] of Object.entries(f.data[key] ?? {})) if (pin.reason.startsWith("TODO")) sum.todo.push(`${label} ${op}`);
    }
  }
}

/** Writes changed files; deletes topic files left empty (those with an "about" stay). */
export function writeFiles(files: LoadedFile[], sum: UpdateSummary): void {
  files.forEach((f, i) => {
    const empty = Object.keys(f.data.pins).length === 0 && !f.data.unsupported && !f.data.faults;
    if (i > 0 && empty && !f.data.about) {
      unlinkSync(f.path);
      sum.deleted.push(f.path);
      return;
    }
    if (i === 0 && empty && !f.existed) return;
    const text = JSON.stringify(f.data, null, 2) + "\n";
    if (f.existed && readFileSync(f.path, "utf8") === text) return;
    writeFileSync(f.path, text);
    sum.written.push(f.path);
  });
}
