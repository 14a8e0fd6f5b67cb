import { describe, expect, it } from "vitest";
import { normalizeFeedValue } from "../../../server/feeds/ioc/common";
import { parseMaltrailFile } from "../../../server/feeds/ioc/maltrail";
import { parseIndicator } from "../../../shared/ioc/detect";
import { canonicalIndicatorPath } from "../../../shared/ioc/indicator-path";
import type { IocSighting } from "../../../server/feeds/ioc/sighting";

/** What the maltrail importer stores for each trail, keyed by the trail as written. */
async function maltrailRecords(trails: readonly string[]): Promise<Map<string, IocSighting>> {
  const records = new Map<string, IocSighting>();
  for await (const result of parseMaltrailFile([`${trails.join("\n")}\n`], { category: "malware", name: "emotet", path: "emotet.txt" })) {
    if (result.ok) records.set(result.record.rawValue, result.record);
  }
  return records;
}

describe("parseIndicator: values as the feeds write them lead to what is stored", () => {
  // Trails as maltrail writes them: ports beside addresses and names, scheme-less URL trails.
  const TRAILS = [
    "192.0.2.10:443",
    "192.0.2.11",
    "evil.example.com",
    "evil.example.com:8080",
    "evil.example.net/gate.php",
    "evil.example.net/panel/",
    "198.51.100.7/admin/login.php",
    "198.51.100.8:8080/x/",
    "bücher.example.de/a",
    "nas.example.me/@eaDir/x1/",
    "http://full.example.org/x",
    "203.0.113.0/24",
  ];

  it.each(TRAILS)("%s", async (trail) => {
    const stored = (await maltrailRecords([trail])).get(trail);
    expect(stored, "the importer accepts the trail").toBeDefined();
    const read = parseIndicator(trail);
    expect(read).not.toBeNull();
    // The lookup key is the stored indicator, or its address when the feed filed it under the bare host.
    const keys = [read?.indicator, read?.address].filter(Boolean);
    expect(keys).toContainEqual(stored?.indicator);
    expect(read?.port ?? null).toBe(stored?.port ?? null);
  });

  it("reads ThreatFox's ip:port and domain values as its importer stores them", () => {
    for (const value of ["192.0.2.1:8080", "[2001:db8::1]:443"]) {
      const stored = normalizeFeedValue(value, ["ip:port"]);
      expect(stored.ok && parseIndicator(value)?.indicator).toEqual(stored.ok && stored.indicator);
    }
    const split = normalizeFeedValue("evil.example.com:8443", ["domain"]);
    expect(split).toEqual({ ok: true, indicator: { type: "domain", value: "evil.example.com" }, port: 8443 });
    expect(parseIndicator("evil.example.com:8443")).toEqual({ indicator: { type: "domain", value: "evil.example.com" }, port: 8443, address: null });
  });

  it.each([
    ["1.2.3.4:443", { indicator: { type: "ip:port", value: "1.2.3.4:443" }, port: 443, address: { type: "ipv4", value: "1.2.3.4" } }],
    ["1.2.3[.]4:443", { indicator: { type: "ip:port", value: "1.2.3.4:443" }, port: 443, address: { type: "ipv4", value: "1.2.3.4" } }],
    ["evil[.]com:8080", { indicator: { type: "domain", value: "evil.com" }, port: 8080, address: null }],
    ["evil.com/path/", { indicator: { type: "url", value: "http://evil.com/path/" }, port: null, address: { type: "domain", value: "evil.com" } }],
    ["evil[.]com/path", { indicator: { type: "url", value: "http://evil.com/path" }, port: null, address: { type: "domain", value: "evil.com" } }],
    ["1.2.3.4:443/gate.php", { indicator: { type: "url", value: "http://1.2.3.4:443/gate.php" }, port: null, address: { type: "ipv4", value: "1.2.3.4" } }],
    ["[2001:db8::1]:80/x", { indicator: { type: "url", value: "http://[2001:db8::1]/x" }, port: null, address: { type: "ipv6", value: "2001:db8::1" } }],
    // As the importer does, a single value's host needs no public suffix: maltrail stores these too.
    ["intranet.corp/x", { indicator: { type: "url", value: "http://intranet.corp/x" }, port: null, address: { type: "domain", value: "intranet.corp" } }],
    ["http://evil.com", { indicator: { type: "url", value: "http://evil.com/" }, port: null, address: null }],
    ["evil.com", { indicator: { type: "domain", value: "evil.com" }, port: null, address: null }],
  ])("%s", (raw, expected) => {
    expect(parseIndicator(raw)).toEqual(expected);
  });

  it.each(["", "hello", "/gate.php", "10.0.0.1/33", "1.2.3.4:70000", "evil.com:0", "a@b/c", "1.2.3.4.5", "tcp://nohost/x", "x".repeat(10_000)])(
    "%j is not an indicator",
    (raw) => {
      expect(parseIndicator(raw)).toBeNull();
    },
  );
});

describe("canonicalIndicatorPath: the page of a value as written", () => {
  it.each([
    ["evil.com/path/", "/ioc-radar/http%3A%2F%2Fevil.com%2Fpath%2F"],
    ["1.2.3.4:443/gate.php", "/ioc-radar/http%3A%2F%2F1.2.3.4%3A443%2Fgate.php"],
    ["1.2.3.4:443", "/ioc-radar/1.2.3.4%3A443"],
    // The port stays in the path, so the page shows that port's sightings first.
    ["evil[.]com:8080", "/ioc-radar/evil.com%3A8080"],
    ["tcp://1.2.3.4:4444", "/ioc-radar/tcp%3A%2F%2F1.2.3.4%3A4444%2F"],
  ])("%s -> %s", (raw, path) => {
    expect(canonicalIndicatorPath(raw)).toBe(path);
    // The canonical path is a fixed point: the page does not redirect again.
    expect(canonicalIndicatorPath(decodeURIComponent(path.slice("/ioc-radar/".length)))).toBe(path);
  });
});
