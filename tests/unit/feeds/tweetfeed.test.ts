import { describe, expect, it } from "vitest";
import { parseMispEvent, parseMispFeedTar } from "../../../server/feeds/ioc/misp";
import { parseStixBundle, parseStixPattern } from "../../../server/feeds/ioc/stix";
import { parseTweetFeedCsv } from "../../../server/feeds/ioc/tweetfeed";
import { collect, countBy, open, snapshot } from "./paths";

const tweetfeed = (name: string) => snapshot("tweetfeed", name);

describe("TweetFeed CSV (real snapshots)", () => {
  it("reads every row of the 2024 daily files", async () => {
    const { records, rejected } = await collect(parseTweetFeedCsv(open(tweetfeed("tweetfeed_daily_2024.csv.gz"))));
    // zcat … | wc -l -> 66406; zcat … | awk -F, '{print $3}' | sort | uniq -c ->
    // url 30185, domain 19647, ip 11307, sha256 4271, md5 996.
    expect(records.length + rejected.length).toBe(66_406);
    expect(countBy(records, (r) => r.indicator.type)).toEqual({
      url: 30_185,
      domain: 19_647 - 3,
      ipv4: 11_307 - 7 - 52,
      ipv6: 52,
      sha256: 4_271,
      md5: 996,
    });
    // The ten rejected rows are junk in the feed itself: truncated IPv6
    // addresses, clock times posted as IPs, a template and file names.
    expect(rejected.map((r) => r.location)).toEqual([192, 302, 351, 990, 1019, 1584, 2012, 13844, 28606, 41373].map((n) => `line ${n}`));
    expect(rejected[0]?.reason).toBe('not a valid indicator: "2607:f1c0:100f:f0"');
    expect(rejected[2]?.reason).toBe('not a valid indicator: "07:01:24"');
  }, 60_000);

  it("maps a row field by field", async () => {
    const { records } = await collect(parseTweetFeedCsv(open(tweetfeed("tweetfeed_daily_2024.csv.gz"))));
    // 2024-01-15 00:05:38,malpulse,ip,185.156.172.62,#Qakbot #malware,https://twitter.com/malpulse/status/1746685032679215569
    expect(records[0]).toEqual({
      source: "tweetfeed",
      indicator: { type: "ipv4", value: "185.156.172.62" },
      rawValue: "185.156.172.62",
      firstSeen: "2024-01-15T00:05:38.000Z",
      lastSeen: "2024-01-15T00:05:38.000Z",
      threatType: null,
      malwareFamily: null,
      tags: ["Qakbot", "malware"],
      aliases: [],
      confidence: null,
      reporter: "malpulse",
      reference: "https://twitter.com/malpulse/status/1746685032679215569",
      port: null,
      cves: [],
    });
    // A quoted value with commas (line 56): njRAT config posted as one URL.
    expect(records.find((r) => r.rawValue === "https://pastebin.com/raw/jxx7yjgK,0.tcp.sa.ngrok.io:15440")?.indicator).toEqual({
      type: "url",
      value: "https://pastebin.com/raw/jxx7yjgK,0.tcp.sa.ngrok.io:15440",
    });
  }, 60_000);

  it("reads the today, week and month files", async () => {
    const today = await collect(parseTweetFeedCsv(open(tweetfeed("tweetfeed_today.csv"))));
    expect(today.rejected).toEqual([]);
    // awk -F, '{print $3}' tweetfeed_today.csv | sort | uniq -c -> 28 domain, 1 ip, 1 sha256, 29 url
    expect(countBy(today.records, (r) => r.indicator.type)).toEqual({ domain: 28, ipv4: 1, sha256: 1, url: 29 });
    expect(today.records[0]).toMatchObject({
      indicator: { type: "domain", value: "cvqgs36nhw-wtrkblpw-3i2d0e-cvq79c.pages.dev" },
      tags: ["ransomware"],
      reporter: "scanmalware",
      reference: "https://x.com/scanmalware/status/2090995771168481618",
    });

    const week = await collect(parseTweetFeedCsv(open(tweetfeed("tweetfeed_week.csv"))));
    expect(week.records.length + week.rejected.length).toBe(1_574);
    expect(week.rejected).toEqual([]);

    const month = await collect(parseTweetFeedCsv(open(tweetfeed("tweetfeed_month.csv.gz"))));
    expect(month.records.length + month.rejected.length).toBe(12_092);
  });

  it("rejects rows with the wrong shape or an unknown type", async () => {
    const text = [
      "2026-08-22 03:45:03,someone,domain,scr33nc0nn3ctz00m.com,,https://x.com/someone/status/1",
      "2026-08-22 03:45:03,someone,asn,AS13335,,https://x.com/someone/status/2",
      "2026-08-22 03:45:03,someone,domain",
      '2026-08-22 03:45:03,someone,url,"http://unterminated.example.com,,https://x.com/someone/status/3',
      "2026-08-22 03:45:03,someone,domain,readme.txt,#CVE-2024-3400,https://x.com/someone/status/4",
      "2026-08-22 03:45:03,someone,url,http://exploit.example.com/x,#CVE-2024-3400 #paloalto,https://x.com/someone/status/5",
    ].join("\n");
    const { records, rejected } = await collect(parseTweetFeedCsv([text]));
    expect(records.map((r) => [r.indicator.value, r.cves])).toEqual([
      ["scr33nc0nn3ctz00m.com", []],
      ["http://exploit.example.com/x", ["CVE-2024-3400"]],
    ]);
    expect(rejected).toEqual([
      { location: "line 2", reason: 'unknown type "asn"' },
      { location: "line 3", reason: "expected 6 columns, got 3" },
      { location: "line 4", reason: "unterminated quoted field" },
      { location: "line 5", reason: 'not a valid indicator: "readme.txt"' },
    ]);
  });
});

