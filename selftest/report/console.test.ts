// The console's row lines cut a message to its first line and 160
// characters; the cut must not leave part of a redacted SAS signature
// (`sig=RED`), which reads as a leaked one (the CLI's leak check, runs.test).
import { assert } from "chai";
import { headline, resultLine } from "../../reporters/console.ts";
import { row } from "./synthetic.ts";

const LEAK = /[?&]sig=(?!REDACTED)[^&\s"'<]+/i;

describe("console row lines", function () {
  it("cut a long message at its first line, with an ellipsis", function () {
    assert.equal(headline("short\nsecond line"), "short");
    assert.equal(headline("x".repeat(200)), `${"x".repeat(160)}…`);
  });

  it("never cut through a redacted SAS signature, wherever the cut falls", function () {
    const message =
      "the target did not answer: GET /c/b?sv=2025-01-05&ss=bqt&srt=sco&sp=rwdlacupx&se=2026-11-26T17%3A00%3A00Z&sig=REDACTED&comp=lease (timeout)";
    const start = message.indexOf("&sig=");
    for (let max = start - 2; max <= start + 20; max++) {
      const cut = headline(message, max);
      assert.notMatch(cut, LEAK, `cut at ${max}: ${cut}`);
      assert.isAtMost(cut.length, max + 1);
    }
    const line = resultLine({ ...row("blob/x/1", "INCONCLUSIVE", "doc"), message: `${"y".repeat(160 - start - 7)}${message}` });
    assert.notMatch(line, LEAK);
  });
});
