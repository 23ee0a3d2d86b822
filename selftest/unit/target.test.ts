// Target resolution (fixtures/wire/target.ts) and run configuration
// (fixtures/run/config.ts): every accepted form, and one clear line for each
// malformed input.
import { assert } from "chai";
import { resolveConfig } from "../../fixtures/run/config.ts";
import { autoConcurrency } from "../../fixtures/run/preflight.ts";
import { ConfigError, DEV_KEY, resolveConnectionString, secretsOf } from "../../fixtures/wire/target.ts";

const KEY = Buffer.from("not-the-dev-key-0123456789abcdef").toString("base64");

function configError(fn: () => unknown, pattern: RegExp): string {
  try {
    fn();
  } catch (err) {
    assert.instanceOf(err, ConfigError, `expected a ConfigError, got ${(err as Error).name}: ${(err as Error).message}`);
    const msg = (err as Error).message;
    assert.notInclude(msg, "\n", "a ConfigError is one line");
    assert.match(msg, pattern);
    assert.notInclude(msg, KEY, "a ConfigError never repeats the key");
    return msg;
  }
  assert.fail(`expected a ConfigError matching ${pattern}`);
}

describe("target resolution", function () {
  it("UseDevelopmentStorage=true: the emulator's well-known account and ports", function () {
    const t = resolveConnectionString("UseDevelopmentStorage=true");
    assert.equal(t.kind, "emulator");
    assert.equal(t.credentials.accountName, "devstoreaccount1");
    assert.equal(t.credentials.accountKey, DEV_KEY);
    assert.deepEqual(t.endpoints, {
      blob: "http://127.0.0.1:10000/devstoreaccount1",
      queue: "http://127.0.0.1:10001/devstoreaccount1",
      table: "http://127.0.0.1:10002/devstoreaccount1",
    });
    const proxied = resolveConnectionString("UseDevelopmentStorage=true;DevelopmentStorageProxyUri=http://emu.local");
    assert.equal(proxied.endpoints.blob, "http://emu.local:10000/devstoreaccount1");
  });

  it("explicit endpoints (an emulator on other ports, keys in any case, trailing slash dropped)", function () {
    const t = resolveConnectionString(
      `defaultendpointsprotocol=http;accountname=devstoreaccount1;ACCOUNTKEY=${DEV_KEY};BlobEndpoint=http://127.0.0.1:41000/devstoreaccount1/;TableEndpoint=http://localhost:41002/devstoreaccount1`,
    );
    assert.equal(t.kind, "emulator");
    assert.equal(t.name, "emulator");
    assert.deepEqual(t.endpoints, { blob: "http://127.0.0.1:41000/devstoreaccount1", table: "http://localhost:41002/devstoreaccount1" });
    assert.equal(t.credentials.accountKey, DEV_KEY);
  });

  it("an emulator on a non-loopback host with the dev account is still an emulator", function () {
    const t = resolveConnectionString(
      `AccountName=devstoreaccount1;AccountKey=${DEV_KEY};BlobEndpoint=http://azurite:10000/devstoreaccount1`,
    );
    assert.equal(t.kind, "emulator");
  });

  it("account + key + suffix: a live account with the four service endpoints", function () {
    const t = resolveConnectionString(
      `DefaultEndpointsProtocol=https;AccountName=myacct;AccountKey=${KEY};EndpointSuffix=core.windows.net`,
    );
    assert.equal(t.kind, "live");
    assert.equal(t.name, "live");
    assert.deepEqual(t.endpoints, {
      blob: "https://myacct.blob.core.windows.net",
      queue: "https://myacct.queue.core.windows.net",
      table: "https://myacct.table.core.windows.net",
      file: "https://myacct.file.core.windows.net",
    });
    assert.deepEqual(secretsOf(t), [KEY], "a real key is a secret to redact");
    const china = resolveConnectionString(`AccountName=myacct;AccountKey=${KEY};EndpointSuffix=core.chinacloudapi.cn`);
    assert.equal(china.kind, "live");
    assert.equal(china.endpoints.queue, "https://myacct.queue.core.chinacloudapi.cn");
    const noSuffix = resolveConnectionString(`AccountName=myacct;AccountKey=${KEY}`);
    assert.equal(noSuffix.endpoints.blob, "https://myacct.blob.core.windows.net");
  });

  it("SAS: endpoints + SharedAccessSignature, account taken from the host, the signature a secret", function () {
    const sas = "sv=2025-11-05&ss=bqtf&srt=sco&sp=rwdlacup&se=2030-01-01T00:00:00Z&sig=abc%2Bdef%3D";
    const t = resolveConnectionString(
      `BlobEndpoint=https://myacct.blob.core.windows.net/;QueueEndpoint=https://myacct.queue.core.windows.net;SharedAccessSignature=?${sas}`,
    );
    assert.equal(t.kind, "live");
    assert.equal(t.credentials.accountName, "myacct");
    assert.isUndefined(t.credentials.accountKey);
    assert.equal(t.credentials.sas, sas, "a leading '?' is dropped");
    assert.includeMembers(secretsOf(t), ["abc+def=", "abc%2Bdef%3D"]);
    const emu = resolveConnectionString(`BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;SharedAccessSignature=${sas}`);
    assert.equal(emu.kind, "emulator");
    assert.equal(emu.credentials.accountName, "devstoreaccount1", "path-style emulator endpoint names the account");
  });

  it("the dev key is not treated as a secret (it is published), any other key is", function () {
    assert.deepEqual(secretsOf(resolveConnectionString("UseDevelopmentStorage=true")), []);
  });

  describe("malformed connection strings: one ConfigError line each", function () {
    const cases: [string, string, RegExp][] = [
      ["empty", "   ", /set but empty/],
      ["not Key=Value", "hello", /segment "hello" is not Key=Value/],
      ["unknown key", `AccountName=a;AccountKey=${KEY};Colour=blue`, /unknown key "Colour"/],
      ["duplicate key", `AccountName=a;AccountName=b;AccountKey=${KEY}`, /AccountName appears twice/],
      ["no account, no endpoint", `AccountKey=${KEY}`, /needs AccountName/],
      ["no credentials", "AccountName=a;EndpointSuffix=core.windows.net", /needs AccountKey or SharedAccessSignature/],
      ["key not base64", "AccountName=a;AccountKey=abc$%^", /AccountKey is not base64/],
      ["endpoint not a URL", `AccountName=a;AccountKey=${KEY};BlobEndpoint=not a url`, /BlobEndpoint "not a url" is not a URL/],
      ["endpoint not http(s)", `AccountName=a;AccountKey=${KEY};BlobEndpoint=ftp://h/x`, /must be an http\(s\) URL/],
      [
        "endpoint with a query",
        `AccountName=a;AccountKey=${KEY};BlobEndpoint=https://a.blob.core.windows.net/?sig=x`,
        /must not carry a query/,
      ],
      ["bad protocol", `DefaultEndpointsProtocol=gopher;AccountName=a;AccountKey=${KEY}`, /DefaultEndpointsProtocol must be http or https/],
      ["UseDevelopmentStorage=false", "UseDevelopmentStorage=false", /only takes the value true/],
      [
        "proxy URI not a URL",
        "UseDevelopmentStorage=true;DevelopmentStorageProxyUri=emu host",
        /DevelopmentStorageProxyUri "emu host" is not a URL/,
      ],
    ];
    for (const [what, cs, pattern] of cases) {
      it(what, function () {
        const msg = configError(() => resolveConnectionString(cs), pattern);
        if (/AccountKey/.test(cs)) assert.notInclude(msg, "abc$%^");
      });
    }
  });
});