describe("MISP feed (TweetFeed's MISP export, real snapshot)", () => {
  it("reads every indicator attribute of the 365 events", async () => {
    const { records, rejected } = await collect(parseMispFeedTar(open(tweetfeed("tweetfeed_misp_feed.tar.gz")), { source: "tweetfeed-misp" }));
    // 110,682 attributes (url 53,656, domain 42,257, ip-dst 9,614, sha256 2,673, md5 2,482), counted with
    // python json over the extracted misp/*.json; six are junk (glued-together domains, Japanese file names).
    expect(records.length + rejected.length).toBe(110_682);
    expect(rejected).toHaveLength(6);
    expect(countBy(records, (r) => r.indicator.type)).toEqual({
      url: 53_656 - 2,
      domain: 42_257 - 4,
      ipv4: 9_614,
      sha256: 2_673,
      md5: 2_482,
    });
    expect(rejected[0]?.location).toMatch(/^misp\/214ec4e1-e77e-5877-a474-c6a0cd4cead4\.json attribute [0-9a-f-]{36}$/);
    // misp/01d7d459-….json, first attribute: type domain, value "Context.ai", timestamp 1776729959.
    expect(records.find((r) => r.rawValue === "Context.ai")).toEqual({
      source: "tweetfeed-misp",
      indicator: { type: "domain", value: "context.ai" },
      rawValue: "Context.ai",
      firstSeen: "2026-04-21T00:05:59.000Z",
      lastSeen: "2026-04-21T00:05:59.000Z",
      threatType: null,
      malwareFamily: null,
      tags: [],
      aliases: [],
      confidence: null,
      reporter: "TweetFeed",
      reference: "https://x.com/JRoosen/status/2046379888035172507",
      port: null,
      cves: [],
    });
  }, 60_000);

  it("handles composite attributes, objects, skipped types and broken events", async () => {
    const event = {
      Event: {
        info: "test",
        Orgc: { name: "CIRCL" },
        Attribute: [
          { type: "ip-dst|port", value: "192.0.2.8|4444", timestamp: "1700000000", Tag: [{ name: "tlp:clear" }, { name: "CVE-2023-4966" }] },
          { type: "domain|ip", value: "evil.example.com|192.0.2.9", timestamp: "1700000000" },
          { type: "filename|sha256", value: `a.exe|${"A".repeat(64)}`, timestamp: "1700000000" },
          { type: "text", value: "just a note" },
          { type: "url", value: "http://gone.example.com/", deleted: true },
          { type: "md5", value: "xyz", uuid: "11111111-2222-3333-4444-555555555555" },
          { type: "ip-src|port", value: "192.0.2.1|http" },
        ],
        Object: [{ name: "file", Attribute: [{ type: "sha1", value: "da39a3ee5e6b4b0d3255bfef95601890afd80709", first_seen: "2023-01-02T03:04:05+00:00" }] }],
      },
    };
    const { records, rejected } = await collect(parseMispEvent([JSON.stringify(event)], { location: "e.json" }));
    expect(records.map((r) => [r.indicator.type, r.indicator.value, r.port, r.reporter])).toEqual([
      ["ipv4", "192.0.2.8", 4444, "CIRCL"],
      ["domain", "evil.example.com", null, "CIRCL"],
      ["ipv4", "192.0.2.9", null, "CIRCL"],
      ["sha256", "a".repeat(64), null, "CIRCL"],
      ["sha1", "da39a3ee5e6b4b0d3255bfef95601890afd80709", null, "CIRCL"],
    ]);
    expect(records[0]).toMatchObject({ tags: ["tlp:clear", "CVE-2023-4966"], cves: ["CVE-2023-4966"], firstSeen: "2023-11-14T22:13:20.000Z" });
    expect(records[4]?.firstSeen).toBe("2023-01-02T03:04:05.000Z");
    expect(rejected).toEqual([
      { location: "e.json attribute 11111111-2222-3333-4444-555555555555", reason: 'not a valid indicator: "xyz"' },
      { location: "e.json attribute 6", reason: 'invalid port in "192.0.2.1|http"' },
    ]);

    const broken = await collect(parseMispEvent(['{"Event": {"Attribute": ['], { location: "bad.json" }));
    expect(broken.records).toEqual([]);
    expect(broken.rejected[0]).toMatchObject({ location: "bad.json", reason: expect.stringMatching(/^invalid JSON/) });
  });
});

