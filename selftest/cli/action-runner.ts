// Runs the composite action in action.yml as a GitHub runner would, without
// GitHub: each `run:` step through `bash --noprofile --norc -eo pipefail` in
// its working directory, with its `env:` evaluated, a fresh GITHUB_OUTPUT file
// per step (parsed into steps.<id>.outputs) and one GITHUB_STEP_SUMMARY file
// for all; a failing step skips the rest (the action uses no `if:`). `uses:`
// steps are not run, only recorded with their evaluated `with:`. Only the
// expressions the action uses are understood (inputs.*, github.action_path,
// steps.<id>.outputs.*); anything else throws, so the action cannot grow an
// expression this runner would silently mis-evaluate.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { ROOT } from "../../fixtures/paths.ts";

interface StepDef {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  run?: string;
  shell?: string;
  "working-directory"?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}

export interface ActionDef {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: StepDef[] };
}

export interface StepRun {
  name: string;
  kind: "run" | "uses";
  uses?: string;
  with?: Record<string, string>;
  code?: number | null;
  stdout: string;
  stderr: string;
}

export interface ActionRun {
  steps: StepRun[];
  /** The step that failed (and ended the action), if any. */
  failed?: StepRun;
  outputs: Record<string, string>;
  summary: string;
  workspace: string;
}

export function readAction(path = join(ROOT, "action.yml")): ActionDef {
  return parse(readFileSync(path, "utf8")) as ActionDef;
}

/** Evaluates `${{ … }}` in a string against the context. */
function evaluate(
  text: string,
  ctx: { inputs: Record<string, string>; actionPath: string; steps: Record<string, Record<string, string>> },
): string {
  return String(text).replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => {
    let m: RegExpExecArray | null;
    if ((m = /^inputs\.([\w-]+)$/.exec(expr))) {
      if (!(m[1] in ctx.inputs)) throw new Error(`action.yml uses an undeclared input ${m[1]}`);
      return ctx.inputs[m[1]];
    }
    if (expr === "github.action_path") return ctx.actionPath;
    if ((m = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expr))) return ctx.steps[m[1]]?.[m[2]] ?? "";
    throw new Error(`action.yml uses an expression this runner does not understand: ${expr}`);
  });
}

function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const heredoc = /^([\w-]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2], i + 1);
      out[heredoc[1]] = lines.slice(i + 1, end).join("\n");
      i = end;
      continue;
    }
    const eq = line.indexOf("=");
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

function bash(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["--noprofile", "--norc", "-eo", "pipefail", "-c", script], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Runs the action with these inputs (the rest take their defaults) in a fresh
 * workspace directory. `env` is the runner's environment (PATH, HOME, …).
 */
export async function runAction(
  inputs: Record<string, string>,
  env: Record<string, string>,
  opts: { workspace?: string; timeoutMs?: number } = {},
): Promise<ActionRun> {
  const action = readAction();
  if (action.runs.using !== "composite") throw new Error(`action.yml runs ${action.runs.using}, not composite`);
  for (const k of Object.keys(inputs)) if (!(k in action.inputs)) throw new Error(`no input ${k} in action.yml`);
  const ctx = {
    inputs: Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, inputs[k] ?? String(v.default ?? "")])),
    actionPath: ROOT,
    steps: {} as Record<string, Record<string, string>>,
  };
  const workspace = opts.workspace ?? mkdtempSync(join(tmpdir(), "conformance-action-ws-"));
  const temp = mkdtempSync(join(tmpdir(), "conformance-action-tmp-"));
  const summaryFile = join(temp, "step-summary.md");
  writeFileSync(summaryFile, "");
  const runs: StepRun[] = [];
  let failed: StepRun | undefined;
  for (const [i, step] of action.runs.steps.entries()) {
    if (step.if) throw new Error(`step ${step.name ?? i} has an if:, which this runner does not evaluate`);
    const name = step.name ?? step.id ?? `step ${i + 1}`;
    if (step.uses) {
      runs.push({
        name,
        kind: "uses",
        uses: step.uses,
        with: Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, evaluate(String(v), ctx)])),
        stdout: "",
        stderr: "",
      });
      continue;
    }
    if (step.shell !== "bash") throw new Error(`step ${name}: shell ${step.shell}; the action's run steps use bash`);
    const outputFile = join(temp, `output-${i}`);
    writeFileSync(outputFile, "");
    const stepEnv: NodeJS.ProcessEnv = {
      ...env,
      CI: "true",
      GITHUB_ACTIONS: "true",
      GITHUB_WORKSPACE: workspace,
      GITHUB_ACTION_PATH: ROOT,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      RUNNER_TEMP: temp,
      ...Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, evaluate(String(v), ctx)])),
    };
    const cwd = step["working-directory"] ? evaluate(step["working-directory"], ctx) : workspace;
    const r = await bash(evaluate(step.run!, ctx), cwd, stepEnv, opts.timeoutMs ?? 300_000);
    const run: StepRun = { name, kind: "run", code: r.code, stdout: r.stdout, stderr: r.stderr };
    runs.push(run);
    if (step.id) ctx.steps[step.id] = parseOutputs(readFileSync(outputFile, "utf8"));
    if (r.code !== 0) {
      failed = run;
      break;
    }
  }
  const outputs = Object.fromEntries(Object.entries(action.outputs).map(([k, v]) => [k, evaluate(v.value, ctx)]));
  return { steps: runs, failed, outputs, summary: readFileSync(summaryFile, "utf8"), workspace };
}