describe("run configuration", function () {
  it("defaults: every service, the embedded Azurite, reports/", function () {
    const c = resolveConfig({}, {});
    assert.deepEqual(c.services, ["blob", "queue", "table", "file"]);
    assert.isUndefined(c.connectionString);
    assert.equal(c.reportDir, "reports");
    assert.isUndefined(c.concurrency, "auto: sized from the target's round trip");
    assert.isTrue(c.cleanup);
  });

  it("--concurrency auto, and the pool it sizes from the preflight's round trip", function () {
    assert.isUndefined(resolveConfig({ concurrency: "auto" }, { CONFORMANCE_CONCURRENCY: "4" }).concurrency);
    assert.isUndefined(resolveConfig({}, { CONFORMANCE_CONCURRENCY: "AUTO" }).concurrency);
    const probe = (ms?: number) => ({ service: "blob" as const, available: true, ms });
    assert.equal(autoConcurrency([probe(undefined)]), 8, "no round trip measured");
    assert.equal(autoConcurrency([probe(2), probe(40)]), 9, "a local emulator: the fastest probe");
    assert.equal(autoConcurrency([probe(100)]), 48);
    assert.equal(autoConcurrency([probe(300)]), 128);
    assert.equal(autoConcurrency([probe(5000)]), 256, "at most 256");
  });

  it("flags override environment variables; an empty connection string means embedded", function () {
    const c = resolveConfig(
      { services: "table, Blob", concurrency: "4" },
      {
        CONFORMANCE_SERVICES: "queue",
        CONFORMANCE_CONCURRENCY: "abc",
        AZURE_STORAGE_CONNECTION_STRING: "  ",
        CONFORMANCE_CLEANUP: "false",
      },
    );
    assert.deepEqual(c.services, ["table", "blob"]);
    assert.equal(c.concurrency, 4);
    assert.isUndefined(c.connectionString);
    assert.isFalse(c.cleanup);
  });

  const bad: [string, Record<string, string>, RegExp][] = [
    ["CONFORMANCE_CONCURRENCY=abc", { CONFORMANCE_CONCURRENCY: "abc" }, /^CONFORMANCE_CONCURRENCY="abc" is not a whole number/],
    ["CONFORMANCE_CONCURRENCY=0", { CONFORMANCE_CONCURRENCY: "0" }, /^CONFORMANCE_CONCURRENCY=0 is out of range/],
    [
      "CONFORMANCE_SERVICES=blobb",
      { CONFORMANCE_SERVICES: "blobb" },
      /^CONFORMANCE_SERVICES: unknown service blobb \(choose from blob, queue, table, file\)/,
    ],
    ["CONFORMANCE_GREP=(", { CONFORMANCE_GREP: "(" }, /^CONFORMANCE_GREP="\(" is not a valid regular expression/],
    ["CONFORMANCE_CLEANUP=maybe", { CONFORMANCE_CLEANUP: "maybe" }, /^CONFORMANCE_CLEANUP="maybe": use true or false/],
    ["CONFORMANCE_REQUEST_TIMEOUT_MS=5", { CONFORMANCE_REQUEST_TIMEOUT_MS: "5" }, /^CONFORMANCE_REQUEST_TIMEOUT_MS=5 is out of range/],
    ["CONFORMANCE_MAX_TRIES=-1", { CONFORMANCE_MAX_TRIES: "-1" }, /^CONFORMANCE_MAX_TRIES="-1" is not a whole number/],
    [
      "CONFORMANCE_SERVICE=blob (a misspelt name)",
      { CONFORMANCE_SERVICE: "blob" },
      /^Unknown variable CONFORMANCE_SERVICE \(did you mean CONFORMANCE_SERVICES\?\)/,
    ],
    ["CONFORMANCE_FOO=1", { CONFORMANCE_FOO: "1" }, /^Unknown variable CONFORMANCE_FOO; the variables are listed in .env.example/],
  ];
  for (const [what, env, pattern] of bad) {
    it(`${what}: one ConfigError line naming the variable`, function () {
      configError(() => resolveConfig({}, env), pattern);
    });
  }

  it("a bad flag value names the flag, not the variable", function () {
    configError(() => resolveConfig({ services: "blob,fil" }, {}), /^--services: unknown service fil/);
    configError(() => resolveConfig({ concurrency: "many" }, {}), /^--concurrency="many"/);
  });
});
