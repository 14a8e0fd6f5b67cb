import { serialize } from "node:v8";
import { beforeAll, describe, expect, it } from "vitest";
import { loadWarninglists, type WarninglistInput } from "../../../server/feeds/warninglists/parse";
import { normalizeIndicator, type Indicator } from "../../../shared/ioc/normalize";
import {
  buildWarninglistMatcher,
  createWarninglistMatcherBuilder,
  warninglistMatcherFromState,
  type WarninglistMatcher,
  type WarninglistMatcherState,
} from "../../../server/ioc/warninglist-match";
import { decodeWarninglistSnapshot, encodeWarninglistSnapshot } from "../../../server/ioc/warninglist-snapshot";
import { snapshot } from "../feeds/paths";

function indicator(raw: string): Indicator {
  const value = normalizeIndicator(raw);
  if (value === null) throw new Error(`not an indicator: ${raw}`);
  return value;
}

describe("warninglist matcher (hand-made lists)", () => {
  const matcher = buildWarninglistMatcher([
    { name: "private", type: "cidr", entries: ["10.0.0.0/8", "192.168.0.0/16", "FE80::/10", "not-a-range"] },
    { name: "resolvers", type: "cidr", entries: ["8.8.8.8", "2001:4860:4860::8888"], matchingAttributes: ["ip-src", "ip-dst", "ip-dst|port"] },
    { name: "top", type: "string", entries: ["Example.com", "d41d8cd98f00b204e9800998ecf8427e"] },
    { name: "hosting", type: "hostname", entries: [".pages.dev", "example.org."], matchingAttributes: ["domain", "hostname", "url"] },
    { name: "words", type: "substring", entries: ["sinkhole"] },
    { name: "patterns", type: "regex", entries: ["/^https?:\\/\\/[^/]*\\.local\\//i", "[unclosed", "/x/g"] },
    { name: "domains-only", type: "string", entries: ["example.com"], matchingAttributes: ["domain"] },
  ]);

  it("matches IPs, ip:port, URLs on an IP and whole CIDRs against ranges", () => {
    expect(matcher.match(indicator("10.1.2.3"))).toEqual([{ list: "private", type: "cidr", entry: "10.0.0.0/8" }]);
    expect(matcher.match(indicator("8.8.8.8:53"))).toEqual([{ list: "resolvers", type: "cidr", entry: "8.8.8.8" }]);
    expect(matcher.match(indicator("http://192.168.1.1/admin"))).toEqual([{ list: "private", type: "cidr", entry: "192.168.0.0/16" }]);
    expect(matcher.match(indicator("10.20.0.0/16"))).toEqual([{ list: "private", type: "cidr", entry: "10.0.0.0/8" }]);
    expect(matcher.match(indicator("10.0.0.0/7"))).toEqual([]);
    expect(matcher.match(indicator("fe80::1"))).toEqual([{ list: "private", type: "cidr", entry: "FE80::/10" }]);
    expect(matcher.match(indicator("2001:4860:4860::8888"))).toEqual([{ list: "resolvers", type: "cidr", entry: "2001:4860:4860::8888" }]);
    expect(matcher.match(indicator("11.0.0.1"))).toEqual([]);
  });

  it("compares strings case-insensitively and a URL's host too", () => {
    expect(matcher.match(indicator("EXAMPLE.com")).map((m) => m.list)).toEqual(["top", "domains-only"]);
    expect(matcher.match(indicator("https://example.com/x")).map((m) => m.list)).toEqual(["top"]);
    expect(matcher.match(indicator("www.example.com"))).toEqual([]);
    expect(matcher.match(indicator("D41D8CD98F00B204E9800998ECF8427E"))).toEqual([{ list: "top", type: "string", entry: "d41d8cd98f00b204e9800998ecf8427e" }]);
  });

  it("matches host names and their subdomains, not look-alikes", () => {
    expect(matcher.match(indicator("phish.pages.dev"))).toEqual([{ list: "hosting", type: "hostname", entry: ".pages.dev" }]);
    expect(matcher.match(indicator("https://a.b.example.org/login"))).toEqual([{ list: "hosting", type: "hostname", entry: "example.org." }]);
    expect(matcher.match(indicator("notexample.org"))).toEqual([]);
    // The list's matching attributes do not include e-mail addresses.
    expect(matcher.match(indicator("a@example.org"))).toEqual([]);
  });

  it("applies substring and regex lists, skipping entries it cannot compile", () => {
    expect(matcher.match(indicator("sinkhole.example.net"))).toEqual([{ list: "words", type: "substring", entry: "sinkhole" }]);
    expect(matcher.match(indicator("http://printer.office.local/x"))).toEqual([
      { list: "patterns", type: "regex", entry: "/^https?:\\/\\/[^/]*\\.local\\//i" },
    ]);
    expect(matcher.skipped.map((s) => [s.list, s.entry])).toEqual([
      ["private", "not-a-range"],
      ["patterns", "[unclosed"],
      ["patterns", "/x/g"],
    ]);
  });

  it("regex entries match the canonical value", () => {
    const regex = buildWarninglistMatcher([{ name: "r", type: "regex", entries: ["/^https?:\\/\\/intranet\\.example\\.com\\//i"] }]);
    expect(regex.match(indicator("HTTP://INTRANET.example.com/a"))).toEqual([
      { list: "r", type: "regex", entry: "/^https?:\\/\\/intranet\\.example\\.com\\//i" },
    ]);
  });
});

