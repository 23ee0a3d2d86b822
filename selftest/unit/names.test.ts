// Resource names: one per-run prefix valid for every kind of resource the
// suite creates, carrying its start time; and the sweep's age rules.
import { assert } from "chai";
import { Namer, newRunPrefix, prefixTime, runPrefixOf } from "../../fixtures/wire/names.ts";
import { ConfigError } from "../../fixtures/wire/target.ts";
import { isOldLeftover, parseAge } from "../../bin/sweep.ts";

// Naming rules from the REST reference ("Naming and Referencing Containers, Blobs,
// and Metadata", "Naming Queues and Metadata", "Understanding the Table Service
// Data Model", "Naming and Referencing Shares, Directories, Files, and Metadata").
const RULES: Record<string, RegExp> = {
  container: /^(?=.{3,63}$)[a-z0-9](?!.*--)[a-z0-9-]*[a-z0-9]$/,
  queue: /^(?=.{3,63}$)[a-z0-9](?!.*--)[a-z0-9-]*[a-z0-9]$/,
  table: /^[A-Za-z][A-Za-z0-9]{2,62}$/,
  share: /^(?=.{3,63}$)[a-z0-9](?!.*--)[a-z0-9-]*[a-z0-9]$/,
};

describe("resource names", function () {
  it("the rules themselves reject what the service refuses", function () {
    assert.notMatch("Upper", RULES.container);
    assert.notMatch("a--b", RULES.queue);
    assert.notMatch("1table", RULES.table);
    assert.notMatch("ab", RULES.share);
  });

  it("every name a run makes is valid for containers, queues, tables and shares", function () {
    for (const when of [new Date("2025-01-01T00:00:00Z"), new Date(), new Date("2099-12-31T23:59:59Z")]) {
      const namer = new Namer(newRunPrefix(when));
      for (const kind of ["c", "q", "t", "s", "b", "f", "d"] as const) {
        const name = namer.next(kind);
        for (const [what, rule] of Object.entries(RULES)) assert.match(name, rule, `${name} as a ${what} name`);
      }
    }
    const n = new Namer(newRunPrefix());
    let last = "";
    for (let i = 0; i < 10_001; i++) last = n.next("c");
    assert.match(last, RULES.table, "still valid past 9999 names");
  });

  it("all of a run's names share its prefix; another run's prefix differs", function () {
    const p = newRunPrefix();
    const n = new Namer(p);
    assert.equal(runPrefixOf(n.next("c")), p);
    assert.equal(runPrefixOf(n.next("t")), p);
    assert.notEqual(newRunPrefix(), p);
  });

  it("the prefix carries the run's start time (to the second)", function () {
    const when = new Date("2026-03-04T05:06:07Z");
    assert.equal(prefixTime(new Namer(newRunPrefix(when)).next("q"))?.toISOString(), when.toISOString());
    assert.isUndefined(prefixTime("mycontainer"));
    assert.isUndefined(prefixTime("cc"));
  });
});

describe("sweep rules", function () {
  it("parses ages", function () {
    assert.equal(parseAge("90s"), 90_000);
    assert.equal(parseAge("2h"), 7_200_000);
    assert.equal(parseAge("1h30m"), 5_400_000);
    assert.equal(parseAge("1d"), 86_400_000);
    for (const bad of ["", "2", "h", "2 hours", "-1h", "2x"]) assert.throws(() => parseAge(bad), ConfigError, /is not an age/);
  });

  it("only our names older than the cutoff are leftovers", function () {
    const now = Date.now();
    const cutoff = now - 2 * 3_600_000;
    const old = new Namer(newRunPrefix(new Date(now - 3 * 3_600_000))).next("c");
    const fresh = new Namer(newRunPrefix(new Date(now - 60_000))).next("c");
    assert.isTrue(isOldLeftover(old, cutoff));
    assert.isFalse(isOldLeftover(fresh, cutoff));
    assert.isFalse(isOldLeftover("mycontainer", cutoff));
    assert.isFalse(isOldLeftover("cc0000000abcd-from-1970", cutoff), "a time before the suite existed is not ours");
    assert.isFalse(isOldLeftover("ccabcdefg1234", cutoff), "a random name that happens to parse");
  });
});
