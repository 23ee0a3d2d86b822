// The preflight asks the services the selected rows use, and no other: a run
// of blob rows sends the queue and table services nothing and reports on
// blob alone. A selection whose services none answer asks the others, so a
// target that serves another service gets a run (its rows NOT_AVAILABLE), as
// a run of every service would, not a configuration error.
import { expect } from "chai";
import { runHeadless } from "./headless.ts";
import { sharedAzurite } from "./azurite-fixture.ts";
import { startProxy } from "./proxy.ts";

/** Runs the rows `select` picks through a proxy that only records which service each request went to. */
async function servicesAsked(select: (id: string) => boolean) {
  const azurite = await sharedAzurite();
  const asked = new Set<string>();
  const proxy = await startProxy({
    upstream: azurite.ports,
    mutant: {
      name: "record-services",
      description: "records each request's service",
      kills: [],
      onRequest: (req) => void asked.add(req.service),
    },
  });
  try {
    const run = await runHeadless({ connectionString: proxy.connectionString, select, expectations: "azurite" });
    return { run, asked: [...asked].sort() };
  } finally {
    await proxy.stop();
  }
}

describe("the preflight asks the services the selection uses", function () {
  it("a run of one blob row probes, uses and sweeps the blob service alone", async function () {
    const { run, asked } = await servicesAsked((id) => id === "blob/container-ops/create-container/etag");
    expect(run.results.map((r) => `${r.id} ${r.status}`)).to.deep.equal(["blob/container-ops/create-container/etag PASS"]);
    expect(run.probes.map((p) => p.service)).to.deep.equal(["blob"]);
    expect(asked).to.deep.equal(["blob"]);
  });

  it("a run of queue and table rows probes those two", async function () {
    const { run, asked } = await servicesAsked(
      (id) => id === "queue/queue-metadata/last-writer-wins" || id === "table/entity-ops/insert-entity/etag",
    );
    expect(run.probes.map((p) => p.service).sort()).to.deep.equal(["queue", "table"]);
    expect(asked).to.deep.equal(["queue", "table"]);
  });

  it("file rows on a target with no file endpoint: the other services are asked, the run goes on, its rows NOT_AVAILABLE", async function () {
    const { run } = await servicesAsked((id) => id.startsWith("file/rest/"));
    expect(run.results.length).to.be.greaterThan(0);
    expect(run.results.filter((r) => r.status !== "NOT_AVAILABLE").map((r) => `${r.id} ${r.status}`)).to.deep.equal([]);
    const file = run.probes.find((p) => p.service === "file");
    expect(file?.available, "file").to.equal(false);
    expect(
      run.probes.filter((p) => p.available).map((p) => p.service),
      "the services that answered",
    ).to.have.members(["blob", "queue", "table"]);
  });
});
