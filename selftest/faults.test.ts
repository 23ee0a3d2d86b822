// Transport faults are never verdicts: a connection reset, a 503 with
// Retry-After, or a stall past the client's timeout, injected by the proxy in
// the middle of a row or on its last request and on every request after it
// (so every retry and the row's re-run meet it too), must leave that row
// INCONCLUSIVE (never PASS, never FAIL). A fault on one request only is
// retried away: the row reaches its verdict, the evidence shows both tries;
// a write answered 500 after it was applied makes the failure its retry
// meets INCONCLUSIVE, then the row runs again. Runs a handful of
// representative rows: several T1 shapes (SDK refusal, raw not-evaluated
// probe, read-back) plus the first quick row of every other registered table.
import { expect } from "chai";
import pLimit from "p-limit";
import { DEFAULT_RUN_OPTIONS, RunContext, runRow, type RowDef, type RowResult } from "../fixtures/harness/engine.ts";
import { newRunPrefix } from "../fixtures/wire/names.ts";
import { Clients } from "../fixtures/wire/clients.ts";
import { rawRequest } from "../fixtures/wire/raw.ts";
import { resolveConnectionString } from "../fixtures/wire/target.ts";
import { query, segments, type Mutant } from "./mutants/types.ts";
import { isFaulted, isUnanswered, type Exchange } from "../fixtures/wire/evidence.ts";
import { loadAllSuites, runHeadless } from "./headless.ts";
import { registeredRows, registeredTables } from "../fixtures/harness/registry.ts";
import { sharedAzurite } from "./azurite-fixture.ts";
import { isPreflight, startProxy, type Fault, type FaultKind } from "./proxy.ts";

// T1's conditional cells are computed from their header rows (no exchanges of
// their own): the header rows are the ones faulted.
const T1_ROWS = [
  "blob/container-ops/create-container/conditional/if-match",
  "blob/container-ops/get-container-properties/etag",
  "blob/container-ops/set-container-metadata/conditional/if-modified-since",
  "blob/container-ops/delete-container/conditional/if-unmodified-since",
  "blob/container-ops/list-blobs/etag",
];
const KINDS: FaultKind[] = ["reset", "503", "stall"];
/** Faults that a retry answers when they hit one request only. */
const TRANSIENT_KINDS: FaultKind[] = ["reset", "503", "500", "stall"];
/**
 * Long enough for every answer of a loaded machine (at 2 s, requests no fault
 * touched timed out at load 11 and left rows INCONCLUSIVE); a stall outlasts it.
 */
const REQUEST_TIMEOUT_MS = 6000;
const STALL_MS = 10_000;
const MAX_OTHER_TABLES = 8;

await loadAllSuites();

/**
 * The representative rows: the T1 shapes above, then one quick row per other
 * table, tables of services not yet represented first (queue, table, ...).
 */
function representativeRows(): string[] {
  const byId = new Map(registeredRows().map((r) => [r.row.id, r.row]));
  const out = T1_ROWS.filter((id) => byId.has(id));
  const services = new Set(out.map((id) => byId.get(id)!.service));
  // The embedded Azurite has no File service: its rows make no request to fault.
  const tables = registeredTables().filter((t) => t.service !== "file" && !t.rows.some((r) => out.includes(r.id)));
  const quick = (t: (typeof tables)[number]) => t.rows.find((r) => !r.waitSeconds && !r.derivedFrom && r.level !== "info");
  const picked: string[] = [];
  for (const pass of [0, 1]) {
    for (const t of tables) {
      const row = quick(t);
      if (!row || picked.includes(row.id) || (pass === 0 && services.has(t.service))) continue;
      picked.push(row.id);
      services.add(t.service);
    }
  }
  return [...out, ...picked.slice(0, MAX_OTHER_TABLES)];
}

/** Faults every conformance request from the k-th on (retries, the re-run and cleanup included). */
function fromRequest(kind: FaultKind, k: number): Fault {
  let n = 0;
  return { kind, stallMs: STALL_MS, retryAfterSeconds: 1, match: (req) => !isPreflight(req) && ++n >= k };
}

/** Faults the k-th conformance request only: its retry goes through. */
function onlyRequest(kind: FaultKind, k: number): Fault {
  let n = 0;
  return { kind, stallMs: STALL_MS, retryAfterSeconds: 1, match: (req) => !isPreflight(req) && ++n === k };
}

interface Case {
  id: string;
  kind: FaultKind;
  k: number;
  of: number;
  result?: RowResult;
  /** The requests the proxy faulted in the case's run (ProxyStats.faulted). */
  faulted?: Set<string>;
  error?: string;
}

