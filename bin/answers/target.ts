// What a recorded request addresses: the service and account (from an Azure
// host: <account>.blob|queue|table|file.core.windows.net; an emulator's or any
// other host is not Azure answering), and the resource whose state the
// tracker keeps.
import type { Service } from "../../model/result.ts";
import type { Exchange } from "./exchange.ts";

export interface Target {
  service: Service;
  account: string;
  /** The URL's path, as sent (encoded). */
  path: string;
  query: URLSearchParams;
}

const AZURE_HOST = /^([a-z0-9-]+)\.(blob|queue|table|file)\.core\.windows\.net$/i;

/** Query parameters decoded as the service reads them: a '+' stays a '+' (a pop receipt's), unlike URLSearchParams' own parsing. */
function queryOf(search: string): URLSearchParams {
  const q = new URLSearchParams();
  for (const part of search.replace(/^\?/, "").split("&").filter(Boolean)) {
    const at = part.indexOf("=");
    const [k, v] = at < 0 ? [part, ""] : [part.slice(0, at), part.slice(at + 1)];
    q.append(safeDecode(k).toLowerCase(), safeDecode(v));
  }
  return q;
}

const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** The Azure service a URL addresses, or undefined for any other host (an emulator's, a proxy's). */
export function targetOf(url: string): Target | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  const m = AZURE_HOST.exec(u.hostname);
  if (!m) return undefined;
  return { service: m[2].toLowerCase() as Service, account: m[1].toLowerCase(), path: u.pathname, query: queryOf(u.search) };
}

export const segmentsOf = (path: string): string[] => path.split("/").filter(Boolean).map(safeDecode);

/** A snapshot (of a blob, of a share) or a version is a resource of its own. */
function qualifier(q: URLSearchParams): string {
  const snapshot = q.get("snapshot") ?? q.get("sharesnapshot");
  if (snapshot) return `?snapshot=${snapshot}`;
  const version = q.get("versionid");
  return version ? `?versionid=${version}` : "";
}

/** The table entity a table URL or Location names: `t(PartitionKey='p',RowKey='r')`. */
const entityOf = (location: string | undefined) => {
  if (!location) return undefined;
  try {
    return segmentsOf(new URL(location).pathname).pop();
  } catch {
    return undefined;
  }
};

/**
 * The resource an exchange addresses, as the tracker keys it: service and
 * path (a queue's message list is the queue; an inserted table entity is the
 * entity the answer names; Create Table's is the table). Not the account:
 * recorders sanitise it in the request's host but not always in a copy
 * source's URL, and a -secondary host is the same account's data.
 */
export function resourceOf(t: Target, x: Exchange): string {
  const root = t.service;
  const segs = segmentsOf(t.path);
  if (t.service === "queue" && segs[1] === "messages" && segs.length === 2) return `${root}/${segs[0]}`;
  if (t.service === "table" && segs.length === 1) {
    const head = segs[0];
    const tables = /^Tables(\(\))?$/.exec(head);
    if (tables && x.method === "POST") {
      const name = /"TableName"\s*:\s*"([^"]+)"/.exec(x.requestBody ?? "")?.[1];
      return name ? `${root}/${name}` : `${root}/${head}`;
    }
    const named = /^Tables\('([^']+)'\)$/.exec(head);
    if (named) return `${root}/${named[1]}`;
    if (x.method === "POST" && !head.includes("(") && head !== "$batch") {
      const entity = entityOf(x.responseHeaders["location"] ?? x.responseHeaders["dataserviceid"]);
      if (entity) return `${root}/${entity}`;
      const pk = /"PartitionKey"\s*:\s*"([^"]*)"/.exec(x.requestBody ?? "")?.[1];
      const rk = /"RowKey"\s*:\s*"([^"]*)"/.exec(x.requestBody ?? "")?.[1];
      if (pk !== undefined && rk !== undefined) return `${root}/${head}(PartitionKey='${pk}',RowKey='${rk}')`;
    }
    return `${root}/${head.replace(/\(\)$/, "")}`;
  }
  return `${root}/${segs.join("/")}${qualifier(t.query)}`;
}

/** The qualifiers of a request the claims tell apart (RecordedAnswer.shape). */
export function shapeOf(t: Target, x: Exchange): string[] | undefined {
  const shape: string[] = [];
  // A ranged read of the content (Get Blob, Get File); a range is part of what Put Page, Get Page Ranges and the like always are.
  const contentRead = x.method === "GET" && !t.query.has("comp") && !t.query.has("restype");
  if (contentRead && (x.requestHeaders["range"] !== undefined || x.requestHeaders["x-ms-range"] !== undefined)) shape.push("range");
  if (t.query.has("snapshot") || t.query.has("sharesnapshot")) shape.push("snapshot");
  if (t.query.has("versionid")) shape.push("version");
  return shape.length ? shape.sort() : undefined;
}
