import { describe, expect, it } from "vitest";
import {
  INDICATOR_TYPES,
  MAX_INDICATOR_LENGTH,
  hostOf,
  ipv4Slash24,
  normalizeIndicator,
  refang,
  registrableDomain,
  type Indicator,
} from "../../../shared/ioc/normalize";
import ipaddr from "ipaddr.js";
import { hostnameToAscii } from "../../../shared/ioc/domain";
import { normalizeIPv4 } from "../../../shared/ioc/ip";

const url = (value: string): Indicator => ({ type: "url", value });

describe("refang", () => {
  it.each([
    ["hxxp://evil.com", "http://evil.com"],
    ["hxxps://evil.com", "https://evil.com"],
    ["hXXps://evil.com", "https://evil.com"],
    ["h**p://evil.com", "http://evil.com"],
    ["meow://evil.com", "http://evil.com"],
    ["fxp://files.evil.com", "ftp://files.evil.com"],
    ["evil[.]com", "evil.com"],
    ["evil(.)com", "evil.com"],
    ["evil{.}com", "evil.com"],
    ["evil[dot]com", "evil.com"],
    ["evil(dot)com", "evil.com"],
    ["evil{dot}com", "evil.com"],
    ["evil [.] com", "evil.com"],
    ["evil\\.com", "evil.com"],
    ["http[:]//evil.com", "http://evil.com"],
    ["hxxp[://]evil.com", "http://evil.com"],
    ["1.1.1.1[/]24", "1.1.1.1/24"],
    ["user[@]evil.com", "user@evil.com"],
    ["user[at]evil.com", "user@evil.com"],
    ["user(at)evil.com", "user@evil.com"],
    ["1.2.3[.]4", "1.2.3.4"],
  ])("%s -> %s", (input, expected) => {
    expect(refang(input)).toBe(expected);
  });

  it("leaves clean text and ordinary words alone", () => {
    expect(refang("http://evil.com/a")).toBe("http://evil.com/a");
    expect(refang("the cat said meow to the hxxp fan")).toBe("the cat said meow to the hxxp fan");
  });
});

describe("normalizeIndicator: defanged forms", () => {
  it.each([
    ["hxxp://evil[.]com/Payload.exe", { type: "url", value: "http://evil.com/Payload.exe" }],
    ["hxxps://evil(.)com/", { type: "url", value: "https://evil.com/" }],
    ["evil[dot]com", { type: "domain", value: "evil.com" }],
    ["http[:]//evil.com/x", { type: "url", value: "http://evil.com/x" }],
    ["bad[@]evil[.]com", { type: "email", value: "bad@evil.com" }],
    ["192.0.2[.]1", { type: "ipv4", value: "192.0.2.1" }],
    ["192[.]0[.]2[.]1:8080", { type: "ip:port", value: "192.0.2.1:8080" }],
  ])("%s", (input, expected) => {
    expect(normalizeIndicator(input)).toEqual(expected);
  });
});