describe("warninglist matcher (real MISP warninglists)", () => {
  let matcher: WarninglistMatcher;
  let lists: Awaited<ReturnType<typeof loadWarninglists>>["lists"];
  const listsOf = (raw: string): string[] => matcher.match(indicator(raw)).map((m) => m.list);

  beforeAll(async () => {
    const loaded = await loadWarninglists(snapshot("misp-warninglists", "lists"));
    expect(loaded.rejected).toEqual([]);
    lists = loaded.lists;
    matcher = buildWarninglistMatcher(lists);
  });

  it("uses every entry of the real lists", () => {
    expect(matcher.skipped).toEqual([]);
  });

  it("8.8.8.8 is a public DNS resolver", () => {
    expect(matcher.match(indicator("8.8.8.8"))).toContainEqual({ list: "public-dns-v4", type: "cidr", entry: "8.8.8.8" });
    expect(listsOf("http://8.8.8.8/dns-query")).toContain("public-dns-v4");
    expect(listsOf("2001:4860:4860::8888")).toContain("public-dns-v6");
  });

  it("10.1.2.3 is RFC 1918 space", () => {
    expect(matcher.match(indicator("10.1.2.3"))).toContainEqual({ list: "rfc1918", type: "cidr", entry: "10.0.0.0/8" });
    expect(listsOf("100.64.1.1")).toContain("rfc6598");
    expect(listsOf("224.0.0.251")).toContain("multicast");
    expect(listsOf("fe80::1")).toContain("ipv6-linklocal");
  });

  it("google.com and www.google.com hit the top-domain lists as each list's type declares", () => {
    // string lists match exact values; hostname lists (tranco10k) match subdomains too.
    expect(listsOf("google.com")).toEqual(expect.arrayContaining(["cisco_top10k", "cloudflare-top10k", "google", "majestic_million", "tranco10k"]));
    const www = matcher.match(indicator("www.google.com"));
    expect(www).toContainEqual({ list: "tranco10k", type: "hostname", entry: "google.com" });
    // "www.google.com" is itself listed in the cisco and google string lists, but not in majestic_million.
    expect(www.map((m) => m.list)).toEqual(expect.arrayContaining(["cisco_top10k", "google"]));
    expect(www.map((m) => m.list)).not.toContain("majestic_million");
  });

  it("flags empty-file hashes", () => {
    expect(listsOf("d41d8cd98f00b204e9800998ecf8427e")).toContain("empty-hashes");
  });
});

describe("warninglist matcher stored packed", () => {
  const handMade: WarninglistInput[] = [
    { name: "private", type: "cidr", entries: ["10.0.0.0/8", "FE80::/10", "not-a-range"] },
    { name: "top", type: "string", entries: ["Example.com"], matchingAttributes: ["domain"] },
    { name: "hosting", type: "hostname", entries: [".pages.dev"] },
    { name: "words", type: "substring", entries: ["sinkhole"] },
    { name: "patterns", type: "regex", entries: ["/\\.local\\//i", "[unclosed"] },
  ];

  function packed(lists: readonly WarninglistInput[]): WarninglistMatcherState {
    const builder = createWarninglistMatcherBuilder();
    for (const list of lists) builder.addEntries(builder.addList(list), list.entries);
    return builder.pack();
  }

  it("reads back what it wrote, typed arrays as typed arrays, and answers as the matcher it was packed from", () => {
    const decoded = decodeWarninglistSnapshot(encodeWarninglistSnapshot(packed(handMade)));
    expect(decoded).not.toBeNull();
    expect(decoded!.v4.starts).toBeInstanceOf(Uint32Array);
    expect(decoded!.strings.keys.offsets).toBeInstanceOf(Uint32Array);
    const fromStored = warninglistMatcherFromState(decoded!);
    const direct = buildWarninglistMatcher(handMade);
    expect(fromStored.skipped).toEqual(direct.skipped);
    expect(fromStored.skipped.map((s) => s.entry)).toEqual(["not-a-range", "[unclosed"]);
    for (const raw of [
      "10.9.8.7",
      "fe80::1",
      "example.com",
      "https://example.com/",
      "a.pages.dev",
      "sinkhole.example.net",
      "http://printer.office.local/x",
      "11.0.0.1",
    ]) {
      expect(fromStored.match(indicator(raw)), raw).toEqual(direct.match(indicator(raw)));
    }
    expect(fromStored.match(indicator("fe80::1"))).toEqual([{ list: "private", type: "cidr", entry: "FE80::/10" }]);
    expect(fromStored.match(indicator("http://printer.office.local/x")).map((m) => m.list)).toEqual(["patterns"]);
  });

  it("packs the real lists into a few megabytes that answer as the matcher built from them", async () => {
    const { lists } = await loadWarninglists(snapshot("misp-warninglists", "lists"));
    const data = encodeWarninglistSnapshot(packed(lists));
    expect(data.byteLength).toBeLessThan(16 * 1024 * 1024);
    const fromStored = warninglistMatcherFromState(decodeWarninglistSnapshot(data)!);
    const direct = buildWarninglistMatcher(lists);
    for (const raw of ["8.8.8.8", "2001:4860:4860::8888", "10.1.2.3", "google.com", "www.google.com", "d41d8cd98f00b204e9800998ecf8427e", "evil.example.net"]) {
      expect(fromStored.match(indicator(raw)), raw).toEqual(direct.match(indicator(raw)));
    }
  });

  it("refuses bytes that are not a snapshot, or a value of another shape", () => {
    expect(decodeWarninglistSnapshot(Buffer.from("not a snapshot"))).toBeNull();
    expect(decodeWarninglistSnapshot(serialize({ lists: [] }))).toBeNull();
    const state = packed(handMade);
    expect(decodeWarninglistSnapshot(serialize({ ...state, v4: { ...state.v4, lists: [...state.v4.lists] } }))).toBeNull();
  });
});
