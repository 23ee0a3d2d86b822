// general/snapshot-isolation: a multi-entity write inside one partition (an
// entity group transaction) is seen whole or not at all. One writer replaces
// every entity of a partition with each batch (all carry the batch's
// generation); concurrent readers, each its own client, query the partition
// and must never see two generations in one result.
import { odata, type TableClient, type TransactionAction } from "@azure/data-tables";
import { expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowDef } from "../../fixtures/harness/engine.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { preconditionFailed } from "../../fixtures/wire/signals.ts";

const ENTITIES = 10;
const READERS = 3;
const WRITE_FOR_MS = 3000;
/** Caps the evidence a fast target produces (every exchange is recorded). */
const MAX_BATCHES = 150;
/** Written even past WRITE_FOR_MS (a busy target's retries can eat the time), so the reads overlap several commits. */
const MIN_BATCHES = 4;
const PARTITION = "p";

function batchOf(table: TableClient, gen: number): Promise<unknown> {
  const actions: TransactionAction[] = [];
  for (let i = 0; i < ENTITIES; i++)
    actions.push(["upsert", { partitionKey: PARTITION, rowKey: `e${String(i).padStart(2, "0")}`, gen }, "Replace"]);
  return table.submitTransaction(actions);
}

async function readGenerations(table: TableClient): Promise<number[]> {
  const gens: number[] = [];
  for await (const e of table.listEntities<{ gen: number }>({ queryOptions: { filter: odata`PartitionKey eq ${PARTITION}` } }))
    gens.push(e.gen);
  return gens;
}

const rows: RowDef[] = [
  {
    id: "general/snapshot-isolation",
    title: "Reads concurrent with a table batch in one partition never see part of it",
    level: "doc",
    source: "seed: introduction (strong consistency; entity group transactions); REST: Performing Entity Group Transactions",
    service: "table",
    waitSeconds: Math.ceil(WRITE_FOR_MS / 1000),
    async run(t) {
      const name = (await t.newTable()).tableName;
      const writer = t.clients.table(name);
      await batchOf(writer, 0);

      let stop = false;
      let committed = 0;
      t.step("one writer replaces the partition with batches while readers query it");
      const writing = (async () => {
        const until = Date.now() + WRITE_FOR_MS;
        try {
          for (let gen = 1; (Date.now() < until || gen <= MIN_BATCHES) && gen <= MAX_BATCHES; gen++) {
            await batchOf(writer, gen);
            committed = gen;
          }
        } finally {
          stop = true;
        }
      })();
      let reads = 0;
      let mixed = 0;
      let incomplete = 0;
      const seen = new Set<number>();
      let example: number[] | undefined;
      const reading = Array.from({ length: READERS }, async () => {
        const reader = t.clients.table(name);
        while (!stop) {
          const gens = await readGenerations(reader);
          reads++;
          if (gens.length !== ENTITIES) incomplete++;
          const distinct = new Set(gens);
          if (distinct.size > 1) {
            mixed++;
            example ??= [...distinct].sort((a, b) => a - b);
          }
          for (const g of distinct) seen.add(g);
        }
      });
      await Promise.all([writing, ...reading]);

      t.note("batches committed", committed);
      t.note("reads checked", reads);
      t.note("generations seen", seen.size);
      t.note("mixed reads", mixed);
      if (example) t.note("first mixed read (generations)", example);
      expectTrue("a query result lacked entities of the partition", incomplete === 0);
      expectTrue("a query result mixed entities of different batches (a partial batch was visible)", mixed === 0);
      // Readers stuck on an old generation would also see "no overlap" below: a read after the
      // last commit must show it (general/strong-consistency), so that case is a FAIL, not an environment limit.
      t.step("read after the last batch");
      const after = await readGenerations(t.clients.table(name));
      expectTrue(
        "general/strong-consistency: a query after the last batch committed does not show it",
        after.length === ENTITIES && after.every((g) => g === committed),
      );
      // Only a run where reads overlapped several commits tested anything.
      if (committed < 2 || seen.size < 2)
        preconditionFailed(`the reads did not overlap the writes (${committed} batches, ${seen.size} generations seen)`);
    },
  },
];

defineTable({ table: "G General behaviour", service: "table" }, rows);