describe("normalizeIndicator: IP addresses", () => {
  it("keeps dotted-quad IPv4", () => {
    expect(normalizeIndicator("8.8.8.8")).toEqual({ type: "ipv4", value: "8.8.8.8" });
    expect(normalizeIndicator(" 198.51.100.7 ")).toEqual({ type: "ipv4", value: "198.51.100.7" });
  });

  it("accepts exactly what ipaddr.js calls a four-part decimal address", () => {
    const samples = [
      "0.0.0.0",
      "255.255.255.255",
      "192.0.2.1",
      "256.1.1.1",
      "01.2.3.4",
      "1.2.3",
      "1.2.3.4.5",
      "1.2.3.-4",
      " 1.2.3.4",
      "1..3.4",
      "0x1.2.3.4",
      "1.2.3.4 ",
    ];
    for (const sample of samples) {
      expect(normalizeIPv4(sample) !== null, sample).toBe(ipaddr.IPv4.isValidFourPartDecimal(sample));
    }
  });

  it("rejects octal, hex and short IPv4 spellings as ambiguous", () => {
    for (const value of ["010.1.1.1", "0x7f.0.0.1", "127.1", "2130706433", "1.2.3.04"]) {
      expect(normalizeIndicator(value), value).toBeNull();
    }
  });

  it("writes IPv6 in RFC 5952 form and accepts brackets and ports", () => {
    expect(normalizeIndicator("2001:0DB8:0000:0000:0000:0000:0000:0001")).toEqual({ type: "ipv6", value: "2001:db8::1" });
    expect(normalizeIndicator("[2001:db8::1]")).toEqual({ type: "ipv6", value: "2001:db8::1" });
    expect(normalizeIndicator("[2001:DB8:0::1]:443")).toEqual({ type: "ip:port", value: "[2001:db8::1]:443" });
    expect(normalizeIndicator("fe80::1%eth0")).toBeNull();
    expect(normalizeIndicator("[2001:db8::1]:0")).toBeNull();
    expect(normalizeIndicator("[2001:db8::1]:65536")).toBeNull();
  });

  it("canonicalises ip:port and CIDR", () => {
    expect(normalizeIndicator("1.2.3.4:8080")).toEqual({ type: "ip:port", value: "1.2.3.4:8080" });
    expect(normalizeIndicator("10.1.2.3/8")).toEqual({ type: "cidr", value: "10.0.0.0/8" });
    expect(normalizeIndicator("2001:db8:1:2::5/32")).toEqual({ type: "cidr", value: "2001:db8::/32" });
    expect(normalizeIndicator("10.0.0.0/33")).toBeNull();
    expect(normalizeIndicator("10.0.0.0/08")).toBeNull();
  });
});

describe("normalizeIndicator: domains", () => {
  it("lower-cases and drops the trailing dot", () => {
    expect(normalizeIndicator("WWW.Example.COM.")).toEqual({ type: "domain", value: "www.example.com" });
  });

  it("converts IDN to A-labels (UTS #46)", () => {
    expect(normalizeIndicator("bücher.de")).toEqual({ type: "domain", value: "xn--bcher-kva.de" });
    expect(normalizeIndicator("BÜCHER.de")).toEqual({ type: "domain", value: "xn--bcher-kva.de" });
    expect(normalizeIndicator("xn--bcher-kva.de")).toEqual({ type: "domain", value: "xn--bcher-kva.de" });
    expect(normalizeIndicator("пример.рф")).toEqual({ type: "domain", value: "xn--e1afmkfd.xn--p1ai" });
    // ".example" is reserved, not a public suffix: converted, but not a domain indicator.
    expect(hostnameToAscii("bücher.example")).toBe("xn--bcher-kva.example");
    expect(normalizeIndicator("bücher.example")).toBeNull();
  });

  it("rejects invalid punycode and invalid labels", () => {
    expect(normalizeIndicator("xn--zz.de")).toBeNull();
    expect(normalizeIndicator("-evil.com")).toBeNull();
    expect(normalizeIndicator("evil-.com")).toBeNull();
    expect(normalizeIndicator(`${"a".repeat(64)}.com`)).toBeNull();
    expect(normalizeIndicator("evil..com")).toBeNull();
  });

  it("requires an ICANN public suffix, so file names are not domains", () => {
    for (const value of ["foo.exe", "readme.txt", "invoice.pdf", "index.php", "x.local", "localhost", "co.uk", "com"]) {
      expect(normalizeIndicator(value), value).toBeNull();
    }
    expect(normalizeIndicator("evil.co.uk")).toEqual({ type: "domain", value: "evil.co.uk" });
  });

  it("accepts real names from the snapshots", () => {
    // TweetFeed writes some names with capitals.
    expect(normalizeIndicator("Context.ai")).toEqual({ type: "domain", value: "context.ai" });
    // TweetFeed: phishing host with underscores (DNS allows them, STD3 does not).
    expect(normalizeIndicator("sakura-secure_ad-ip_rs-cp-5754745440.urbantrove74.shop")).toEqual({
      type: "domain",
      value: "sakura-secure_ad-ip_rs-cp-5754745440.urbantrove74.shop",
    });
    // "--" in the third and fourth positions, as Google video hosts have.
    expect(normalizeIndicator("r3---sn-4g5e6nzs.googlevideo.com")).toEqual({
      type: "domain",
      value: "r3---sn-4g5e6nzs.googlevideo.com",
    });
    // maltrail writes already-converted IDNs.
    expect(normalizeIndicator("xn--ortakoporotr-fjb.com")).toEqual({ type: "domain", value: "xn--ortakoporotr-fjb.com" });
  });
});

