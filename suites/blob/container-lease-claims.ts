// The container operations that carry a container lease's ID (catalogue L,
// blob/container-lease/ops/<op>): how each is sent, what it answers when it
// succeeds and how its effect shows. container-lease.rows.ts generates its rows
// from them, selftest/mutants/container-lease-ops.ts its mutants.
import { expectEqual, expectTrue } from "../../fixtures/harness/assert.ts";
import type { RowContext } from "../../fixtures/harness/engine.ts";
import type { RawResponse } from "../../fixtures/wire/raw.ts";
import { claimAt } from "../../fixtures/harness/locations.ts";
import type { LeaseTarget } from "./lease-kit.ts";
import { allAnswered } from "../../fixtures/wire/signals.ts";

export interface ContainerView {
  exists: boolean;
  etag?: string;
  metadata?: string;
  acl?: string[];
}

/** One container request, with x-ms-lease-id when `leaseId` is given. */
export function req(
  t: RowContext,
  x: LeaseTarget,
  method: string,
  query: Record<string, string>,
  leaseId?: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawResponse> {
  return t.raw("blob", {
    method,
    path: x.path,
    query: { restype: "container", ...query },
    headers: { ...(leaseId ? { "x-ms-lease-id": leaseId } : {}), ...headers },
    body,
  });
}

const aclBody = (id: string) =>
  `<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers><SignedIdentifier><Id>${id}</Id><AccessPolicy><Start>2020-01-01T00:00:00.0000000Z</Start><Expiry>2099-01-01T00:00:00.0000000Z</Expiry><Permission>r</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>`;

/** What a refused container write could have changed, read back. */
export async function view(t: RowContext, x: LeaseTarget): Promise<ContainerView> {
  // Both reads at once: they change nothing.
  const [props, acl] = await allAnswered([req(t, x, "GET", {}), req(t, x, "GET", { comp: "acl" })] as const);
  if (props.status === 404) return { exists: false };
  expectEqual("read back the container: status", props.status, 200);
  return {
    exists: true,
    etag: props.headers["etag"],
    metadata: props.headers["x-ms-meta-state"],
    acl: [...acl.body.matchAll(/<Id>([^<]*)<\/Id>/g)].map((m) => m[1]),
  };
}

export interface ContainerOp {
  slug: string;
  operation: string;
  write: boolean;
  /** Sends the operation. */
  call(t: RowContext, x: LeaseTarget, leaseId?: string): Promise<RawResponse>;
  okStatus: number;
  /** After success: the answer or the state shows the operation took effect. */
  took(t: RowContext, x: LeaseTarget, res: RawResponse, before: ContainerView): Promise<void>;
}

/** The line of an operation in OPS. */
export const containerLeaseOpAt = (slug: string) => claimAt(import.meta.url, `slug: "${slug}",`);

export const OPS: ContainerOp[] = [
  {
    slug: "delete-container",
    operation: "Delete Container",
    write: true,
    okStatus: 202,
    call: (t, x, id) => req(t, x, "DELETE", {}, id),
    took: async (t, x) => expectEqual("the container exists after Delete Container", (await view(t, x)).exists, false),
  },
  {
    slug: "get-container-properties",
    operation: "Get Container Properties",
    write: false,
    okStatus: 200,
    call: (t, x, id) => req(t, x, "GET", {}, id),
    took: async (t, x, res) =>
      expectEqual("x-ms-meta-state returned by Get Container Properties", res.headers["x-ms-meta-state"], "original"),
  },
  {
    slug: "get-container-metadata",
    operation: "Get Container Metadata",
    write: false,
    okStatus: 200,
    call: (t, x, id) => req(t, x, "GET", { comp: "metadata" }, id),
    took: async (t, x, res) =>
      expectEqual("x-ms-meta-state returned by Get Container Metadata", res.headers["x-ms-meta-state"], "original"),
  },
  {
    slug: "set-container-metadata",
    operation: "Set Container Metadata",
    write: true,
    okStatus: 200,
    call: (t, x, id) => req(t, x, "PUT", { comp: "metadata" }, id, { "x-ms-meta-state": "changed" }),
    took: async (t, x) => expectEqual("metadata after Set Container Metadata", (await view(t, x)).metadata, "changed"),
  },
  {
    slug: "get-container-acl",
    operation: "Get Container ACL",
    write: false,
    okStatus: 200,
    call: (t, x, id) => req(t, x, "GET", { comp: "acl" }, id),
    took: async (t, x, res) => expectTrue("Get Container ACL returns a SignedIdentifiers document", res.body.includes("SignedIdentifiers")),
  },
  {
    slug: "set-container-acl",
    operation: "Set Container ACL",
    write: true,
    okStatus: 200,
    call: (t, x, id) => req(t, x, "PUT", { comp: "acl" }, id, { "content-type": "application/xml" }, aclBody("changed")),
    took: async (t, x) => expectEqual("ACL after Set Container ACL", (await view(t, x)).acl, ["changed"]),
  },
];

/** Delete Container without the ID on a locked container: refused (disputed: 412 LeaseIdMissing or 409), the container read back unchanged. */
export async function deleteRefused(t: RowContext, x: LeaseTarget, where: string): Promise<void> {
  const before = await view(t, x);
  const res = await req(t, x, "DELETE", {});
  t.note("refusal", `${res.status} ${res.errorCode ?? ""}`.trim());
  const got = `${res.status} ${res.errorCode ?? ""}`.trim();
  expectTrue(
    `Delete Container without the lease ID ${where}: expected 412 LeaseIdMissing or 409, got ${got}`,
    (res.status === 412 && res.errorCode === "LeaseIdMissing") || res.status === 409,
    {
      expected: "412 LeaseIdMissing or 409",
      got,
    },
  );
  expectEqual(`the container after the refused delete ${where}`, await view(t, x), before);
}
