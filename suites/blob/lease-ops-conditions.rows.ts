// L: a lease does not replace the conditions (catalogue L, "A lease does not
// replace the conditions"; REST: Specifying Conditional Headers, Lease Blob).
// Generated from two tables: every operation of the lease-ops table
// (lease-ops.rows.ts) that the conditional claims (conditional-claims.ts) say
// evaluates conditional headers. On a leased blob, the request carries the
// right lease ID and a failing condition: it is refused as the condition says
// and the blob reads back unchanged; with the ID and a holding condition it
// succeeds and its effect is read back.
import { eachVariation, expectRawStatus, expectSent, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext, RowDef } from "../../fixtures/harness/engine.ts";
import type { RawRequest, RawResponse } from "../../fixtures/wire/raw.ts";
import { defineTable } from "../../fixtures/harness/registry.ts";
import { answer, claimOn, conditionClaims } from "../../fixtures/harness/claims.ts";
import { blobSnapshot, expectUnchanged, lastSent, newBlockBlob } from "./blob-kit.ts";
import type { Cell, OpClaim } from "./conditional-claims.ts";
import { headerValue, history, type History } from "./conditional-kit.ts";
import { blobLeaseSource, blobTarget, guid, holdLease, type LeaseTarget } from "./lease-kit.ts";
import { LEASED_CONDITIONAL, leaseOpAt } from "./lease-ops-claims.ts";

const P = "blob/lease-ops/";

/** How a read refuses a failing header; writes refuse every one with 412 (catalogue C). */
const refusal = (cell: Cell) =>
  cell.claim.kind === "read" && (cell.header === "if-none-match" || cell.header === "if-modified-since") ? 304 : 412;

/**
 * The operation on the leased blob, with the holder's ID. Lease Blob itself
 * renews the held lease (the claim's own request acquires, which a held
 * lease refuses whatever the condition).
 */
function request(claim: OpClaim, h: History, id: string): RawRequest {
  const req = claim.row.endsWith("/lease-blob")
    ? {
        method: "PUT",
        path: `/${h.subject.container}/${encodeURIComponent(h.subject.blob!)}`,
        query: { comp: "lease" },
        headers: { "x-ms-lease-action": "renew" },
      }
    : claim.request(h.subject);
  return { ...req, headers: { ...(req.headers ?? {}), "x-ms-lease-id": id } };
}

async function send(t: RowContext, what: string, req: RawRequest, header: string, value: string): Promise<RawResponse> {
  t.step(what);
  const res = await t.raw("blob", { ...req, headers: { ...req.headers, [header]: value } });
  expectSent(what, lastSent(), header);
  if (req.headers?.["x-ms-lease-id"]) expectSent(what, lastSent(), "x-ms-lease-id");
  return res;
}

async function conditionsWithId(t: RowContext, claim: OpClaim, cells: Cell[]): Promise<void> {
  // This client reads the blob, another writer changes it a second later; then the blob is leased.
  const h = await history(t, cells[0]);
  const x: LeaseTarget = { kind: "blob", path: `/${h.subject.container}/${encodeURIComponent(h.subject.blob!)}` };
  const { id } = await holdLease(t, x, -1, guid());
  const base = await h.read();
  expectTrue(`blob/blob-ops/lease-blob/etag-unchanged: acquiring the lease changed the ETag (setup)`, base.etag === h.after.etag);
  const req = request(claim, h, id);
  // Each header is a variation of the claim: the failure names every one the target does not refuse.
  await eachVariation(
    cells.map((cell) => {
      const what = `${claim.operation} with the lease ID and a failing ${cell.header}`;
      return {
        label: what,
        run: async () => {
          const res = await send(t, what, req, cell.header, headerValue(cell.header, true, h.before, h.after));
          expectRawStatus(what, res, { status: refusal(cell) });
          if (claim.kind === "write") {
            t.step("read back after the refused request");
            expectUnchanged(`${claim.operation} after the refused request`, base, await h.read());
          }
        },
      };
    }),
  );
  const what = `${claim.operation} with the lease ID and a holding if-match`;
  const res = await send(t, what, req, "if-match", h.after.etag!);
  const got = `${res.status} ${res.errorCode ?? ""}`.trim();
  expectTrue(`${what}: expected success, got ${got}`, res.status >= 200 && res.status < 300, { expected: "success", got });
  t.step("read back after the permitted request");
  if (claim.kind === "read") {
    expectTrue(`${what}: the ETag answered is not the current one`, res.headers["etag"] === h.after.etag);
    if (claim.reply) expectTrue(`${what}: not the current state (${claim.reply.what})`, claim.reply.holds(res, h.after));
    return;
  }
  const after = claim.source
    ? await t.waitFor(
        "the permitted copy to settle",
        async () => {
          const s = await h.read();
          return s.copyStatus === "pending" ? undefined : s;
        },
        { timeoutMs: 30_000, intervalMs: 250 },
      )
    : await h.read();
  const effect = claim.row.endsWith("/lease-blob")
    ? { what: "the blob is still leased", holds: () => after.leaseState === "leased" }
    : claim.effect!;
  expectTrue(`${what}: not applied (${effect.what})`, effect.holds(after), { expected: "applied", got: "not applied" });
}

