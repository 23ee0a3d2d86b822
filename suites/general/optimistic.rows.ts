// G General behaviour, optimistic concurrency on a blob: the seed article's
// read-ETag / conditional-write flow, and a race of concurrent conditional
// writers of which exactly one may win.
import { expectEqual, expectRefused, expectSucceeds, expectTrue, refusalOf } from "../../fixtures/harness/assert.ts";
import type { RowDef } from "../../fixtures/harness/engine.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { rethrowIfFault } from "../../fixtures/wire/signals.ts";
import { downloadAll, newBlockBlob } from "../blob/blob-kit.ts";

const SOURCE = "seed: introduction and blob sections";
const WRITERS = 8;
const ROUNDS = 3;

const rows: RowDef[] = [
  {
    id: "general/optimistic-flow",
    title: "Read the ETag, another writer updates, the write with the old ETag is refused (412) and the other writer's content stays",
    level: "doc",
    source: `${SOURCE} (optimistic concurrency flow)`,
    service: "blob",
    async run(t) {
      const a = await newBlockBlob(t, "original");
      const b = t.clients.blob().getContainerClient(a.containerName).getBlockBlobClient(a.name);
      t.step("A reads the blob and its ETag");
      const read = await a.getProperties();
      t.step("B updates the blob");
      const byB = await b.upload("written by B", 12);
      t.step("A writes with the ETag it read");
      await expectRefused(
        "A's Put Blob with the ETag read before B's write",
        a.upload("written by A", 12, { conditions: { ifMatch: read.etag } }),
        { status: 412, code: "ConditionNotMet" },
      );
      t.step("read back");
      const after = await a.getProperties();
      expectEqual("content after the refused write", (await downloadAll(a)).toString("utf8"), "written by B");
      expectTrue("the ETag after the refused write is B's", after.etag === byB.etag);
      // The article's remedy: read again and retry with the fresh ETag.
      t.step("A re-reads and retries with the fresh ETag");
      const retry = await expectSucceeds(
        "A's retry with the fresh ETag",
        a.upload("written by A", 12, { conditions: { ifMatch: after.etag } }),
      );
      expectEqual("content after the retry", (await downloadAll(b)).toString("utf8"), "written by A");
      expectTrue("the ETag after the retry is A's", (await b.getProperties()).etag === retry.etag);
    },
  },
  {
    id: "general/optimistic-race",
    title: `${WRITERS} clients write at once with the same If-Match: exactly one succeeds, the rest get 412, the winner's content stays`,
    level: "doc",
    source: `${SOURCE} (optimistic concurrency)`,
    service: "blob",
    async run(t) {
      const first = await newBlockBlob(t, "original");
      const writers = Array.from({ length: WRITERS }, () =>
        t.clients.blob().getContainerClient(first.containerName).getBlockBlobClient(first.name),
      );
      for (let round = 1; round <= ROUNDS; round++) {
        const etag = (await first.getProperties()).etag!;
        t.step(`round ${round}: ${WRITERS} conditional writes at once`);
        const outcomes = await Promise.allSettled(
          writers.map((w, i) =>
            w.upload(`round ${round} writer ${i}`, `round ${round} writer ${i}`.length, { conditions: { ifMatch: etag } }),
          ),
        );
        const winners: { i: number; etag?: string }[] = [];
        const refusals: string[] = [];
        outcomes.forEach((o, i) => {
          if (o.status === "fulfilled") winners.push({ i, etag: o.value.etag });
          else {
            rethrowIfFault(o.reason);
            const r = refusalOf(o.reason);
            refusals.push(`${r.status} ${r.code ?? ""}`.trim());
          }
        });
        t.note(`round${round}`, { winners: winners.length, refusals: refusals.length });
        expectEqual(`round ${round}: writers that succeeded`, winners.length, 1);
        expectEqual(`round ${round}: refusals`, refusals.sort(), Array(WRITERS - 1).fill("412 ConditionNotMet"));
        t.step(`round ${round}: read back`);
        const after = await first.getProperties();
        expectTrue(
          `round ${round}: the content after the race is the winner's`,
          (await downloadAll(first)).toString("utf8") === `round ${round} writer ${winners[0].i}`,
        );
        expectTrue(`round ${round}: the ETag after the race is the winner's`, after.etag === winners[0].etag);
      }
    },
  },
];

defineTable({ table: "G General behaviour", service: "blob" }, rows);
