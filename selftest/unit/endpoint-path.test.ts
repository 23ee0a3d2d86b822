// Endpoints below a path (fixtures/wire/endpoint-path.ts): the SDKs read names
// right from the endpoints they know (an IP-style host with the account, a
// named host with none), and every other endpoint's SDK requests are put back
// below it, signed for the URL sent.
import { assert } from "chai";
import { endpointMap, putBack, sdkReadsNames, toReal } from "../../fixtures/wire/endpoint-path.ts";
import { sharedKeySignature, stringToSign } from "../../fixtures/wire/shared-key.ts";
import { DEV_KEY, resolveConnectionString } from "../../fixtures/wire/target.ts";

const target = (blob: string) => resolveConnectionString(`AccountName=devstoreaccount1;AccountKey=${DEV_KEY};BlobEndpoint=${blob}`);

describe("endpoints below a path", function () {
  it("the SDKs read names right from path-style and host-style endpoints, not below another path", function () {
    assert.isTrue(sdkReadsNames("http://127.0.0.1:10000/devstoreaccount1", "devstoreaccount1"));
    assert.isTrue(sdkReadsNames("https://acct.blob.core.windows.net", "acct"));
    assert.isTrue(sdkReadsNames("http://localhost:4711/devstoreaccount1/", "devstoreaccount1"));
    assert.isFalse(sdkReadsNames("http://127.0.0.1:4711/blob/devstoreaccount1", "devstoreaccount1"));
    assert.isFalse(sdkReadsNames("http://127.0.0.1:4711", "devstoreaccount1"));
    assert.isFalse(sdkReadsNames("https://gateway.example.com/storage/devstoreaccount1", "devstoreaccount1"));
    assert.isFalse(sdkReadsNames("https://gateway.example.com/devstoreaccount1", "devstoreaccount1"));
  });

  it("no map where the SDKs read names right; below a path, a stand-in put back below the endpoint", function () {
    assert.isUndefined(endpointMap(target("http://127.0.0.1:10000/devstoreaccount1"), "blob"));
    const map = endpointMap(target("http://127.0.0.1:4711/gw/devstoreaccount1"), "blob")!;
    assert.equal(toReal(map, `${map.standIn}/c/b?comp=lease`), "http://127.0.0.1:4711/gw/devstoreaccount1/c/b?comp=lease");
    assert.equal(toReal(map, `${map.standIn}?comp=list`), "http://127.0.0.1:4711/gw/devstoreaccount1?comp=list");
    assert.equal(toReal(map, "http://elsewhere/x"), "http://elsewhere/x");
  });

  it("a request put back is signed for the URL it is sent to, and its copy source points below the endpoint too", function () {
    const t = target("http://127.0.0.1:4711/gw/devstoreaccount1");
    const map = endpointMap(t, "blob")!;
    const headers = new Map<string, string>([
      ["x-ms-date", "Fri, 27 Nov 2026 12:00:00 GMT"],
      ["x-ms-version", "2025-11-05"],
      ["x-ms-copy-source", `${map.standIn}/c/src`],
      ["authorization", "SharedKey devstoreaccount1:stale"],
    ]);
    const request = {
      url: `${map.standIn}/c/b`,
      method: "PUT",
      headers: {
        get: (n: string) => headers.get(n),
        set: (n: string, v: string) => void headers.set(n, v),
        toJSON: () => Object.fromEntries(headers),
      },
    };
    putBack(map, request, t);
    assert.equal(request.url, "http://127.0.0.1:4711/gw/devstoreaccount1/c/b");
    assert.equal(headers.get("x-ms-copy-source"), "http://127.0.0.1:4711/gw/devstoreaccount1/c/src");
    const expected = sharedKeySignature(
      DEV_KEY,
      stringToSign("blob", "PUT", new URL(request.url), Object.fromEntries(headers), "devstoreaccount1"),
    );
    assert.equal(headers.get("authorization"), `SharedKey devstoreaccount1:${expected}`);
  });
});
