// The whole suite run once through the proxy with no mutant, against the
// shared Azurite (expectations: azurite), started on first use and shared
// (selftest/shared.ts) by every self-test file that compares a deviating
// target with a correct one.
import type { RowResult } from "../model/result.ts";
import { runHeadless } from "../fixtures/headless.ts";
import { sharedAzurite } from "./azurite-fixture.ts";
import { startProxy } from "./proxy.ts";
import { sharedOnce } from "./shared.ts";

export function proxiedBaseline(): Promise<RowResult[]> {
  return sharedOnce("proxied-baseline", async () => {
    const a = await sharedAzurite();
    const proxy = await startProxy({ upstream: a.ports });
    try {
      return (await runHeadless({ connectionString: proxy.connectionString, expectations: "azurite" })).results;
    } finally {
      await proxy.stop();
    }
  });
}
