// The operation records (suites/<service>/operations.ts, the file service's
// suites/file/surface/surface-ops.ts): each record's request classifies back
// to its own name (fixtures/wire/operations.ts), and every queue and table
// pair of catalogue/surface.tsv is a parameter of its operation's record,
// which the record's request sends; TB's If-Match column agrees with the
// table records.
import { assert } from "chai";
import { operationFamily, surfaceNameOfRequest } from "../../fixtures/wire/operations.ts";
import type { RawRequest } from "../../fixtures/wire/raw.ts";
import { listedSurface } from "../../fixtures/run/surface.ts";
import type { Service } from "../../model/result.ts";
import { classifierOperationOf, type ListedPair } from "../../model/surface.ts";
import { BLOB_OPERATIONS } from "../../suites/blob/operations.ts";
import { ANY_SUBJECT } from "../../suites/blob/operation-pairs.ts";
import { OPS as FILE_OPS } from "../../suites/file/surface/surface-ops.ts";
import type { Subject as FileSubject } from "../../suites/file/surface/surface-kit.ts";
import { ANY_QUEUE_SUBJECT, QUEUE_OPERATIONS } from "../../suites/queue/operations.ts";
import { ANY_TABLE_SUBJECT, TABLE_OPERATIONS, tableOp, type TableOperation } from "../../suites/table/operations.ts";
import { ENTITY_OPS, type EntityOpClaim } from "../../suites/table/entity-ops-claims.ts";

/** A record as this test reads it: its name, the request it sends, the concurrency parameters it takes. */
interface Named {
  operation: string;
  request: RawRequest;
  parameters?: string[];
}

const FILE_URL = "https://a.file.core.windows.net/s";
const FILE_SUBJECT: FileSubject = {
  share: "s",
  path: ["d", "f"],
  other: ["d", "g"],
  leased: ["d", "f"],
  holder: "A",
  another: "B",
  next: "C",
  leasedNow: true,
  source: { path: ["src"], url: `${FILE_URL}/src`, content: "source" },
  copyId: "id",
  url: (path) => `${FILE_URL}/${path.join("/")}`,
};

const RECORDS: Record<Service, Named[]> = {
  blob: [...BLOB_OPERATIONS.values()].map((r) => ({ operation: r.operation, request: r.request(ANY_SUBJECT) })),
  queue: [...QUEUE_OPERATIONS.values()].map((r) => ({ ...r, request: r.request(ANY_QUEUE_SUBJECT) })),
  table: [...TABLE_OPERATIONS.values()].map((r) => ({ ...r, request: r.request(ANY_TABLE_SUBJECT) })),
  file: FILE_OPS.map((r) => ({ operation: r.operation, request: r.request(FILE_SUBJECT, {}, 0) })),
};

/**
 * The name the classifier gives a record's request. A blob record names the
 * family of the classifier's operation ("Lease Blob" for "Lease Blob (acquire)",
 * "Put Page" for "Put Page (update)"); the others name the surface's name itself.
 */
function nameOf(service: Service, request: RawRequest): string {
  const name = surfaceNameOfRequest(service, request);
  return service === "blob" ? classifierOperationOf(operationFamily(name)) : name;
}

/** Records whose request the classifier names otherwise: `<record> → <classifier's name>`. */
function misnamed(service: Service, records: Named[]): string[] {
  return records.map((r) => [r.operation, nameOf(service, r.request)]).flatMap(([a, b]) => (a === b ? [] : [`${a} → ${b}`]));
}

/** The surface's pairs of a service that no record takes as a parameter. */
function uncovered(pairs: ListedPair[], records: Named[]): string[] {
  return pairs
    .filter((p) => !records.some((r) => r.operation === p.operation && r.parameters?.includes(p.parameter)))
    .map((p) => `${p.operation} | ${p.parameter}`);
}

