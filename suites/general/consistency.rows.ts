// G General behaviour, on blobs: strong consistency (an acknowledged write is
// what every later read sees, from any client) and last writer wins for
// writes that carry no condition.
import { expectEqual, expectSucceeds, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowDef } from "../../fixtures/harness/engine.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { downloadAll, lastSent, newBlockBlob } from "../blob/blob-kit.ts";

const SOURCE = "seed: introduction and blob sections";
const WRITES = 5;

const rows: RowDef[] = [
  {
    id: "general/strong-consistency",
    title: "Once a write is acknowledged, a second, independent client reads it at once (new ETag and content)",
    level: "doc",
    source: `${SOURCE} (strong consistency)`,
    service: "blob",
    async run(t) {
      const writer = await newBlockBlob(t, "v0");
      const reader = t.clients.blob().getContainerClient(writer.containerName).getBlockBlobClient(writer.name);
      // The reader reads before each write too, so a cache anywhere on its path would show.
      for (let i = 1; i <= WRITES; i++) {
        t.step(`read ${i - 1} by the second client`);
        expectEqual(`second client's content before write ${i}`, (await downloadAll(reader)).toString("utf8"), `v${i - 1}`);
        t.step(`write ${i}`);
        const ack = await writer.upload(`v${i}`, `v${i}`.length);
        t.step(`read ${i} by the second client`);
        const props = await reader.getProperties();
        expectTrue(`second client's ETag (Get Blob Properties) right after write ${i} is the acknowledged one`, props.etag === ack.etag);
        const body = await reader.download();
        expectTrue(`second client's ETag (Get Blob) right after write ${i} is the acknowledged one`, body.etag === ack.etag);
        const chunks: Buffer[] = [];
        for await (const c of body.readableStreamBody!) chunks.push(Buffer.from(c as Buffer));
        expectEqual(`second client's content right after write ${i}`, Buffer.concat(chunks).toString("utf8"), `v${i}`);
      }
    },
  },
  {
    id: "general/last-writer-wins-default",
    title: "A blob write with no condition overwrites whatever was written in between",
    level: "doc",
    source: `${SOURCE} (default: last writer wins)`,
    service: "blob",
    async run(t) {
      const a = await newBlockBlob(t, "original");
      const b = t.clients.blob().getContainerClient(a.containerName).getBlockBlobClient(a.name);
      t.step("A reads");
      const seenByA = (await a.getProperties()).etag;
      t.step("B writes in between");
      const byB = await b.upload("written by B", 12, { metadata: { by: "b" } });
      expectTrue("B's write changed the ETag A saw", byB.etag !== seenByA);
      t.step("A writes with no condition");
      const byA = await expectSucceeds(
        "A's unconditional Put Blob after B's write",
        a.upload("written by A", 12, { metadata: { by: "a" } }),
      );
      const sent = lastSent();
      expectTrue(
        "A's write carried no conditional header",
        !["if-match", "if-none-match", "if-modified-since", "if-unmodified-since"].some((h) => h in sent),
      );
      t.step("read back");
      const p = await b.getProperties();
      expectEqual("content after both writes", (await downloadAll(b)).toString("utf8"), "written by A");
      expectEqual("metadata after both writes", p.metadata, { by: "a" });
      expectTrue("the ETag after both writes is A's", p.etag === byA.etag);
      t.step("B sets metadata, then A sets metadata, both unconditionally");
      await b.setMetadata({ by: "b-again" });
      await expectSucceeds("A's unconditional Set Blob Metadata after B's", a.setMetadata({ by: "a-again" }));
      expectEqual("metadata after both Set Blob Metadata", (await b.getProperties()).metadata, { by: "a-again" });
    },
  },
];

defineTable({ table: "G General behaviour", service: "blob" }, rows);
