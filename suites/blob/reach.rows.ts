// How far a lease reaches, both ways (reach-claims.ts): on each resource a
// blob or container lease must leave alone, writes without any lease ID
// succeed and read back applied (reads answer), the lock's own ID is refused
// as an ID on an unleased resource, and the lock itself still holds at the
// end. The resources are made before the lease is taken, so every request
// after it is one the claim is about.
import type { BlobClient, ContainerClient } from "@azure/storage-blob";
import { expectEqual, expectRawStatus, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import { claimAt } from "../../fixtures/harness/locations.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import type { RawRequest } from "../../fixtures/wire/raw.ts";
import { expectUnchanged, newBlockBlob } from "./blob-kit.ts";
import { blobState, containerState, type ResourceState } from "./conditional-kit.ts";
import {
  blobLeaseSource,
  blobTarget,
  containerLeaseSource,
  containerTarget,
  guid,
  holdLease,
  readLease,
  type LeaseTarget,
} from "./lease-kit.ts";
import { op } from "./operations.ts";
import { REACH, REACH_URL, type ReachClaim, type ReachSubject } from "./reach-claims.ts";
import { expectOk } from "./rest-kit.ts";

/** A resource a lease must leave alone: how requests reach it, and how it reads back. */
interface Place {
  container: ContainerClient;
  blob?: BlobClient;
  snapshot?: string;
  read(): Promise<ResourceState>;
}

const placeOfBlob = (c: ContainerClient, b: BlobClient): Place => ({ container: c, blob: b, read: () => blobState(b, c, "block-blob") });

/** The lock's resource and every resource of the claim, made before the lease is taken. */
async function setUp(t: RowContext, claim: ReachClaim): Promise<{ lock: LeaseTarget; places: Place[] }> {
  const c = await t.newContainer();
  const locked = claim.lock === "blob" ? await newBlockBlob(t, "original", c) : undefined;
  const places = await Promise.all(
    claim.subjects.map(async (s): Promise<Place> => {
      t.step(`set up: ${s.label}`);
      switch (s.relation) {
        case "blob-in-container":
        case "blob-beside":
          return placeOfBlob(c, await newBlockBlob(t, "original", c));
        case "same-name-elsewhere": {
          const other = await t.newContainer();
          const b = other.getBlockBlobClient(locked!.name);
          await b.upload("original", 8, { metadata: { state: "original" } });
          return placeOfBlob(other, b);
        }
        case "snapshot-of-blob": {
          const snapshot = (await locked!.createSnapshot()).snapshot!;
          const s = locked!.withSnapshot(snapshot);
          return { container: c, blob: s, snapshot, read: () => blobState(s, c, "block-blob") };
        }
        case "container-of-blob":
          return { container: c, read: () => containerState(c) };
      }
    }),
  );
  return { lock: locked ? blobTarget(locked) : containerTarget(c), places };
}

/** An operation's request on a place: its record's, on the snapshot where the place is one, with a lease ID where given. */
function requestOn(slug: string, s: ReachSubject, p: Place, leaseId?: string): RawRequest {
  const req = op(slug).request({ container: p.container.containerName, blob: p.blob?.name });
  return {
    ...req,
    query: { ...req.query, ...(p.snapshot ? { snapshot: p.snapshot } : {}) },
    headers: { ...(req.headers ?? {}), ...s.with?.[slug], ...(leaseId ? { "x-ms-lease-id": leaseId } : {}) },
  };
}

async function leftAlone(t: RowContext, s: ReachSubject, p: Place, leaseId: string): Promise<void> {
  // The resource as the last read left it: nothing but this row's requests touch it, so a write's read-back is the next request's "before".
  let current: ResourceState | undefined;
  if (s.idRefused) {
    const what = `${op(s.idRefused.slug).operation} on ${s.label} with the lease's ID`;
    t.step(what);
    const before = await p.read();
    expectRawStatus(what, await t.raw("blob", requestOn(s.idRefused.slug, s, p, leaseId)), { status: 412, code: s.idRefused.code });
    current = await p.read();
    expectUnchanged(`${what}, refused`, before, current);
  }
  for (const slug of s.free) {
    const record = op(slug);
    const what = `${record.operation} on ${s.label} without a lease ID`;
    t.step(what);
    const before = current ?? (await p.read());
    const res = await t.raw("blob", requestOn(slug, s, p));
    expectOk(what, res);
    if (record.kind === "read") {
      // A snapshot answers with its own ETag and content.
      expectEqual(`${what}: the ETag answered`, res.headers["etag"], before.etag);
      if (res.body) expectEqual(`${what}: the content answered`, res.body, before.content);
      current = before;
      continue;
    }
    current = await p.read();
    expectTrue(`${what}: not applied (${record.effect!.what})`, record.effect!.holds(current), {
      expected: record.effect!.what,
      got: "not so",
    });
  }
}

async function runReach(t: RowContext, claim: ReachClaim): Promise<void> {
  const { lock, places } = await setUp(t, claim);
  const { id } = await holdLease(t, lock, -1, guid());
  for (const [i, s] of claim.subjects.entries()) await leftAlone(t, s, places[i], id);
  t.step(`the ${claim.lock} still leased`);
  const view = await readLease(t, lock, id);
  expectEqual(`the ${claim.lock}'s lease after the requests it must leave alone`, view.state, "leased");
}

const rows: RowDef[] = REACH.map((claim) => ({
  id: claim.id,
  claim: claimAt(REACH_URL, `id: "${claim.id}"`),
  title: claim.title,
  level: "rest",
  source:
    claim.lock === "blob"
      ? blobLeaseSource("Lease Blob: a lease is the lease of one blob")
      : containerLeaseSource("Lease Container: the lease locks Delete Container"),
  service: "blob",
  run: (t: RowContext) => runReach(t, claim),
}));

defineTable({ table: "L How far a lease reaches", service: "blob" }, rows);