/** A record's parameter the surface does not list for its operation, or its request does not send. */
function unlisted(service: Service, pairs: ListedPair[], records: Named[]): string[] {
  return records.flatMap((r) =>
    (r.parameters ?? []).flatMap((parameter) => {
      const sent = service === "queue" ? r.request.query?.[parameter] : r.request.headers?.[parameter];
      const listed = pairs.some((p) => p.operation === r.operation && p.parameter === parameter);
      return [
        ...(listed ? [] : [`${r.operation} | ${parameter}: not a pair of the surface`]),
        ...(sent ? [] : [`${r.operation} | ${parameter}: not sent`]),
      ];
    }),
  );
}

describe("operation records: each record's request classifies back to its own name", function () {
  let surface: ListedPair[];
  before(function () {
    const listed = listedSurface();
    assert.isDefined(listed, "catalogue/surface.tsv is missing: npm run surface");
    surface = listed!;
  });

  for (const service of ["blob", "queue", "table", "file"] as const) {
    it(`every ${service} record's request is named its record's operation`, function () {
      assert.isAbove(RECORDS[service].length, 0);
      assert.deepEqual(misnamed(service, RECORDS[service]), []);
      assert.equal(new Set(RECORDS[service].map((r) => r.operation)).size, RECORDS[service].length, "one record per operation");
    });
  }

  for (const service of ["queue", "table"] as const) {
    it(`every ${service} pair of catalogue/surface.tsv is a parameter of its operation's record, and the request sends it`, function () {
      const pairs = surface.filter((p) => p.service === service);
      assert.isAbove(pairs.length, 0);
      assert.deepEqual(uncovered(pairs, RECORDS[service]), []);
      assert.deepEqual(unlisted(service, pairs, RECORDS[service]), []);
    });
  }

  it("the checks can fail: a request altered to another operation's, a parameter left out, one the surface does not list", function () {
    const [del] = RECORDS.queue.filter((r) => r.operation === "Delete Message");
    assert.deepEqual(misnamed("queue", [{ ...del, request: { ...del.request, method: "PUT" } }]), ["Delete Message → Update Message"]);
    const [update] = RECORDS.table.filter((r) => r.operation === "Update Entity");
    const bare = { ...update, request: { ...update.request, headers: { "content-type": "application/json" } } };
    assert.deepEqual(misnamed("table", [bare]), ["Update Entity → Insert Or Replace Entity"]);
    const queuePairs = surface.filter((p) => p.service === "queue");
    const dropped = RECORDS.queue.map((r) => (r.operation === "Put Message" ? { ...r, parameters: ["visibilitytimeout"] } : r));
    assert.deepEqual(uncovered(queuePairs, dropped), ["Put Message | messagettl"]);
    const tablePairs = surface.filter((p) => p.service === "table");
    assert.deepEqual(unlisted("table", tablePairs, [{ ...bare, parameters: ["if-match", "if-none-match"] }]), [
      "Update Entity | if-match: not sent",
      "Update Entity | if-none-match: not a pair of the surface",
      "Update Entity | if-none-match: not sent",
    ]);
  });
});

/** TB claims whose "If-Match required" is not whether their record takes If-Match. */
const ifMatchDisagreements = (claims: EntityOpClaim[], recordOf: (slug: string) => TableOperation) =>
  claims.filter((c) => c.ifMatch !== recordOf(c.slug).parameters.includes("if-match")).map((c) => c.operation);

describe("the TB claims on the table records", function () {
  it("each claim's If-Match column is whether its operation's record takes If-Match (catalogue/surface.tsv)", function () {
    assert.lengthOf(ENTITY_OPS, 7);
    assert.deepEqual(ifMatchDisagreements(ENTITY_OPS, tableOp), []);
  });

  it("the check can fail: a record that no longer takes If-Match", function () {
    const without = (slug: string) => (slug === "merge-entity" ? { ...tableOp(slug), parameters: [] } : tableOp(slug));
    assert.deepEqual(ifMatchDisagreements(ENTITY_OPS, without), ["Merge Entity"]);
  });
});
