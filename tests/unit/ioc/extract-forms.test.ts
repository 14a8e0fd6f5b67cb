import { describe, expect, it } from "vitest";
import { extractIndicators } from "../../../shared/ioc/extract";
import { refang } from "../../../shared/ioc/refang";

const pick = (text: string) => extractIndicators(text).map(({ type, value }) => `${type} ${value}`);

describe("extractIndicators: the forms analysts paste", () => {
  it.each([
    // host:port/path, the usual C2 form, is an http:// URL with its port.
    ["1.2.3.4:443/gate.php", ["url http://1.2.3.4:443/gate.php"]],
    ["evil[.]com:8080/path", ["url http://evil.com:8080/path"]],
    ["192[.]168[.]0[.]1:9090/url", ["url http://192.168.0.1:9090/url"]],
    ["[2001:db8::1]:8443/x", ["url http://[2001:db8::1]:8443/x"]],
    // Scheme-less host/path, as maltrail writes its URL trails.
    ["evil.com/gate.php", ["url http://evil.com/gate.php"]],
    ["evil.com/path/", ["url http://evil.com/path/"]],
    ["evil.org/gate.php?x=1&y=2", ["url http://evil.org/gate.php?x=1&y=2"]],
    // Non-HTTP schemes.
    ["tcp://1.2.3.4:4444", ["url tcp://1.2.3.4:4444/"]],
    ["udp://evil.com:53", ["url udp://evil.com:53/"]],
    ["ftp://files.evil.com/a.exe", ["url ftp://files.evil.com/a.exe"]],
    ["ssh://root@1.2.3.4:22", ["url ssh://1.2.3.4/"]],
    ["socks5://10.0.0.5:1080", ["url socks5://10.0.0.5:1080/"]],
    ["wss://c2.evil.net/ws", ["url wss://c2.evil.net/ws"]],
    // Mixed and partial defang markers.
    ["hxxps[:]//test\\.example[.)com[/]path", ["url https://test.example.com/path"]],
    ["http://example[.com/", ["url http://example.com/"]],
    ["1.1.1[.1", ["ipv4 1.1.1.1"]],
    ["www[.example[.com", ["domain www.example.com"]],
    ["evil.]com", ["domain evil.com"]],
    ["evil(.com", ["domain evil.com"]],
    ["evil{.]com", ["domain evil.com"]],
    ["evil[dot]com", ["domain evil.com"]],
    ["evil(dot)com", ["domain evil.com"]],
    ["evil{DOT}com", ["domain evil.com"]],
    ["evil(.)com", ["domain evil.com"]],
    ["evil{.}com", ["domain evil.com"]],
    ["evil [.] com", ["domain evil.com"]],
    ["evil\t[dot]\tcom", ["domain evil.com"]],
    ["evil . com", ["domain evil.com"]],
    ["evil\\.com", ["domain evil.com"]],
    ["hxxp://evil.com", ["url http://evil.com/"]],
    ["hXXps://evil.com/a", ["url https://evil.com/a"]],
    ["hxtp://evil.com/", ["url http://evil.com/"]],
    ["h**ps://evil.com/", ["url https://evil.com/"]],
    ["meow://evil.com/", ["url http://evil.com/"]],
    ["fxp://files.evil.com/x", ["url ftp://files.evil.com/x"]],
    ["hxxp[://]evil.com/x", ["url http://evil.com/x"]],
    ["http[:]//evil.com/x", ["url http://evil.com/x"]],
    ["[hxxps://]evil.com/x", ["url https://evil.com/x"]],
    ["1.1.1.1[/]24", ["cidr 1.1.1.0/24"]],
    ["bad[@]evil.com", ["email bad@evil.com"]],
    ["bad(@)evil[.]com", ["email bad@evil.com"]],
    ["bad [at] evil [dot] com", ["email bad@evil.com"]],
    // Ports beside hosts.
    ["1.2.3.4:8080", ["ip:port 1.2.3.4:8080"]],
    ["evil.com:8080", ["domain evil.com"]],
    ["[2001:db8::1]:443", ["ip:port [2001:db8::1]:443"]],
    // Strengths kept: IDN, CIDR, IPv6, labels and lists.
    ["bücher[.]de", ["domain xn--bcher-kva.de"]],
    ["10.1.2.3/8.", ["cidr 10.0.0.0/8"]],
    ["10.0.0.0/8,192.168.0.0/16", ["cidr 10.0.0.0/8", "cidr 192.168.0.0/16"]],
    ["2001:DB8::1", ["ipv6 2001:db8::1"]],
    ["ip:1.2.3.4", ["ipv4 1.2.3.4"]],
    ["(see evil[.]com/a.php).", ["url http://evil.com/a.php"]],
  ])("%j", (text, expected) => {
    expect(pick(text)).toEqual(expected);
  });
});