const rows: RowDef[] = LEASED_CONDITIONAL.map(({ op, claim, cells }) => ({
  id: `${P}${op.slug}/conditions-with-id`,
  claim: leaseOpAt(op.slug),
  title: `${op.operation} on a leased blob with the lease ID: a failing ${cells.map((c) => c.header).join(", ")} is still refused (${claim.kind === "read" ? "304 or 412" : "412"}), the blob unchanged; a holding one succeeds`,
  level: "rest",
  source: blobLeaseSource(`${op.rest}; Specifying Conditional Headers for Blob Service Operations`),
  service: "blob",
  // The one-second gap between the two writers of the history: start at once, beside everything else.
  waitSeconds: 1,
  answers: cells.flatMap((cell) =>
    conditionClaims(
      "blob",
      claim.request({ container: "c", blob: "b", sourceUrl: "https://a.blob.core.windows.net/c/s" }),
      cell.header,
      claim.kind === "read" && (cell.header === "if-none-match" || cell.header === "if-modified-since")
        ? [answer(304)]
        : [answer(412, claim.code ?? "ConditionNotMet")],
      { also: { "x-ms-lease-id": ["holder"] }, lease: "leased" },
    ),
  ),
  run: (t) => conditionsWithId(t, claim, cells),
}));

// The lease is checked before the condition (catalogue L, live per Azurite
// issue #2637, where Azure's answer is quoted): Put Blob with If-None-Match: *
// onto an existing, leased blob without the lease ID is refused for the lease.
rows.push({
  id: "blob/lease-ops/put-blob/lease-before-condition",
  title:
    "Put Blob with If-None-Match: * onto an existing blob that holds a lease, without the lease ID → 412 LeaseIdMissing (the lease checked before the condition), not 409 BlobAlreadyExists; the blob unchanged",
  level: "rest",
  source: blobLeaseSource(
    "Put Blob, Lease Blob; Specifying Conditional Headers for Blob Service Operations; Azurite issue #2637 (Azure's answer quoted)",
  ),
  service: "blob",
  answers: [
    claimOn(
      "blob",
      { method: "PUT", path: "/c/b", headers: { "x-ms-blob-type": "BlockBlob" } },
      { params: { "if-none-match": "*" }, lease: "leased", exists: true },
      [answer(412, "LeaseIdMissing")],
    ),
  ],
  async run(t) {
    const c = await t.newContainer();
    const b = await newBlockBlob(t, "original", c);
    const x = blobTarget(b);
    await holdLease(t, x, -1, guid());
    const before = await blobSnapshot(b, c, "block");
    const what = "Put Blob with If-None-Match: * and no lease ID onto the leased blob";
    const res = await send(
      t,
      what,
      { method: "PUT", path: x.path, headers: { "x-ms-blob-type": "BlockBlob" }, body: "written over the lease" },
      "if-none-match",
      "*",
    );
    expectRawStatus(what, res, { status: 412, code: "LeaseIdMissing" });
    t.step("read back after the refused request");
    expectUnchanged(`${what}: the blob read back`, before, await blobSnapshot(b, c, "block"));
  },
});

defineTable({ table: "L Operations that honour a blob lease", service: "blob" }, rows);