/**
 * An exchange of a request the proxy faulted. Any transport error is no
 * such mark: on a loaded machine a request times out by itself and its retry
 * is answered (a legal variation), while the fault lands on a request the
 * row no longer needed (the removal after its verdict, when it polled less
 * than the clean run did).
 */
const faultedBy = (faulted: Set<string> | undefined) => (ex: Exchange) => isFaulted(ex) && !!faulted?.has(`${ex.method} ${ex.url}`);

function describeKind(kind: FaultKind): string {
  if (kind === "503") return "503 with Retry-After";
  if (kind === "reset") return "connection reset";
  return `stall of ${STALL_MS / 1000} s past a ${REQUEST_TIMEOUT_MS / 1000} s client timeout`;
}

/**
 * What is wrong with faulted runs: a row that reached a verdict under a fault,
 * or a row no fault of this kind reached (a fault can miss when a row makes
 * fewer requests than in the clean run, e.g. fewer polls).
 */
function faultProblems(cases: Case[]): string[] {
  const bad: string[] = [];
  const reached = new Set<string>();
  for (const c of cases) {
    const where = `${c.id} (${c.kind} from request ${c.k} of ${c.of})`;
    if (c.error || !c.result) {
      bad.push(`${where}: the run failed: ${c.error}`);
      continue;
    }
    if (!c.result.evidence.some(faultedBy(c.faulted))) continue;
    reached.add(`${c.id} ${c.kind}`);
    if (c.result.status !== "INCONCLUSIVE") bad.push(`${where}: ${c.result.status} under a transport fault: ${c.result.message ?? ""}`);
  }
  for (const c of cases) {
    if (!c.error && c.result && !reached.has(`${c.id} ${c.kind}`)) {
      reached.add(`${c.id} ${c.kind}`);
      bad.push(`${c.id}: no ${c.kind} fault reached any of its exchanges (status ${c.result.status})`);
    }
  }
  return bad;
}

async function runOne(
  connection: { ports: Parameters<typeof startProxy>[0]["upstream"] },
  id: string,
  faults: Fault[],
): Promise<{ result: RowResult; faulted: Set<string> }> {
  const proxy = await startProxy({ upstream: connection.ports, faults });
  try {
    const run = await runHeadless({
      connectionString: proxy.connectionString,
      select: (x) => x === id,
      expectations: "azurite",
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      maxTries: 2,
    });
    return { result: run.results[0], faulted: new Set(proxy.stats.faulted) };
  } finally {
    await proxy.stop();
  }
}

/**
 * One clean pass through the proxy over these rows (each row's requests and
 * verdict), made once for the describes below that start from it.
 */
const cleanPasses = new Map<string, Promise<Map<string, RowResult>>>();
function cleanRuns(rows: string[]): Promise<Map<string, RowResult>> {
  const key = rows.join(" ");
  if (!cleanPasses.has(key)) {
    cleanPasses.set(
      key,
      (async () => {
        const azurite = await sharedAzurite();
        const limit = pLimit(12);
        const clean = new Map<string, RowResult>();
        await Promise.all(rows.map((id) => limit(async () => clean.set(id, (await runOne(azurite, id, [])).result))));
        return clean;
      })(),
    );
  }
  return cleanPasses.get(key)!;
}

/**
 * Runs each case through the proxy with its fault; a run that throws keeps its
 * error. Stalls start at once, outside the bound: such a run spends its half
 * minute waiting on client timeouts (every try of every request from the k-th
 * on, the re-run's and the cleanup's too), which overlap at no cost.
 */
async function runCases(cases: Case[], fault: (c: Case) => Fault): Promise<void> {
  const azurite = await sharedAzurite();
  const limit = pLimit(12);
  const one = async (c: Case) => {
    try {
      ({ result: c.result, faulted: c.faulted } = await runOne(azurite, c.id, [fault(c)]));
    } catch (err) {
      c.error = (err as Error).message;
    }
  };
  await Promise.all(cases.map((c) => (c.kind === "stall" ? one(c) : limit(() => one(c)))));
}