describe("extractIndicators: what is not an indicator", () => {
  it.each([
    ["version strings", "1.2.3.4.5 and v1.2.3 and 10.0.19045.3803"],
    ["file names", "report.pdf setup.exe readme.txt invoice.docx"],
    ["file names with a path", "report.pdf/x setup.exe/run"],
    ["times", "07:01:24 12:30"],
    ["broken CIDR", "10.0.0.1/33"],
    ["bare markers", "[.] (.) {dot} [@] [:] [/] [://] \\."],
    ["non-network schemes", "javascript://evil.com/x file://evil.com/x data://evil.com/x"],
    ["a drive letter", "c://evil.com/x"],
    ["prose with brackets", "(see above) [citation needed] {placeholder}"],
    ["words that look like schemes", "the cat said meow to the hxxp fan"],
  ])("%s", (_label, text) => {
    expect(pick(text)).toEqual([]);
  });

  it("never joins a line ending in a marker with the next line", () => {
    for (const text of ["evil[.]\ncom", "evil [.]\r\ncom", "evil\n[.] com", "evil [dot]\u2028com", "evil(.)\fcom", "evil{.}\u0085com"]) {
      expect(pick(text), JSON.stringify(text)).toEqual([]);
    }
    expect(pick("bad[@]\nevil.com")).toEqual(["domain evil.com"]);
    expect(pick("first evil[.]com [.]\nsecond.evil[.]org")).toEqual(["domain evil.com", "domain second.evil.org"]);
  });

  it("keeps the text as written, with the spaces around markers closed up", () => {
    const found = extractIndicators("C2: evil [.] com:8080/gate.php and 1.2.3.4:443/x");
    expect(found.map((f) => f.original)).toEqual(["evil[.]com:8080/gate.php", "1.2.3.4:443/x"]);
    // The bare host a lookup falls back to when the URL itself is not stored.
    expect(found.map((f) => f.address)).toEqual([
      { type: "domain", value: "evil.com" },
      { type: "ipv4", value: "1.2.3.4" },
    ]);
  });
});

describe("refang", () => {
  it.each([
    ["evil[.)com", "evil.com"],
    ["evil(.]com", "evil.com"],
    ["example[.com", "example.com"],
    ["example.]com", "example.com"],
    ["evil [.] com", "evil.com"],
    ["evil . com", "evil.com"],
    ["hxxps[:]//a[.]b", "https://a.b"],
    ["[hxxp://]a.b", "http://a.b"],
    ["fXp://a.b", "ftp://a.b"],
  ])("%s -> %s", (input, expected) => {
    expect(refang(input)).toBe(expected);
  });

  it("does not close spaces across a line break", () => {
    expect(refang("evil [.]\ncom")).toBe("evil.\ncom");
    expect(refang("evil\n [.] com")).toBe("evil\n.com");
  });

  it("leaves IPv6 brackets alone", () => {
    for (const value of ["[::1]", "[::]", "[2001:db8::1]:443", "[::ffff:1.2.3.4]"]) expect(refang(value)).toBe(value);
  });
});
