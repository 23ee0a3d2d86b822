#!/usr/bin/env node
// `npm run sweep -- --older-than 2h`: removes what earlier runs left behind on
// a target (a run killed with kill -9, a machine that lost power). Only names
// carrying the suite's run prefix (fixtures/wire/names.ts: "cc" + base36 start time
// + 4 hex) whose embedded start time is older than the given age are touched;
// anything else, including a run still going, is left alone.
// Exit codes: 0 done (or nothing to do), 1 some removals failed, 2 bad input.
import { Command } from "commander";
import dotenv from "dotenv";
import { Clients, DEFAULT_CLIENT_OPTIONS } from "../fixtures/wire/clients.ts";
import { listOurs, removeOurs } from "../fixtures/wire/cleanup.ts";
import { ENV } from "../fixtures/run/config.ts";
import { NAME_PREFIX, prefixTime } from "../fixtures/wire/names.ts";
import { preflight } from "../fixtures/run/preflight.ts";
import { ConfigError, resolveConnectionString, SERVICES, type Service } from "../fixtures/wire/target.ts";
import { parseArgs, runMain, withOneLineErrors } from "./cli-kit.ts";

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
// Run prefixes made before this are not ours (the suite did not exist).
const EPOCH = Date.UTC(2025, 0, 1);

/** Parses `90s`, `45m`, `2h`, `1d`, `1h30m` into milliseconds. */
export function parseAge(text: string): number {
  const t = text.trim().toLowerCase();
  if (!/^(\d+(\.\d+)?[smhd])+$/.test(t)) {
    throw new ConfigError(`--older-than ${JSON.stringify(text)} is not an age like 90s, 45m, 2h, 1d or 1h30m.`);
  }
  let ms = 0;
  for (const m of t.matchAll(/(\d+(?:\.\d+)?)([smhd])/g)) ms += Number(m[1]) * UNITS[m[2]];
  return ms;
}

/** True for a name one of our runs made before `cutoff` (and after the suite existed). */
export function isOldLeftover(name: string, cutoff: number): boolean {
  const made = prefixTime(name)?.getTime();
  return made !== undefined && made >= EPOCH && made < cutoff;
}

const program = withOneLineErrors(
  new Command()
    .name("sweep")
    .description(
      `Removes containers, queues, tables and shares that earlier conformance runs left behind: names starting with the run prefix ("${NAME_PREFIX}" + start time + 4 hex digits) whose start time is older than --older-than. Nothing else is touched. Leases are broken first.`,
    )
    .option("-c, --connection-string <cs>", `target connection string (env ${ENV.connectionString})`)
    .option("--older-than <age>", "minimum age of a run's resources, e.g. 2h, 30m, 1d", "24h")
    .option("-s, --services <list>", "comma-separated services to sweep (default: all the target answers)")
    .option("-n, --dry-run", "list what would be removed, remove nothing")
    .option("--env-file <path>", "dotenv file to read", ".env"),
);

async function main(): Promise<number> {
  const stop = parseArgs(program);
  if (stop !== undefined) return stop;
  const opts = program.opts<{ connectionString?: string; olderThan: string; services?: string; dryRun?: boolean; envFile: string }>();
  dotenv.config({ path: opts.envFile, quiet: true });
  const age = parseAge(opts.olderThan);
  const cs = opts.connectionString ?? process.env[ENV.connectionString];
  if (!cs?.trim()) throw new ConfigError(`sweep needs a target: pass --connection-string or set ${ENV.connectionString}.`);
  let wanted: Service[] = [...SERVICES];
  if (opts.services) {
    wanted = opts.services.split(",").map((s) => s.trim().toLowerCase()) as Service[];
    const bad = wanted.filter((s) => !SERVICES.includes(s));
    if (bad.length) throw new ConfigError(`--services: unknown service ${bad.join(", ")} (choose from ${SERVICES.join(", ")}).`);
  }
  const target = resolveConnectionString(cs);
  const probes = await preflight(target);
  const services = probes.filter((p) => p.available && wanted.includes(p.service)).map((p) => p.service);
  const clients = new Clients(target, DEFAULT_CLIENT_OPTIONS);
  const cutoff = Date.now() - age;
  const match = (name: string) => isOldLeftover(name, cutoff);
  const found = await listOurs(clients, services, NAME_PREFIX, match);
  const count = Object.values(found).flat().length;
  const where = `${target.kind} account ${target.credentials.accountName} (${services.join(", ")})`;
  if (count === 0) {
    console.log(`Nothing to sweep on ${where}: no run-prefixed resource older than ${opts.olderThan}.`);
    return 0;
  }
  for (const [svc, names] of Object.entries(found)) {
    for (const n of names)
      console.log(`${opts.dryRun ? "would remove" : "removing"} ${svc} ${n} (run started ${prefixTime(n)!.toISOString()})`);
  }
  if (opts.dryRun) {
    console.log(`${count} resource(s) older than ${opts.olderThan} on ${where}; dry run, nothing removed.`);
    return 0;
  }
  const done = await removeOurs(clients, services, NAME_PREFIX, match);
  for (const f of done.failed) console.error(`could not remove ${f.name}: ${f.error}`);
  console.log(
    `Swept ${done.removed.length} resource(s) older than ${opts.olderThan} from ${where}${done.failed.length ? `; ${done.failed.length} failed` : ""}.`,
  );
  return done.failed.length ? 1 : 0;
}

await runMain(import.meta.url, main);