describe("STIX 2.1 bundles (TweetFeed, real snapshots)", () => {
  it("reads the week bundle: 1,536 indicators", async () => {
    const { records, rejected } = await collect(parseStixBundle(open(tweetfeed("tweetfeed_stix21_week.json.gz")), { source: "tweetfeed-stix" }));
    expect(rejected).toEqual([]);
    // Pattern object paths in the bundle: url 683, domain-name 575, ipv4-addr 162,
    // file:hashes.'SHA-256' 88, file:hashes.MD5 28.
    expect(countBy(records, (r) => r.indicator.type)).toEqual({ url: 683, domain: 575, ipv4: 162, sha256: 88, md5: 28 });
  });

  it("maps an indicator object field by field", async () => {
    const { records } = await collect(parseStixBundle(open(tweetfeed("tweetfeed_stix21_today.json"))));
    expect(records).toHaveLength(59);
    expect(records[0]).toEqual({
      source: "stix",
      indicator: { type: "domain", value: "cvqgs36nhw-wtrkblpw-3i2d0e-cvq79c.pages.dev" },
      rawValue: "cvqgs36nhw-wtrkblpw-3i2d0e-cvq79c.pages.dev",
      firstSeen: "2026-08-22T02:53:35.000Z",
      lastSeen: null,
      threatType: "malicious-activity",
      malwareFamily: null,
      tags: ["ransomware"],
      aliases: [],
      confidence: null,
      reporter: "TweetFeed",
      reference: "https://x.com/scanmalware/status/2090995771168481618",
      port: null,
      cves: [],
    });
  });

  it("parses simple patterns and refuses the rest with a reason", () => {
    expect(parseStixPattern("[url:value = 'http://x.example.com/it\\'s']")).toEqual([{ path: "url:value", value: "http://x.example.com/it's" }]);
    expect(parseStixPattern("[ipv4-addr:value = '192.0.2.1' OR ipv4-addr:value = '192.0.2.2'] OR [file:hashes.'SHA-256' = 'ab']")).toEqual([
      { path: "ipv4-addr:value", value: "192.0.2.1" },
      { path: "ipv4-addr:value", value: "192.0.2.2" },
      { path: "file:hashes.'SHA-256'", value: "ab" },
    ]);
    expect(parseStixPattern("[file:name = 'a' AND file:size = '1']")).toBe("only OR may join comparisons");
    expect(parseStixPattern("[domain-name:value LIKE '%.example.com']")).toMatch(/only '=' comparisons/);
    expect(parseStixPattern("[url:value = 'x'] FOLLOWEDBY [url:value = 'y']")).toBe("only OR may join observations");
    expect(parseStixPattern("[url:value = 'x")).toBe("unterminated string");
  });

  it("rejects indicators it cannot read and keeps going", async () => {
    const bundle = {
      type: "bundle",
      id: "bundle--1",
      objects: [
        {
          type: "indicator",
          id: "indicator--1",
          pattern_type: "stix",
          pattern: "[domain-name:value = 'ok.example.com']",
          valid_from: "2026-01-01T00:00:00Z",
          confidence: 85,
          labels: ["CVE-2021-44228"],
        },
        { type: "indicator", id: "indicator--2", pattern_type: "sigma", pattern: "title: x" },
        { type: "indicator", id: "indicator--3", pattern: "[x509-certificate:serial_number = '01']" },
        { type: "indicator", id: "indicator--4", pattern: "[ipv4-addr:value = '999.0.0.1']" },
        { type: "indicator", id: "indicator--5", pattern: "[url:value = 'http://revoked.example.com/']", revoked: true },
        { type: "malware", id: "malware--1", name: "x" },
      ],
    };
    const { records, rejected } = await collect(parseStixBundle([JSON.stringify(bundle)]));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      indicator: { type: "domain", value: "ok.example.com" },
      confidence: 85,
      cves: ["CVE-2021-44228"],
      firstSeen: "2026-01-01T00:00:00.000Z",
    });
    expect(rejected).toEqual([
      { location: "objects[1] indicator--2", reason: 'pattern_type "sigma" is not stix' },
      { location: "objects[2] indicator--3", reason: 'unsupported object path "x509-certificate:serial_number"' },
      { location: "objects[3] indicator--4", reason: 'not a valid indicator: "999.0.0.1"' },
    ]);
  });
});
