// The README and docs/ say only what is true of the code:
// - every command they show runs with --help and knows every flag it passes,
//   or is marked as an example (a ```sh example block);
// - every figure in the README is in its Figures table with the date and the
//   command it was measured with, and that date is not older than the last
//   commit of the code the command exercises (skipped without git history);
// - the counts it states are the code's (rows, statuses, the package budget);
// - every relative link leads to a file, and every `uses:` of the Action names
//   the repository in package.json.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { assert } from "chai";
import pLimit from "p-limit";
import { loadAllSuites } from "../headless.ts";
import { ROOT } from "../../fixtures/paths.ts";
import { registeredRows } from "../../fixtures/harness/registry.ts";
import { STATUSES } from "../../model/result.ts";
import { UNPACKED_BUDGET_BYTES } from "../cli/package-facts.ts";
import { cleanEnv, collect } from "../cli/cli-kit.ts";

interface Page {
  path: string;
  text: string;
}
interface Command {
  page: string;
  text: string;
}

const PKG = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  name: string;
  bin: Record<string, string>;
  scripts: Record<string, string>;
  repository: { url: string };
};
const pages = (): Page[] =>
  [
    "README.md",
    ...readdirSync(join(ROOT, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ].map((path) => ({
    path,
    text: readFileSync(join(ROOT, path), "utf8"),
  }));

/** The commands a page shows: lines of ```sh blocks (not ```sh example) and inline `npm …`, `npx …`, `node …`. */
export function commandsOf(page: Page): Command[] {
  const out: Command[] = [];
  const blocks = /^```(\w+)([^\n]*)\n([\s\S]*?)^```/gm;
  for (const m of page.text.matchAll(blocks)) {
    if (!["sh", "bash", "shell"].includes(m[1]) || /\bexample\b/.test(m[2])) continue;
    const joined = m[3].replace(/\\\n\s*/g, " ");
    for (const line of joined.split("\n")) {
      const cmd = line.replace(/\s+#.*$/, "").trim();
      if (cmd && !cmd.startsWith("#")) out.push({ page: page.path, text: cmd });
    }
  }
  const prose = page.text.replace(blocks, "");
  for (const m of prose.matchAll(/`((?:npm|npx|node) [^`]+)`/g)) out.push({ page: page.path, text: m[1] });
  return out;
}

/** Splits a command line into words (quotes kept together, quotes removed). */
function words(cmd: string): string[] {
  return [...cmd.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

interface HelpCall {
  /** How --help is asked (none: a script of tools that exists is all there is to check). */
  argv: string[];
  /** The flags the command passes, to be found in its help (none for npm's own commands). */
  flags: string[];
}

const NPM_OWN = new Set(["ci", "i", "install", "pack", "publish", "version"]);

/** The --help invocation a shown command stands for, or an error saying why it cannot be checked. */
export function helpCall(cmd: string): HelpCall | string {
  const w = words(cmd);
  while (w.length && /^[A-Z_][A-Z0-9_]*=/.test(w[0])) w.shift();
  const flagsOf = (args: string[]) => args.filter((a) => /^--[a-z]/.test(a)).map((a) => a.split("=")[0]);
  const [prog, ...rest] = w;
  if (prog === "npm") {
    const sub = rest[0];
    if (NPM_OWN.has(sub)) return { argv: ["npm", sub, "--help"], flags: [] };
    const script = sub === "test" ? "test" : sub === "run" ? rest[1] : undefined;
    if (!script) return `npm ${sub}: not a command of this repository`;
    if (!(script in PKG.scripts)) return `npm run ${script}: no such script in package.json`;
    const dash = rest.indexOf("--");
    const flags = dash < 0 ? [] : flagsOf(rest.slice(dash + 1));
    // A script of tools (tsc, prettier) given no flags: that it exists is the check; with --help appended, `build`
    // would build the package (and race the package self-tests' own builds).
    if (!flags.length && !PKG.scripts[script].startsWith("node --import tsx ")) return { argv: [], flags: [] };
    return { argv: ["npm", "run", "--silent", script, "--", "--help"], flags };
  }
  if (prog === "npx") {
    const args = rest.filter((a) => a !== "--no-install");
    const named = args[0] === "-p" ? args[2] : args[0];
    const bin = PKG.bin[named];
    if (!bin) return `npx ${named}: not a command of this package`;
    const source = bin.replace(/^dist\//, "").replace(/\.js$/, ".ts");
    return { argv: ["node", "--import", "tsx", source, "--help"], flags: flagsOf(args.slice(args[0] === "-p" ? 3 : 1)) };
  }
  if (prog === "node" && rest[0] === "--import" && rest[1] === "tsx" && rest[2]) {
    if (!existsSync(join(ROOT, rest[2]))) return `node … ${rest[2]}: no such file`;
    return { argv: ["node", "--import", "tsx", rest[2], "--help"], flags: flagsOf(rest.slice(3)) };
  }
  return `${prog}: not a command of this repository or npm (mark its block \`\`\`sh example)`;
}

/** The code a figure's command exercises: its figure is stale once any of it is committed after the date. */
const CODE_OF: Record<string, string[]> = {
  "npm test": ["suites", "fixtures", "model", "reporters", "bin/conformance.ts", "package-lock.json"],
  "npm run selftest": ["suites", "fixtures", "model", "reporters", "bin", "selftest", "action.yml", "package-lock.json"],
  "npm pack --dry-run": [
    "suites",
    "fixtures",
    "model",
    "reporters",
    "bin",
    "api.ts",
    "expectations",
    "catalogue",
    "package.json",
    "tsconfig.build.json",
  ],
};

function gitHistory(): boolean {
  try {
    const git = (...a: string[]) =>
      execFileSync("git", a, { cwd: ROOT, stdio: ["ignore", "pipe", "ignore"] })
        .toString()
        .trim();
    return resolve(git("rev-parse", "--show-toplevel")) === resolve(ROOT) && git("rev-parse", "--is-shallow-repository") === "false";
  } catch {
    return false;
  }
}

const lastCommitDay = (paths: string[]): string =>
  execFileSync("git", ["log", "-1", "--format=%cs", "--", ...paths], { cwd: ROOT })
    .toString()
    .trim();

interface Figure {
  what: string;
  value: string;
  date: string;
  command: string;
}

function figures(readme: string): Figure[] {
  const section = readme.split(/^## Figures$/m)[1]?.split(/^## /m)[0] ?? "";
  return section
    .split("\n")
    .filter((l) => l.startsWith("|") && !/^\|\s*(Figure|---)/.test(l))
    .map((l) => {
      const [what, value, date, command] = l
        .split("|")
        .slice(1, 5)
        .map((c) => c.trim());
      return { what, value, date, command: command.replace(/^`|`$/g, "") };
    });
}

const FIGURE = /\b(about |)\d+(\.\d+)?\s?(ms|s|min|MB|kB|GB)\b/g;

describe("documentation: commands, figures and counts true of the code", function () {
  this.timeout(120_000);
  const all = pages();
  const readme = all.find((p) => p.path === "README.md")!.text;

  it("the README fits on a screen or so: at most about 150 lines", function () {
    assert.isAtMost(readme.split("\n").length, 155);
  });

  it("every command in the README and docs/ runs with --help and knows its flags, or is marked as an example", async function () {
    const cmds = all.flatMap(commandsOf);
    assert.isAbove(cmds.length, 20);
    const problems: string[] = [];
    const calls = new Map<string, { call: HelpCall; flags: Set<string>; where: string[] }>();
    for (const c of cmds) {
      const call = helpCall(c.text);
      if (typeof call === "string") {
        problems.push(`${c.page}: \`${c.text}\`: ${call}`);
        continue;
      }
      const key = call.argv.join(" ");
      const entry = calls.get(key) ?? { call, flags: new Set<string>(), where: [] };
      call.flags.forEach((f) => entry.flags.add(f));
      entry.where.push(`${c.page}: \`${c.text}\``);
      calls.set(key, entry);
    }
    const limit = pLimit(3);
    await Promise.all(
      [...calls.values()]
        .filter((e) => e.call.argv.length)
        .map((e) =>
          limit(async () => {
            const [cmd, ...args] = e.call.argv;
            const r = await collect(
              spawn(cmd === "node" ? process.execPath : cmd, args, {
                cwd: ROOT,
                env: cleanEnv({ PATH: `${dirname(process.execPath)}:${process.env.PATH}` }),
                stdio: ["ignore", "pipe", "pipe"],
              }),
              60_000,
            );
            if (r.code !== 0)
              problems.push(`${e.call.argv.join(" ")} exits ${r.code} (${e.where[0]}): ${r.stderr.trim().split("\n").at(-1)}`);
            for (const f of e.flags) {
              const flag = new RegExp(`${f}(?![\\w-])`);
              if (!flag.test(r.stdout)) problems.push(`${e.where.find((w) => flag.test(w)) ?? e.where[0]}: ${f} is not in its --help`);
            }
          }),
        ),
    );
    assert.deepEqual(problems, []);
  });

  it("every figure in the README is in its Figures table, with the date and the command it was measured with", function () {
    const table = figures(readme);
    assert.isAbove(table.length, 0, "a Figures table");
    const problems: string[] = [];
    for (const f of table) {
      if (!/^\d{4}-\d\d-\d\d$/.test(f.date)) problems.push(`${f.what}: no date (${f.date})`);
      if (!(f.command in CODE_OF))
        problems.push(`${f.what}: command \`${f.command}\` is not one whose code this test knows (${Object.keys(CODE_OF).join(", ")})`);
    }
    const outside = readme.replace(/^## Figures$[\s\S]*?(?=^## )/m, "");
    const stated = table.flatMap((f) => [f.value, f.what]).join(" | ");
    for (const m of outside.matchAll(FIGURE)) if (!stated.includes(m[0])) problems.push(`"${m[0]}" is not in the Figures table`);
    assert.deepEqual(problems, []);
  });

  it("no figure in the README is older than the code it describes", function () {
    if (!gitHistory()) this.skip();
    const stale = figures(readme)
      .filter((f) => f.command in CODE_OF)
      .map((f) => ({ f, code: lastCommitDay(CODE_OF[f.command]) }))
      .filter(({ f, code }) => f.date < code)
      .map(({ f, code }) => `${f.what}: measured ${f.date}, its code last changed ${code}: run \`${f.command}\` again`);
    assert.deepEqual(stale, []);
  });

  it("the counts the README states are the code's: rows, statuses, the package budget", async function () {
    await loadAllSuites();
    const rows = registeredRows().length;
    for (const m of readme.matchAll(/\b(\d+)\s+(?:executable\s+)?rows\b/g)) assert.equal(Number(m[1]), rows, `"${m[0]}"`);
    for (const s of STATUSES) assert.include(readme, `| \`${s}\` |`, `status ${s} in the README's table`);
    assert.include(readme, `its budget: ${UNPACKED_BUDGET_BYTES / 1e6} MB`);
  });

  it("every relative link in the README and docs/ leads to a file", function () {
    const broken: string[] = [];
    for (const p of all) {
      const text = p.text.replace(/^```[\s\S]*?^```/gm, "");
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1].split("#")[0];
        if (!target || /^[a-z]+:/.test(target)) continue;
        if (!existsSync(resolve(ROOT, dirname(p.path), target))) broken.push(`${p.path}: ${m[1]}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it("every `uses:` of the Action names the repository in package.json", function () {
    const repo = /github\.com\/([^/]+\/[^/.]+)/.exec(PKG.repository.url)![1];
    const places = [
      ...all.map((p) => ({ path: p.path, text: p.text })),
      ...readdirSync(join(ROOT, ".github", "workflows")).map((f) => ({
        path: f,
        text: readFileSync(join(ROOT, ".github", "workflows", f), "utf8"),
      })),
    ];
    const uses = places.flatMap((p) =>
      [...p.text.matchAll(/uses: ([\w.-]+\/azure-storage-concurrency-conformance)@(\S+)/g)].map((m) => `${p.path}: ${m[1]}@${m[2]}`),
    );
    assert.isAbove(uses.length, 0);
    assert.deepEqual(
      uses.filter((u) => !u.endsWith(`${repo}@v1`)),
      [],
    );
  });
});
