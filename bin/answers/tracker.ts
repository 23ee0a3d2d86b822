// The state a recording establishes, resource by resource, from the answers
// it shows: the latest ETag and Last-Modified, whether the resource is there,
// its lease, its tags, a page blob's sequence number, a blob's length, a
// queue message's pop receipts. Only answers about the resource count, and
// a failed request changes nothing (but a 404 says it is not there).
import type { LeaseStateOf } from "../../model/answers.ts";
import type { Exchange } from "./exchange.ts";

export interface ResourceState {
  etag?: string;
  /** Seconds since the epoch. */
  lastModified?: number;
  exists?: boolean;
  lease?: LeaseStateOf;
  leaseDuration?: "infinite" | "fixed";
  /** The ID of the current or last lease. */
  leaseId?: string;
  /** A fixed lease's length, and when it ends (seconds since the epoch); when a breaking lease is broken. */
  leaseSeconds?: number;
  leaseUntil?: number;
  breakUntil?: number;
  /** The recording created it: no lease it had is missing from the recording. */
  created?: boolean;
  tags?: Record<string, string>;
  sequenceNumber?: number;
  length?: number;
  /** A queue message's pop receipts: the one that works, and those a later dequeue or update superseded. */
  receipt?: string;
  staleReceipts?: Set<string>;
}

