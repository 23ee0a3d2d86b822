// Mutants generated from the read paths (suites/general/path-claims.ts): for
// each path and each thing it shows, a target that serves it stale (a listing
// keeps each item's first listed value; an answer's ETag is the one the
// resource had before; a batch answers ETags no entity has); for a listing,
// one that keeps listing what was deleted and one that misses an item the
// first time it would list it. Each is killed by the path's row.
import { PATHS, type PathClaim, type PathField } from "../../suites/general/path-claims.ts";
import { remember, serveStale } from "./etag-kit.ts";
import { query, segments, type ClaimTable, type Mutant, type MutantState, type ProxyRequest, type ProxyResponse } from "./types.ts";

const STALE_ENTITY_ETAG = `W/"datetime'2000-01-01T00%3A00%3A00.0000000Z'"`;
const ok = (res: ProxyResponse) => res.status >= 200 && res.status < 300;
const reads = (p: PathClaim, req: ProxyRequest) =>
  req.service === p.service &&
  p.reads({ method: req.method, path: "/" + segments(req).join("/"), query: query(req), header: (n) => req.headers[n.toLowerCase()] });
const slug = (p: PathClaim) => p.id.slice(p.id.lastIndexOf("/") + 1);
const fieldSlug = (f: PathField) => f.name.toLowerCase().replace(/[^a-z0-9]+/g, "-");

/** A listing's items (the XML of each), keyed by name (and snapshot), in the order listed. */
function itemsOf(p: PathClaim, body: string): { key: string; xml: string }[] {
  const { element, name } = p.items!;
  return [...body.matchAll(new RegExp(`<${element}>[\\s\\S]*?</${element}>`, "g"))].map(([xml]) => {
    const n = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1] ?? "";
    const snap = /<Snapshot>([^<]*)<\/Snapshot>/.exec(xml)?.[1];
    return { key: snap ? `${n}?snapshot=${snap}` : n, xml };
  });
}

/** Rewrites a listing's items (the list between its first and last item is replaced). */
function relist(p: PathClaim, res: ProxyResponse, fn: (items: { key: string; xml: string }[]) => { key: string; xml: string }[]): void {
  const body = res.body.toString("utf8");
  const { element } = p.items!;
  const all = itemsOf(p, body);
  const wrapper = p.items!.element === "QueueMessage" ? "QueueMessagesList" : `${element}s`;
  const next = fn(all)
    .map((i) => i.xml)
    .join("");
  const re = new RegExp(`<${wrapper}\\s*/>|<${wrapper}>[\\s\\S]*</${wrapper}>`);
  res.body = Buffer.from(re.test(body) ? body.replace(re, `<${wrapper}>${next}</${wrapper}>`) : body);
}

/** The scope of a listing: what it lists (a container, the account, a queue). */
const scope = (req: ProxyRequest) => `${req.service}:${segments(req).join("/")}`;

function stale(p: PathClaim, f: PathField): Mutant {
  const name = `path-${slug(p)}-${fieldSlug(f)}-stale`;
  const kills = [p.id];
  if (f.where === "xml") {
    return {
      name,
      description: `${p.id}: the path keeps showing each item's ${f.name} as it first showed it`,
      kills,
      cell: p.id,
      onResponse(req, res, state) {
        if (!reads(p, req) || !ok(res)) return;
        const re = new RegExp(`<${f.key}>([^<]*)</${f.key}>`);
        relist(p, res, (items) =>
          items.map((i) => {
            const key = `first ${scope(req)} ${i.key} ${f.key}`;
            const now = re.exec(i.xml)?.[1];
            if (now === undefined) return i;
            if (!state.has(key)) state.set(key, now);
            return { key: i.key, xml: i.xml.replace(re, `<${f.key}>${state.get(key) as string}</${f.key}>`) };
          }),
        );
      },
    };
  }
  if (f.where === "batch") {
    return {
      name,
      description: `${p.id}: every sub-response answers an ETag the entity does not have`,
      kills,
      cell: p.id,
      onResponse(req, res) {
        if (reads(p, req) && ok(res))
          res.body = Buffer.from(res.body.toString("utf8").replace(/^ETag:[^\r\n]*/gim, `ETag: ${STALE_ENTITY_ETAG}`));
      },
    };
  }
  // A header or a JSON property: the ETag the resource had before this one.
  return {
    name,
    description: `${p.id}: the path answers the ETag the resource had before its last change`,
    kills,
    cell: p.id,
    onResponse(req, res, state) {
      remember(req, res, state);
      if (reads(p, req) && ok(res)) serveStale(req, res, state);
    },
  };
}

/** Items a listing showed, by scope: the last XML of each. */
function seen(state: MutantState, req: ProxyRequest): Map<string, string> {
  const key = `seen ${scope(req)}`;
  if (!state.has(key)) state.set(key, new Map<string, string>());
  return state.get(key) as Map<string, string>;
}

type Item = { key: string; xml: string };

/** A listing rewritten from what it lists now and what it listed before (`known`, updated after). */
function relisting(p: PathClaim, what: string, description: string, items: (now: Item[], known: Map<string, string>) => Item[]): Mutant {
  return {
    name: `path-${slug(p)}-${what}`,
    description: `${p.id}: ${description}`,
    kills: [p.id],
    cell: p.id,
    onResponse(req, res, state) {
      if (!reads(p, req) || !ok(res)) return;
      const known = seen(state, req);
      relist(p, res, (now) => {
        const shown = items(now, known);
        for (const i of now) known.set(i.key, i.xml);
        return shown;
      });
    },
  };
}

const deletedStillListed = (p: PathClaim) =>
  relisting(p, "deleted-still-listed", "an item, once listed, stays listed after it is deleted", (now, known) => {
    const listedNow = new Set(now.map((i) => i.key));
    return [...now, ...[...known].filter(([k]) => !listedNow.has(k)).map(([key, xml]) => ({ key, xml }))];
  });

const newMissing = (p: PathClaim) =>
  relisting(p, "new-missing", "an item is missing from the first listing it should appear in", (now, known) =>
    now.filter((i) => known.has(i.key)),
  );

const GENERATED = PATHS.map((p) => ({
  p,
  mutants: [
    ...p.fields.map((f) => stale(p, f)),
    ...(p.items ? [newMissing(p)] : []),
    ...(p.items?.deletedGone ? [deletedStillListed(p)] : []),
  ],
}));

export const MUTANTS: Mutant[] = GENERATED.flatMap((g) => g.mutants);

export const CLAIM_TABLES: ClaimTable[] = [
  {
    table: "G Read paths",
    kind: "agrees with the strongest read",
    claims: GENERATED.flatMap(({ p, mutants }) =>
      mutants.map((m) => ({ claim: `${p.id}: ${m.description.slice(p.id.length + 2)}`, row: p.id, mutants: [m.name] })),
    ),
  },
];
