// Answers the suite cannot read, in the shapes young emulators give them:
// each header a row may need dropped from every answer, error codes left
// out, error bodies in JSON instead of XML, bodies cut short. Against each,
// selftest/odd-answers.test.ts requires that no row ends in the suite's own
// exception (ERROR, or an exception's text in a message) and that every
// FAIL and UNSUPPORTED names the REST operation whose answer decided it.
import type { Mutant, ProxyResponse } from "./mutants/types.ts";

/** Drops `header` from every answer that has it. */
const dropped = (header: string): Mutant => ({
  name: `odd-no-${header}`,
  description: `every answer without ${header}`,
  kills: [],
  onResponse(_req, res) {
    delete res.headers[header];
  },
});

const isXmlError = (res: ProxyResponse) => res.status >= 300 && /^\s*(<\?xml[^>]*>)?\s*<Error>/.test(res.body.toString("utf8"));

export const ODD_ANSWERS: Mutant[] = [
  ...[
    "date",
    "last-modified",
    "etag",
    "x-ms-lease-time",
    "x-ms-lease-state",
    "x-ms-time-next-visible",
    "x-ms-popreceipt",
    "x-ms-blob-sequence-number",
    "content-length",
  ].map(dropped),
  {
    name: "odd-no-error-code",
    description: "error answers name no error code (no x-ms-error-code, no Code in the body)",
    kills: [],
    onResponse(_req, res) {
      if (res.status < 300) return;
      delete res.headers["x-ms-error-code"];
      res.body = Buffer.from(
        res.body
          .toString("utf8")
          .replace(/<Code>[^<]*<\/Code>/, "")
          .replace(/"code"\s*:\s*"[^"]*",?/, ""),
      );
    },
  },
  {
    name: "odd-json-error-body",
    description: "blob and queue errors answered with a JSON body (the code still in x-ms-error-code)",
    kills: [],
    onResponse(_req, res) {
      if (!isXmlError(res)) return;
      const text = res.body.toString("utf8");
      const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1] ?? "";
      const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? "";
      res.body = Buffer.from(JSON.stringify({ error: { code, message } }));
      res.headers["content-type"] = "application/json";
    },
  },
  {
    name: "odd-body-cut-short",
    description: "every answer's body cut to half its length (Content-Length matching what is sent)",
    kills: [],
    onResponse(_req, res) {
      if (res.body.length > 1) res.body = res.body.subarray(0, Math.floor(res.body.length / 2));
    },
  },
];
