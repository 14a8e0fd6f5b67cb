import { describe, expect, it } from "vitest";
import { defang, normalizeIndicator, type Indicator } from "../../../shared/ioc/normalize";

describe("defang", () => {
  it.each<[Indicator, string]>([
    [{ type: "url", value: "http://evil.com/a.b/c" }, "hxxp://evil[.]com/a.b/c"],
    [{ type: "url", value: "https://sub.evil.com:8443/x?y=1.2" }, "hxxps://sub[.]evil[.]com:8443/x?y=1.2"],
    [{ type: "url", value: "ftp://files.evil.com/x" }, "fxp://files[.]evil[.]com/x"],
    [{ type: "url", value: "http://[2001:db8::1]:8080/x" }, "hxxp://[2001:db8::1]:8080/x"],
    [{ type: "domain", value: "evil.co.uk" }, "evil[.]co[.]uk"],
    [{ type: "email", value: "john.doe@evil.com" }, "john.doe[@]evil[.]com"],
    [{ type: "ipv4", value: "192.0.2.1" }, "192[.]0[.]2[.]1"],
    [{ type: "ip:port", value: "192.0.2.1:443" }, "192[.]0[.]2[.]1:443"],
    [{ type: "cidr", value: "10.0.0.0/8" }, "10[.]0[.]0[.]0/8"],
    [{ type: "ipv6", value: "2001:db8::1" }, "2001:db8::1"],
    [{ type: "md5", value: "d41d8cd98f00b204e9800998ecf8427e" }, "d41d8cd98f00b204e9800998ecf8427e"],
  ])("%j -> %s", (indicator, expected) => {
    expect(defang(indicator)).toBe(expected);
  });

  it("produces text that refangs back to the same indicator", () => {
    const values = [
      "http://evil.com/Path?q=a.b",
      "https://xn--bcher-kva.de:8443/",
      "http://192.0.2.5:8080/x.sh",
      "evil.example.com",
      "a.b+c@mail.evil.com",
      "198.51.100.9",
      "198.51.100.9:4444",
      "[2001:db8::5]:443",
      "10.0.0.0/8",
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    ];
    for (const value of values) {
      const indicator = normalizeIndicator(value);
      expect(indicator, value).not.toBeNull();
      if (indicator === null) continue;
      const shown = defang(indicator);
      expect(shown, value).not.toMatch(/https?:\/\//);
      expect(normalizeIndicator(shown), value).toEqual(indicator);
    }
  });
});