describe("normalizeIndicator: hashes", () => {
  it("detects by length and lower-cases", () => {
    expect(normalizeIndicator("D41D8CD98F00B204E9800998ECF8427E")).toEqual({ type: "md5", value: "d41d8cd98f00b204e9800998ecf8427e" });
    expect(normalizeIndicator("DA39A3EE5E6B4B0D3255BFEF95601890AFD80709")).toEqual({
      type: "sha1",
      value: "da39a3ee5e6b4b0d3255bfef95601890afd80709",
    });
    expect(normalizeIndicator("E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855")?.type).toBe("sha256");
    expect(normalizeIndicator("a".repeat(128))?.type).toBe("sha512");
    expect(normalizeIndicator("a".repeat(33))).toBeNull();
  });
});

describe("normalizeIndicator: URLs", () => {
  it.each([
    ["HTTP://Example.COM/Path/To/File.EXE", "http://example.com/Path/To/File.EXE"],
    ["http://user:pass@example.com/a", "http://example.com/a"],
    ["http://example.com:80/a", "http://example.com/a"],
    ["https://example.com:443/a", "https://example.com/a"],
    ["https://example.com:8443/a", "https://example.com:8443/a"],
    ["ftp://files.example.com:21/x", "ftp://files.example.com/x"],
    ["http://example.com/a#fragment", "http://example.com/a"],
    ["http://example.com", "http://example.com/"],
    ["http://example.com?q=1", "http://example.com/?q=1"],
    ["http://example.com/a%20b/%2e%2e/c?x=A&y=%41", "http://example.com/a%20b/%2e%2e/c?x=A&y=%41"],
    ["http://bücher.de/Ä", "http://xn--bcher-kva.de/Ä"],
    ["http://[2001:DB8::1]:8080/x", "http://[2001:db8::1]:8080/x"],
    ["http://192.0.2.5/", "http://192.0.2.5/"],
    // TweetFeed: a comma-separated njRAT config stays one URL with its path verbatim.
    ["https://pastebin.com/raw/jxx7yjgK,0.tcp.sa.ngrok.io:15440", "https://pastebin.com/raw/jxx7yjgK,0.tcp.sa.ngrok.io:15440"],
    // TweetFeed: http on port 443 is not the default port, so it is kept.
    ["http://t_an.wohowoho.com:443", "http://t_an.wohowoho.com:443/"],
    // Other network schemes are URLs too; a known default port is dropped.
    ["tcp://1.2.3.4:80", "tcp://1.2.3.4:80/"],
    ["SSH://root@files.example.com:22/", "ssh://files.example.com/"],
    // A backslash ends the host, as in browsers: the host is evil.com.
    ["http://evil.com\\@good.com/x", "http://evil.com\\@good.com/x"],
  ])("%s", (input, expected) => {
    expect(normalizeIndicator(input)).toEqual(url(expected));
  });

  it("refuses non-network schemes, hosts without a dot and numeric hosts", () => {
    for (const value of [
      "javascript://alert(1)",
      "file:///etc/passwd",
      "javascript://evil.com/x",
      "c://evil.com/x",
      "http://intranet/x",
      "http://127.1/",
      "http://example.com:99999/",
      "http://exa mple.com/",
    ]) {
      expect(normalizeIndicator(value), value).toBeNull();
    }
  });

  it("does not treat scheme-less host/path as a URL", () => {
    expect(normalizeIndicator("evil.com/gate.php")).toBeNull();
  });
});

