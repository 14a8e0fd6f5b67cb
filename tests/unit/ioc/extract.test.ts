import { describe, expect, it } from "vitest";
import { extractIndicators } from "../../../shared/ioc/normalize";

const pick = (text: string, limit?: number) => extractIndicators(text, limit).map(({ type, value, original }) => ({ type, value, original }));

describe("extractIndicators", () => {
  it("finds defanged indicators of every type in prose, in order of appearance", () => {
    const text = `Seen today: hxxps://evil[.]com/a,b (and 192.0.2[.]7:8080), contact bad [at] evil [dot] com;
      md5=D41D8CD98F00B204E9800998ECF8427E. Also evil.org/gate.php, [2001:db8::2]:80 and 10.1.2.3/8.`;
    expect(pick(text)).toEqual([
      { type: "url", value: "https://evil.com/a,b", original: "hxxps://evil[.]com/a,b" },
      { type: "ip:port", value: "192.0.2.7:8080", original: "192.0.2[.]7:8080" },
      { type: "email", value: "bad@evil.com", original: "bad[at]evil[dot]com" },
      { type: "md5", value: "d41d8cd98f00b204e9800998ecf8427e", original: "D41D8CD98F00B204E9800998ECF8427E" },
      // Scheme-less host/path is read as maltrail stores it: an http:// URL.
      { type: "url", value: "http://evil.org/gate.php", original: "evil.org/gate.php" },
      { type: "ip:port", value: "[2001:db8::2]:80", original: "[2001:db8::2]:80" },
      { type: "cidr", value: "10.0.0.0/8", original: "10.1.2.3/8" },
    ]);
  });

  it("de-duplicates on the canonical value and keeps the first spelling", () => {
    const found = pick("EVIL.com evil[.]com evil.com. http://evil.com http://EVIL.com:80/");
    expect(found).toEqual([
      { type: "domain", value: "evil.com", original: "EVIL.com" },
      { type: "url", value: "http://evil.com/", original: "http://evil.com" },
    ]);
  });

  it("splits lists separated by commas, semicolons, pipes and quotes", () => {
    const found = pick(`"192.0.2.1","192.0.2.2";192.0.2.3|192.0.2.4 'sha1:da39a3ee5e6b4b0d3255bfef95601890afd80709'`);
    expect(found.map((f) => f.value)).toEqual(["192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4", "da39a3ee5e6b4b0d3255bfef95601890afd80709"]);
  });

  it("strips sentence punctuation but keeps balanced parentheses in URLs", () => {
    expect(pick("See (https://en.wikipedia.org/wiki/Foo_(bar)).")[0]?.value).toBe("https://en.wikipedia.org/wiki/Foo_(bar)");
    expect(pick("Blocked: evil.com!")[0]?.value).toBe("evil.com");
  });

  it("handles non-breaking spaces, zero-width spaces and line breaks", () => {
    expect(pick("a.evil.com\u00a0b.evil.com\u200bc.evil.com\r\nd.evil.com").map((f) => f.value)).toEqual([
      "a.evil.com",
      "b.evil.com",
      "c.evil.com",
      "d.evil.com",
    ]);
  });

  it("ignores words, file names and junk", () => {
    expect(pick("Please open readme.txt and setup.exe, version 1.2.3, at 07:01:24 <script>")).toEqual([]);
  });

  it("stops at the limit", () => {
    const text = Array.from({ length: 50 }, (_, i) => `192.0.2.${i}`).join(" ");
    expect(pick(text, 10)).toHaveLength(10);
    expect(pick(text, 0)).toEqual([]);
    expect(pick(text)).toHaveLength(50);
  });
});
