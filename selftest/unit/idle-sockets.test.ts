// Idle keep-alive sockets (fixtures/wire/agents.ts), against a local HTTP
// server: the suite closes a socket left idle itself, well before the server's
// keep-alive timeout, so no request is handed one the server is closing (an
// ECONNRESET, and a lease action left without a verdict); a socket in steady
// use is still reused.
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { assert } from "chai";
import { createPipelineRequest } from "@azure/core-rest-pipeline";
import { IDLE_SOCKET_MS } from "../../fixtures/wire/agents.ts";
import { recordingHttpClient, withEvidence, type EvidenceStore } from "../../fixtures/wire/evidence.ts";

describe("idle keep-alive sockets", function () {
  let server: http.Server;
  let url = "";
  /** Per connection the server accepted: when the client closed it, if it did. */
  const connections: { closedAt?: number }[] = [];

  before(async function () {
    server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => res.end("ok"));
    });
    // Far longer than the test: any close within it is the client's.
    server.keepAliveTimeout = 120_000;
    server.on("connection", (s: Socket) => {
      const c: { closedAt?: number } = {};
      connections.push(c);
      s.on("close", () => (c.closedAt = Date.now()));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/c`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const send = () => {
    const store: EvidenceStore = { exchanges: [], seq: 0, secrets: [] };
    return withEvidence(store, () =>
      recordingHttpClient(10_000).sendRequest(createPipelineRequest({ url, method: "PUT", allowInsecureConnection: true })),
    );
  };

  it("requests in steady use share one connection", async function () {
    for (let i = 0; i < 3; i++) assert.equal((await send()).status, 200);
    assert.lengthOf(connections, 1);
  });

  it("a socket left idle is closed by the suite, long before the server would (it keeps it 120 s)", async function () {
    this.timeout(IDLE_SOCKET_MS + 30_000);
    // A loaded machine runs the timer late: the bound is the test's timeout, not a figure.
    while (connections[0].closedAt === undefined) await new Promise((r) => setTimeout(r, 100));
    assert.isDefined(connections[0].closedAt);
    assert.equal((await send()).status, 200);
    assert.lengthOf(connections, 2, "the next request opened a new connection");
  });
});