describe("normalizeIndicator: e-mail", () => {
  it("keeps the local part and normalises the domain", () => {
    expect(normalizeIndicator("John.Doe+x@Mail.Example.COM")).toEqual({ type: "email", value: "John.Doe+x@mail.example.com" });
    expect(normalizeIndicator("a@bücher.de")).toEqual({ type: "email", value: "a@xn--bcher-kva.de" });
    expect(normalizeIndicator("a@readme.txt")).toBeNull();
    expect(normalizeIndicator(".a@example.com")).toBeNull();
    expect(normalizeIndicator("@example.com")).toBeNull();
  });
});

describe("normalizeIndicator: junk", () => {
  const junk = [
    "",
    "   ",
    "hello",
    "1.2.3",
    "999.1.1.1",
    "256.0.0.1",
    "1.2.3.4.5",
    "http://",
    "https://",
    "<script>",
    "<script>alert(1)</script>",
    "x".repeat(10_000),
    `http://example.com/${"a".repeat(MAX_INDICATOR_LENGTH)}`,
    "foo.exe",
    "readme.txt",
    "2607:f1c0:100f:f000",
    "07:01:24",
    ":18:00",
    "inkspace-org.top{victim}sso.net",
    "GIMP.Core\\Data\\Lib\\html.py",
    "0xb1lalwww.pxb70.comm1.pxb70.comtk.pxb70.comfriend",
    "javascript:alert(1)",
    "mailto:",
    "a@b@c",
    "[]",
    "[.]",
    "1.2.3.4:",
    "1.2.3.4:70000",
    "N/A",
  ];
  it.each(junk.map((value) => [value.length > 40 ? `${value.slice(0, 40)}… (${value.length} chars)` : value, value]))("%j -> null", (_label, value) => {
    expect(normalizeIndicator(value)).toBeNull();
  });

  it("never throws on non-string input", () => {
    expect(normalizeIndicator(undefined as unknown as string)).toBeNull();
    expect(normalizeIndicator(42 as unknown as string)).toBeNull();
  });
});

describe("helpers", () => {
  it("lists every indicator type", () => {
    expect([...INDICATOR_TYPES].sort()).toEqual(["cidr", "domain", "email", "ip:port", "ipv4", "ipv6", "md5", "sha1", "sha256", "sha512", "url"].sort());
  });

  it("registrableDomain works for domains, URLs and e-mail", () => {
    expect(registrableDomain({ type: "domain", value: "a.b.evil.co.uk" })).toBe("evil.co.uk");
    expect(registrableDomain(url("https://x.pages.dev/login"))).toBe("pages.dev");
    expect(registrableDomain({ type: "email", value: "a@mail.example.com" })).toBe("example.com");
    expect(registrableDomain(url("http://192.0.2.1/x"))).toBeNull();
    expect(registrableDomain({ type: "ipv4", value: "192.0.2.1" })).toBeNull();
  });

  it("hostOf returns the host an indicator points at", () => {
    expect(hostOf(url("http://[2001:db8::1]:8080/x"))).toBe("2001:db8::1");
    expect(hostOf(url("https://evil.com:8443/x"))).toBe("evil.com");
    expect(hostOf({ type: "ip:port", value: "1.2.3.4:80" })).toBe("1.2.3.4");
    expect(hostOf({ type: "email", value: "a@evil.com" })).toBe("evil.com");
    expect(hostOf({ type: "md5", value: "d41d8cd98f00b204e9800998ecf8427e" })).toBeNull();
  });

  it("ipv4Slash24 gives the /24 of an IPv4 address", () => {
    expect(ipv4Slash24("192.0.2.77")).toBe("192.0.2.0/24");
    expect(ipv4Slash24("192.0.2.77:443")).toBe("192.0.2.0/24");
    expect(ipv4Slash24("2001:db8::1")).toBeNull();
    expect(ipv4Slash24("[2001:db8::1]:443")).toBeNull();
    expect(ipv4Slash24("evil.com")).toBeNull();
  });
});