/** Seconds since the epoch of an RFC 1123 date, undefined when it is none. */
export function seconds(date: string | undefined): number | undefined {
  const ms = date ? Date.parse(date) : NaN;
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

const LEASE_STATES: LeaseStateOf[] = ["available", "leased", "breaking", "broken", "released", "expired"];

/** Operations whose success leaves the resource there, made anew unless the answer shows otherwise. */
const CREATES =
  /^(Create (Container|Share|Directory|File|Queue|Table)|Put Blob|Copy Blob|Copy Blob From URL|Incremental Copy Blob|Put Block List|Copy File|Insert Entity|Insert Or (Replace|Merge) Entity)\b/;
/** What they create that can be leased; what they create that has tags. */
const LEASABLE = /^(Create (Container|Share|File)|Put Blob|Copy Blob|Incremental Copy Blob|Put Block List|Copy File)\b/;
const BLOB_WRITES = /^(Put Blob|Copy Blob|Incremental Copy Blob|Put Block List)\b/;
/** Get Blob, and its sub-actions ("Get Blob (CRC64)"). */
const GET_BLOB = /^Get Blob( \(|$)/;
/** Those that fail on a resource already there (409): a success made it anew. */
const CREATES_ONLY_NEW = /^(Create (Container|Share|Directory|File|Queue|Table)|Insert Entity)$/;

/** What an append adds: its body, or the source range Append Block From URL copies. */
export function appendedBytes(x: Exchange, operation: string): number | undefined {
  if (operation === "Append Block From URL") {
    const range = /^bytes=(\d+)-(\d+)$/.exec(x.requestHeaders["x-ms-source-range"] ?? "");
    return range ? Number(range[2]) - Number(range[1]) + 1 : undefined;
  }
  const length = x.requestHeaders["content-length"];
  return length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
}

/** The queue of a message's key (`queue/q/messages/id` → `queue/q`). */
export const queueOf = (messageKey: string) => messageKey.replace(/\/messages\/[^/]*$/, "");

/** Messages (id, pop receipt) of a queue's XML answer. */
export function messagesOf(body: string | undefined): { id: string; receipt: string }[] {
  return [...(body ?? "").matchAll(/<QueueMessage>([\s\S]*?)<\/QueueMessage>/g)].flatMap((m) => {
    const id = /<MessageId>([^<]*)<\/MessageId>/.exec(m[1])?.[1];
    const receipt = /<PopReceipt>([^<]*)<\/PopReceipt>/.exec(m[1])?.[1];
    return id && receipt ? [{ id, receipt }] : [];
  });
}

/** Tags from Set Blob Tags' or Get Blob Tags' XML, or an x-ms-tags header (URL-encoded pairs). */
export function tagsOf(xml: string | undefined, header?: string): Record<string, string> {
  if (header !== undefined) return Object.fromEntries(new URLSearchParams(header));
  const decode = (s: string) =>
    s
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, "&");
  return Object.fromEntries(
    [...(xml ?? "").matchAll(/<Tag>\s*<Key>([^<]*)<\/Key>\s*<Value>([^<]*)<\/Value>\s*<\/Tag>/g)].map((m) => [decode(m[1]), decode(m[2])]),
  );
}

export class Tracker {
  private readonly resources = new Map<string, ResourceState>();

  /** An entity group transaction was seen: the entities it wrote are not followed, so none is known absent. */
  private batched = false;

  /**
   * A resource's state at a time: a fixed lease past its end has expired, a
   * breaking lease past its period is broken; within a second of either,
   * unknown. One the recording never wrote, in a container, share, directory
   * or table the recording created, is not there.
   */
  at(key: string, now: number | undefined): ResourceState {
    if (!this.resources.has(key) && this.createdParentOf(key)) return { exists: false };
    const s = this.current(key, now);
    const end = this.leaseEnd(s);
    return end !== undefined && now !== undefined && now > end - 1 ? { ...s, lease: undefined } : s;
  }

  private leaseEnd = (s: ResourceState) =>
    s.lease === "leased" && s.leaseDuration === "fixed" ? s.leaseUntil : s.lease === "breaking" ? s.breakUntil : undefined;

  /** The stored state, moved on where the time says for sure that the lease expired or broke. */
  private current(key: string, now: number | undefined): ResourceState {
    const s = this.resources.get(key) ?? {};
    this.resources.set(key, s);
    const end = this.leaseEnd(s);
    if (end !== undefined && now !== undefined && now >= end + 1) s.lease = s.lease === "leased" ? "expired" : "broken";
    return s;
  }

  /** Forgets a resource (deleted, or answered 404) and what it held; its last lease ID and pop receipts stay, to tell a later request's. */
  private gone(key: string, withChildren: boolean): void {
    for (const [k, s] of this.resources) {
      if (k !== key && !(withChildren && (k.startsWith(`${key}/`) || k.startsWith(`${key}(`) || k.startsWith(`${key}?`)))) continue;
      this.resources.set(k, { exists: false, leaseId: s.leaseId, receipt: s.receipt, staleReceipts: s.staleReceipts });
    }
    if (!this.resources.has(key)) this.resources.set(key, { exists: false });
  }

  /** Whether the resource's parent (container, share, directory, table) was created by the recording and is still there. */
  private createdParentOf(key: string): boolean {
    if (key.includes("?") || key.startsWith("queue/")) return false;
    const entity = /^(table\/[^/(]+)\(/.exec(key);
    if (entity && this.batched) return false;
    const parent = entity ? entity[1] : key.includes("/", key.indexOf("/") + 1) ? key.slice(0, key.lastIndexOf("/")) : undefined;
    const p = parent === undefined ? undefined : this.resources.get(parent);
    return !!p?.created && p.exists === true;
  }

  /** Takes in what an exchange's answer shows about the resource it addressed (`key`). */
  observe(x: Exchange, operation: string, key: string, now: number | undefined, popreceipt?: string): void {
    if (/\$batch/.test(key) || /batch/i.test(operation)) this.batched = true;
    const h = x.responseHeaders;
    const rq = (name: string) => x.requestHeaders[name];
    if (x.status === 404) return this.gone(key, false);
    if (x.status < 200 || x.status >= 300) return;
    if (operation === "Clear Messages") return this.gone(`${key}/messages`, true);
    if (x.method === "DELETE") {
      if (rq("x-ms-delete-snapshots") === "only") return;
      if (operation === "Delete Message" && popreceipt) for (const m of this.holders(queueOf(key), popreceipt)) m.exists = false;
      return this.gone(key, true);
    }
    let s = this.current(key, now);
    const fresh = CREATES.test(operation) && (CREATES_ONLY_NEW.test(operation) || (!s.exists && rq("x-ms-lease-id") === undefined));
    if (fresh) {
      s = { created: true, leaseId: s.leaseId };
      if (LEASABLE.test(operation)) s.lease = "available";
      if (operation === "Put Blob (PageBlob)") s.sequenceNumber = Number(rq("x-ms-blob-sequence-number") ?? 0);
    }
    this.resources.set(key, s);
    s.exists = true;
    if (h["etag"]) s.etag = h["etag"];
    if (h["last-modified"]) s.lastModified = seconds(h["last-modified"]);
    if (operation.startsWith("Lease ")) this.lease(s, x, now);
    const state = h["x-ms-lease-state"] as LeaseStateOf | undefined;
    if (state && LEASE_STATES.includes(state) && !(state === "available" && s.lease === "released")) s.lease = state;
    else if (!state && h["x-ms-lease-status"] === "locked") s.lease = "leased";
    if (h["x-ms-lease-duration"] === "infinite" || h["x-ms-lease-duration"] === "fixed") s.leaseDuration = h["x-ms-lease-duration"];
    if (h["x-ms-blob-sequence-number"] !== undefined) s.sequenceNumber = Number(h["x-ms-blob-sequence-number"]);
    // An overwrite's tags are its x-ms-tags, else not known here.
    if (BLOB_WRITES.test(operation)) s.tags = rq("x-ms-tags") !== undefined ? tagsOf(undefined, rq("x-ms-tags")) : fresh ? {} : undefined;
    if (operation === "Set Blob Tags") s.tags = tagsOf(x.requestBody);
    if (operation === "Get Blob Tags") s.tags = tagsOf(x.responseBody);
    this.length(s, x, operation);
    if (operation === "Snapshot Blob" && h["x-ms-snapshot"])
      this.resources.set(`${key}?snapshot=${h["x-ms-snapshot"]}`, { exists: true, etag: h["etag"], lastModified: s.lastModified });
    this.receipts(x, operation, key, popreceipt);
  }

  private lease(s: ResourceState, x: Exchange, now: number | undefined): void {
    const h = x.responseHeaders;
    const rq = (name: string) => x.requestHeaders[name];
    switch (rq("x-ms-lease-action")) {
      case "acquire": {
        const duration = Number(rq("x-ms-lease-duration") ?? -1);
        s.lease = "leased";
        s.leaseId = h["x-ms-lease-id"] ?? rq("x-ms-proposed-lease-id");
        s.leaseDuration = duration === -1 ? "infinite" : "fixed";
        s.leaseSeconds = duration === -1 ? undefined : duration;
        s.leaseUntil = s.leaseSeconds !== undefined && now !== undefined ? now + s.leaseSeconds : undefined;
        break;
      }
      case "renew":
        s.lease = "leased";
        s.leaseUntil = s.leaseSeconds !== undefined && now !== undefined ? now + s.leaseSeconds : undefined;
        break;
      case "change":
        s.lease = "leased";
        s.leaseId = h["x-ms-lease-id"] ?? rq("x-ms-proposed-lease-id");
        break;
      case "release":
        s.lease = "released";
        break;
      case "break": {
        const time = Number(h["x-ms-lease-time"] ?? 0);
        s.lease = time > 0 ? "breaking" : "broken";
        s.breakUntil = time > 0 && now !== undefined ? now + time : undefined;
        break;
      }
    }
  }

  /** A blob's length, where an answer shows it (what maxsize and appendpos conditions are set against). */
  private length(s: ResourceState, x: Exchange, operation: string): void {
    const h = x.responseHeaders;
    const rq = (name: string) => x.requestHeaders[name];
    const num = (v: string | undefined) => (v === undefined || v === "" || Number.isNaN(Number(v)) ? undefined : Number(v));
    if (operation === "Put Blob (BlockBlob)") s.length = num(rq("content-length")) ?? x.requestBody?.length;
    else if (operation === "Put Blob (AppendBlob)") s.length = 0;
    else if (operation === "Put Blob (PageBlob)" || operation === "Set Blob Properties (resize)")
      s.length = num(rq("x-ms-blob-content-length"));
    else if (operation === "Append Block" || operation === "Append Block From URL") {
      const offset = num(h["x-ms-blob-append-offset"]);
      const added = appendedBytes(x, operation);
      s.length = offset !== undefined && added !== undefined ? offset + added : undefined;
    } else if (operation === "Get Blob Properties" || (GET_BLOB.test(operation) && x.status === 200 && !rq("range") && !rq("x-ms-range")))
      s.length = num(h["content-length"]);
    else if (GET_BLOB.test(operation) && x.status === 206) s.length = num(/\/(\d+)$/.exec(h["content-range"] ?? "")?.[1]);
    else if (/^(Put Block List|Copy Blob|Put Blob From URL|Put Page)/.test(operation)) s.length = undefined;
  }

  /**
   * Where a pop receipt stands among the queue's messages: the one that works
   * on its message, or one a later dequeue or update superseded. Looked up by
   * the receipt (unique), not the message ID, which some recorders sanitise
   * in the URL and not in the answer.
   */
  receiptStanding(queue: string, receipt: string): "current" | "stale" | undefined {
    let stale = false;
    for (const [k, s] of this.resources) {
      if (!k.startsWith(`${queue}/messages/`)) continue;
      if (s.receipt === receipt) return "current";
      stale ||= !!s.staleReceipts?.has(receipt);
    }
    return stale ? "stale" : undefined;
  }

  /** The messages whose receipt this is. */
  private holders(queue: string, receipt: string): ResourceState[] {
    return [...this.resources].filter(([k, s]) => k.startsWith(`${queue}/messages/`) && s.receipt === receipt).map(([, s]) => s);
  }

  /** Pop receipts: Put Message's and Get Messages' (the answer's XML), Update Message's (x-ms-popreceipt), superseding the one the request gave. */
  private receipts(x: Exchange, operation: string, key: string, popreceipt: string | undefined): void {
    const next = (messageKey: string, receipt: string) => {
      const m = this.resources.get(messageKey) ?? {};
      if (m.receipt && m.receipt !== receipt) (m.staleReceipts ??= new Set()).add(m.receipt);
      m.receipt = receipt;
      m.exists = true;
      this.resources.set(messageKey, m);
    };
    if (operation === "Put Message" || operation === "Get Messages")
      for (const { id, receipt } of messagesOf(x.responseBody)) next(`${key}/messages/${id}`, receipt);
    if (operation === "Update Message" && x.responseHeaders["x-ms-popreceipt"]) {
      if (popreceipt)
        for (const m of this.holders(queueOf(key), popreceipt)) {
          (m.staleReceipts ??= new Set()).add(popreceipt);
          m.receipt = undefined;
        }
      next(key, x.responseHeaders["x-ms-popreceipt"]);
    }
  }
}
