// The account-level operations the queue and table services share (Get and
// Set <Service> Service Properties, Get <Service> Service Stats) as operation
// records, and the lookup of a service's records by slug
// (suites/queue/operations.ts, suites/table/operations.ts).
import type { RawRequest } from "../fixtures/wire/raw.ts";

interface AccountRecord {
  operation: string;
  slug: string;
  kind: "read" | "write";
  request(): RawRequest;
  parameters: string[];
}

const SERVICE = { path: "/", query: { restype: "service" } };

/** The service's account-level records: `Queue` gives Get Queue Service Properties, … */
export function accountRecords(service: "Queue" | "Table"): AccountRecord[] {
  const name = service.toLowerCase();
  const at = (comp: string) => ({ ...SERVICE, query: { ...SERVICE.query, comp } });
  return [
    {
      operation: `Get ${service} Service Properties`,
      slug: `get-${name}-service-properties`,
      kind: "read",
      request: () => ({ method: "GET", ...at("properties") }),
      parameters: [],
    },
    {
      operation: `Set ${service} Service Properties`,
      slug: `set-${name}-service-properties`,
      kind: "write",
      // Account-wide: an element left out keeps its setting, so this body changes nothing.
      request: () => ({
        method: "PUT",
        ...at("properties"),
        headers: { "content-type": "application/xml" },
        body: `<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties></StorageServiceProperties>`,
      }),
      parameters: [],
    },
    {
      operation: `Get ${service} Service Stats`,
      slug: `get-${name}-service-stats`,
      kind: "read",
      request: () => ({ method: "GET", ...at("stats") }),
      parameters: [],
    },
  ];
}

/** A service's records by slug, and the one lookup that fails naming a slug no record has. */
export function recordsBySlug<R extends { slug: string }>(
  service: string,
  records: R[],
): { all: ReadonlyMap<string, R>; of(slug: string): R } {
  const all = new Map(records.map((r) => [r.slug, r]));
  return {
    all,
    of(slug) {
      const r = all.get(slug);
      if (!r) throw new Error(`no ${service} operation record ${slug}`);
      return r;
    },
  };
}
