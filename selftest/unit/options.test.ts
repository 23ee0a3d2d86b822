// The run's options are declared once (fixtures/options.ts): the command line,
// the environment, the API's arguments and the defaults all come from that
// table, and .env.example lists its variables.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { assert } from "chai";
import { Command } from "commander";
import { cliArguments } from "../../api.ts";
import { withRunOptions } from "../../bin/cli-kit.ts";
import { resolveConfig, type Flags } from "../../fixtures/run/config.ts";
import { ENV, OPTIONS } from "../../fixtures/options.ts";
import { ROOT } from "../../fixtures/paths.ts";
import type { Service } from "../../fixtures/wire/target.ts";

/** The flags commander gives for these arguments, as bin/conformance.ts reads them. */
function parsed(args: string[]): Flags {
  const command = withRunOptions(new Command()).exitOverride();
  command.parse(args, { from: "user" });
  const opts = command.opts<Flags & { cleanup?: boolean }>();
  return { ...opts, cleanup: opts.cleanup === false ? false : undefined };
}

describe("the run's options, declared once", function () {
  it("an API call's options reach the run's configuration unchanged, through the command line", function () {
    const values = {
      connectionString: "UseDevelopmentStorage=true",
      services: ["blob", "queue"] as Service[],
      grep: "a|b",
      expectations: "none",
      concurrency: 3,
      requestTimeoutMs: 1234,
      maxTries: 2,
      seed: 7,
      cleanup: false,
    };
    const config = resolveConfig(parsed(cliArguments(values, "out")), {});
    assert.deepEqual(config, { ...values, reportDir: "out" });
  });

  it("unset, each option is its variable's value, else the table's default", function () {
    assert.deepEqual(resolveConfig({}, {}), {
      connectionString: undefined,
      reportDir: OPTIONS.reportDir.default,
      services: ["blob", "queue", "table", "file"],
      grep: undefined,
      expectations: undefined,
      concurrency: undefined,
      requestTimeoutMs: OPTIONS.requestTimeoutMs.default,
      maxTries: OPTIONS.maxTries.default,
      cleanup: true,
      seed: undefined,
    });
    const env = { [ENV.maxTries]: "7", [ENV.concurrency]: "auto", [ENV.cleanup]: "false" };
    const config = resolveConfig({}, env);
    assert.deepEqual([config.maxTries, config.concurrency, config.cleanup], [7, undefined, false]);
    assert.equal(resolveConfig(parsed(["--max-tries", "3"]), env).maxTries, 3, "a flag over its variable");
  });

  it("refuses a value out of the table's range, naming the flag or the variable", function () {
    assert.throws(
      () => resolveConfig(parsed(["--max-tries", String(OPTIONS.maxTries.max + 1)]), {}),
      /^--max-tries=11 is out of range \(1–10\)\.$/,
    );
    assert.throws(
      () => resolveConfig({}, { [ENV.requestTimeoutMs]: "100" }),
      /^CONFORMANCE_REQUEST_TIMEOUT_MS=100 is out of range \(500–600000\)\.$/,
    );
  });

  it(".env.example lists every option's variable with its default, and no other run setting", function () {
    const listed = new Map(
      [...readFileSync(join(ROOT, ".env.example"), "utf8").matchAll(/^([A-Z][A-Z0-9_]+)=(.*)$/gm)].map((m) => [m[1], m[2]]),
    );
    listed.delete("CONFORMANCE_DEBUG");
    assert.deepEqual([...listed.keys()].sort(), Object.values(ENV).sort());
    const differ = Object.values(OPTIONS)
      .filter((o) => listed.get(o.env) !== String("default" in o ? o.default : ""))
      .map((o) => `${o.env}=${listed.get(o.env)}`);
    assert.deepEqual(differ, [], "values in .env.example that are not the option's default");
  });
});
