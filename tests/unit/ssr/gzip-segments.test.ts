import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { compressSegments, joinGzip, joinPlain } from "../../../server/ssr/gzip-segments";

const document = (nonce: string) =>
  `<!DOCTYPE html><html><head><script nonce="${nonce}">theme()</script></head><body>` +
  "Résumé of CVE-2024-3400 · 漏洞 ".repeat(3_000) +
  `<script nonce="${nonce}">window.__data={}</script></body></html>`;

describe("a document compressed once, with a value spliced in per response", () => {
  it("inflates to the document with the value in every place, whatever the value", () => {
    const segments = compressSegments(document("@@NONCE@@").split("@@NONCE@@"), 9);
    for (const nonce of ["rD2k+9/Q==", "", "x".repeat(70_000)]) {
      const gzip = joinGzip(segments, nonce);
      expect(gunzipSync(gzip).toString("utf8")).toBe(document(nonce));
      expect(joinPlain(segments, nonce).toString("utf8")).toBe(document(nonce));
    }
  });

  it("makes a valid gzip body of a single segment and of empty segments", () => {
    for (const parts of [["only text"], ["", ""], ["a", "", "b"]]) {
      const segments = compressSegments(parts, 6);
      expect(gunzipSync(joinGzip(segments, "N")).toString("utf8")).toBe(parts.join("N"));
    }
  });

  it("compresses the fixed text: a large repetitive document shrinks well below its size", () => {
    const text = document("N");
    const gzip = joinGzip(compressSegments(text.split("N"), 9), "N");
    expect(gzip.length).toBeLessThan(Buffer.byteLength(text) / 10);
  });
});
