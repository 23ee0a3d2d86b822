// `npm run sweep -- --older-than 2h`: removes our resources older than the
// age (leases broken first), and nothing else.
import { assert } from "chai";
import type { EmbeddedAzurite } from "../../fixtures/azurite/azurite.ts";
import { Clients } from "../../fixtures/wire/clients.ts";
import { Namer, newRunPrefix } from "../../fixtures/wire/names.ts";
import { resolveConnectionString } from "../../fixtures/wire/target.ts";
import { oneLine, privateAzurite, runScript } from "./cli-kit.ts";

describe("CLI: sweep", function () {
  this.timeout(60_000);
  let azurite: EmbeddedAzurite;
  let clients: Clients;
  const now = Date.now();
  const old = new Namer(newRunPrefix(new Date(now - 3 * 3_600_000)));
  const fresh = new Namer(newRunPrefix(new Date(now - 30 * 60_000)));
  const names = {
    oldPlain: old.next("c"),
    oldLeased: old.next("c"),
    oldLeasedBlob: old.next("c"),
    oldQueue: old.next("q"),
    oldTable: old.next("t"),
    fresh: fresh.next("c"),
    freshQueue: fresh.next("q"),
    notOurs: "keep-me-certify",
    notOursTable: "keepMeCertify",
    lookalike: "cc-not-a-run-prefix",
  };

  const containers = async () => {
    const out: string[] = [];
    for await (const c of clients.blob().listContainers()) out.push(c.name);
    return out.sort();
  };
  const queues = async () => {
    const out: string[] = [];
    for await (const q of clients.queue().listQueues()) out.push(q.name);
    return out.sort();
  };
  const tables = async () => {
    const out: string[] = [];
    for await (const t of clients.tableService().listTables()) out.push(t.name!);
    return out.sort();
  };

  before(async function () {
    azurite = await privateAzurite();
    clients = new Clients(resolveConnectionString(azurite.connectionString));
    const blob = clients.blob();
    for (const n of [names.oldPlain, names.oldLeased, names.oldLeasedBlob, names.fresh, names.notOurs, names.lookalike])
      await blob.createContainer(n);
    await blob.getContainerClient(names.oldLeased).getBlobLeaseClient().acquireLease(-1);
    const leasedBlob = blob.getContainerClient(names.oldLeasedBlob).getBlockBlobClient("b");
    await leasedBlob.upload("x", 1);
    await leasedBlob.getBlobLeaseClient().acquireLease(-1);
    await clients.queue().createQueue(names.oldQueue);
    await clients.queue().createQueue(names.freshQueue);
    await clients.tableService().createTable(names.oldTable);
    await clients.tableService().createTable(names.notOursTable);
  });

  after(async function () {
    await azurite?.stop();
  });

  it("a dry run lists the old leftovers and removes nothing", async function () {
    const before = await containers();
    const r = await runScript("bin/sweep.ts", ["--older-than", "2h", "--dry-run", "--connection-string", azurite.connectionString]);
    assert.equal(r.code, 0, r.stderr);
    for (const n of [names.oldPlain, names.oldLeased, names.oldLeasedBlob, names.oldQueue, names.oldTable])
      assert.match(r.stdout, new RegExp(`would remove (blob|queue|table) ${n} `));
    for (const n of [names.fresh, names.freshQueue, names.notOurs, names.lookalike, names.notOursTable]) assert.notInclude(r.stdout, n);
    assert.deepEqual(await containers(), before);
  });

  it("--older-than 2h removes only our resources older than 2 h, leased ones included", async function () {
    const r = await runScript("bin/sweep.ts", ["--older-than", "2h", "--connection-string", azurite.connectionString]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Swept 5 resource\(s\) older than 2h/);
    assert.deepEqual(await containers(), [names.fresh, names.notOurs, names.lookalike].sort());
    assert.deepEqual(await queues(), [names.freshQueue]);
    assert.deepEqual(await tables(), [names.notOursTable]);
  });

  it("a second sweep finds nothing; bad input is one line, exit 2", async function () {
    const again = await runScript("bin/sweep.ts", ["--older-than", "2h", "--connection-string", azurite.connectionString]);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /Nothing to sweep/);
    const bad = await runScript("bin/sweep.ts", ["--older-than", "two hours", "--connection-string", azurite.connectionString]);
    assert.equal(bad.code, 2);
    assert.match(oneLine(bad.stderr), /^error: --older-than "two hours" is not an age/);
    const none = await runScript("bin/sweep.ts", ["--older-than", "2h"]);
    assert.equal(none.code, 2);
    assert.match(oneLine(none.stderr), /sweep needs a target/);
  });
});