describe("transport faults are never verdicts", function () {
  const rows = representativeRows();
  const cases: Case[] = [];
  let clean = new Map<string, RowResult>();

  before(async function () {
    // A clean pass through the proxy counts each row's requests.
    clean = await cleanRuns(rows);
    for (const id of rows) {
      const n = clean.get(id)!.evidence.length;
      for (const k of [...new Set([Math.ceil(n / 2), n])].filter((x) => x >= 1)) {
        for (const kind of KINDS) cases.push({ id, kind, k, of: n });
      }
    }
    await runCases(cases, (c) => fromRequest(c.kind, c.k));
    const tally = new Map<string, number>();
    for (const c of cases) tally.set(c.result?.status ?? "ERROR", (tally.get(c.result?.status ?? "ERROR") ?? 0) + 1);
    console.log(`    ${cases.length} faulted runs over ${rows.length} rows: ${[...tally].map(([k, v]) => `${v} ${k}`).join(", ")}`);
    console.log(`    rows: ${rows.join(", ")}`);
  });

  it("has representative rows to fault, each answered cleanly through the proxy", function () {
    expect(rows.length, "representative rows registered").to.be.greaterThan(0);
    const bad = rows
      .map((id) => clean.get(id)!)
      // A try a loaded machine timed out by itself and a retry answered is a legal variation, not an unclean answer.
      .filter((r) => r.evidence.length === 0 || r.evidence.some(isUnanswered))
      .map((r) => `${r.id}: ${r.evidence.length} requests, ${r.status}: ${r.message ?? ""}`);
    expect(bad, bad.join("\n")).to.deep.equal([]);
  });

  for (const kind of KINDS) {
    it(`${describeKind(kind)}: every affected row is INCONCLUSIVE`, function () {
      const bad = faultProblems(cases.filter((x) => x.kind === kind));
      expect(bad, bad.join("\n")).to.deep.equal([]);
    });
  }

  it("the check itself fails for a row that swallows a transport fault", async function () {
    // A deliberately broken row: it catches everything, so a reset reads PASS.
    const azurite = await sharedAzurite();
    const swallowing: RowDef = {
      id: "selftest/swallows-faults",
      title: "swallows faults",
      level: "doc",
      source: "selftest",
      service: "blob",
      async run(t) {
        try {
          await t.newContainer();
        } catch {
          /* the defect under test */
        }
      },
    };
    const proxy = await startProxy({ upstream: azurite.ports, faults: [fromRequest("reset", 1)] });
    try {
      const target = resolveConnectionString(proxy.connectionString);
      const run = new RunContext(target, {
        ...DEFAULT_RUN_OPTIONS,
        runPrefix: newRunPrefix(),
        services: ["blob"],
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        maxTries: 2,
      });
      const result = await runRow(run, swallowing, "selftest");
      expect(result.status, "the swallowing row's status").to.equal("PASS");
      const bad = faultProblems([{ id: swallowing.id, kind: "reset", k: 1, of: 1, result, faulted: new Set(proxy.stats.faulted) }]);
      expect(bad.join("\n")).to.match(/PASS under a transport fault/);
    } finally {
      await proxy.stop();
    }
  });
});

describe("retries: a fault on one request is no fault of the row", function () {
  const rows = representativeRows();
  const cases: Case[] = [];
  let clean = new Map<string, RowResult>();

  before(async function () {
    clean = await cleanRuns(rows);
    for (const id of rows) {
      const n = clean.get(id)!.evidence.length;
      for (const kind of TRANSIENT_KINDS) cases.push({ id, kind, k: Math.ceil(n / 2), of: n });
    }
    await runCases(cases, (c) => onlyRequest(c.kind, c.k));
  });

  it("reaches the row's clean verdict, and the evidence shows the faulted try retried", function () {
    const bad: string[] = [];
    for (const c of cases) {
      const where = `${c.id} (${c.kind} on request ${c.k} of ${c.of})`;
      if (!c.result) {
        bad.push(`${where}: the run failed: ${c.error}`);
        continue;
      }
      const evidence = [...(c.result.retried?.evidence ?? []), ...c.result.evidence];
      const i = evidence.findIndex((e) => e.retried);
      if (i < 0) bad.push(`${where}: no retried try in the evidence`);
      else if (!evidence.slice(i + 1).some((e) => e.try === 2 && e.method === evidence[i].method && e.url === evidence[i].url))
        bad.push(`${where}: the retried try has no second try after it`);
      if (c.result.status !== clean.get(c.id)!.status)
        bad.push(`${where}: ${c.result.status} (clean: ${clean.get(c.id)!.status}): ${c.result.message ?? ""}`);
    }
    expect(bad, bad.join("\n")).to.deep.equal([]);
  });

  it("a conditional write answered 500 after it was applied: the 412 its retry meets is INCONCLUSIVE, then the row runs again", async function () {
    const azurite = await sharedAzurite();
    const id = "blob/blob-ops/put-blob/conditional/if-match";
    // The second Put Blob carrying If-Match is the permitted one (the first carries the failing value).
    let n = 0;
    const fault: Fault = {
      kind: "500-applied",
      match: (req) => req.method === "PUT" && !!req.headers["if-match"] && !req.url.includes("comp=") && ++n === 2,
    };
    const { result } = await runOne(azurite, id, [fault]);
    expect(result.retried, `${id} was not run again: ${result.status}: ${result.message ?? ""}`).to.not.equal(undefined);
    expect(result.retried!.message ?? "").to.match(
      /^PUT \S+ was retried after 500 OperationTimedOut: the try may have been applied, so the failure that followed is not a verdict: .*expected success, got 412/,
    );
    expect(result.status, "after the re-run").to.equal("PASS");
  });
});

describe("the proxy", function () {
  const name = (p: string) => `${p}${newRunPrefix().replace(/[^a-z0-9]/g, "")}`.slice(0, 40);

  it("keeps Content-Length consistent after body rewrites, and HEAD lengths intact", async function () {
    const azurite = await sharedAzurite();
    const padding = "<!-- padded by the proxy: ünïcödé -->";
    const mutant: Mutant = {
      name: "selftest-body-rewrite",
      description: "pads listings and rewrites blob content",
      kills: [],
      onResponse(req, res) {
        const q = query(req);
        if (q.get("comp") === "list") res.body = Buffer.concat([res.body, Buffer.from(padding)]);
        else if (req.method === "GET" && segments(req).length === 2) res.body = Buffer.from("rewritten, and longer than before");
      },
    };
    const proxy = await startProxy({ upstream: azurite.ports, mutant });
    try {
      const target = resolveConnectionString(proxy.connectionString);
      const c = name("px");
      expect((await rawRequest(target, "blob", { method: "PUT", path: `/${c}`, query: { restype: "container" } })).status).to.equal(201);
      const put = await rawRequest(target, "blob", {
        method: "PUT",
        path: `/${c}/b`,
        headers: { "x-ms-blob-type": "BlockBlob" },
        body: "hello",
      });
      expect(put.status).to.equal(201);
      const list = await rawRequest(target, "blob", { method: "GET", path: `/${c}`, query: { restype: "container", comp: "list" } });
      expect(list.body.endsWith(padding), "the rewritten listing arrives whole").to.equal(true);
      expect(Number(list.headers["content-length"]), "listing Content-Length").to.equal(Buffer.byteLength(list.body));
      expect(list.headers["transfer-encoding"]).to.equal(undefined);
      const get = await rawRequest(target, "blob", { method: "GET", path: `/${c}/b` });
      expect(get.body).to.equal("rewritten, and longer than before");
      expect(Number(get.headers["content-length"]), "blob Content-Length").to.equal(Buffer.byteLength(get.body));
      const head = await rawRequest(target, "blob", { method: "HEAD", path: `/${c}/b` });
      expect(head.headers["content-length"], "HEAD keeps the blob's size").to.equal("5");
      expect(proxy.stats.mutatedResponses).to.be.greaterThan(1);
    } finally {
      await proxy.stop();
    }
  });

  it("re-signs requests a mutant rewrote (blob, queue Shared Key; table Shared Key Lite)", async function () {
    const azurite = await sharedAzurite();
    const mutant: Mutant = {
      name: "selftest-rewrite-requests",
      description: "adds a query parameter and an x-ms header to every request",
      kills: [],
      onRequest(req) {
        req.url += (req.url.includes("?") ? "&" : "?") + "selftest=rewritten";
        req.headers["x-ms-client-request-id"] = "rewritten-by-proxy";
      },
    };
    const proxy = await startProxy({ upstream: azurite.ports, mutant });
    try {
      const clients = new Clients(resolveConnectionString(proxy.connectionString));
      await clients.blob().getContainerClient(name("pb")).create();
      await clients.queue().getQueueClient(name("pq")).create();
      const t = name("pt");
      await clients.tableService().createTable(t);
      await clients.table(t).createEntity({ partitionKey: "p", rowKey: "r", v: 1 });
      expect(proxy.stats.mutatedRequests, "requests rewritten").to.be.greaterThanOrEqual(4);
      expect(proxy.stats.authFailures, "re-signed requests refused").to.equal(0);
    } finally {
      await proxy.stop();
    }
  });

  it("adds the configured latency to each request", async function () {
    const azurite = await sharedAzurite();
    const proxy = await startProxy({ upstream: azurite.ports, latencyMs: 300 });
    try {
      const target = resolveConnectionString(proxy.connectionString);
      const started = Date.now();
      for (let i = 0; i < 3; i++) await rawRequest(target, "blob", { method: "GET", path: "/", query: { comp: "list" } });
      expect(Date.now() - started, "three requests with 300 ms each added").to.be.greaterThanOrEqual(900);
    } finally {
      await proxy.stop();
    }
  });
});
