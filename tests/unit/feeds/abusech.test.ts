import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseFeodoCsv } from "../../../server/feeds/ioc/feodo";
import { abuseChLastUpdated } from "../../../server/feeds/ioc/last-updated";
import { parseHashList, parseMalwareBazaarCsv } from "../../../server/feeds/ioc/malwarebazaar";
import { parseThreatFoxCsv, parseThreatFoxJson } from "../../../server/feeds/ioc/threatfox";
import { parseUrlhausCsv } from "../../../server/feeds/ioc/urlhaus";
import { collect, countBy, fixture, open, snapshot } from "./paths";

describe("ThreatFox CSV", () => {
  it("reads the current export (with is_compromised) field by field", async () => {
    const { records, rejected } = await collect(parseThreatFoxCsv(open(fixture("threatfox_recent.csv"))));
    expect(records).toHaveLength(6);
    expect(records[0]).toEqual({
      source: "threatfox",
      indicator: { type: "ipv4", value: "198.51.100.23" },
      rawValue: "198.51.100.23:8443",
      firstSeen: "2026-11-20T07:58:31.000Z",
      lastSeen: null,
      threatType: "botnet_cc",
      malwareFamily: "Cobalt Strike",
      tags: ["CobaltStrike", "cs-watermark-987654321"],
      aliases: [],
      confidence: 100,
      reporter: "abuse_ch",
      reference: "https://threatfox.abuse.ch/ioc/1650001/",
      port: 8443,
      cves: [],
    });
    expect(records[1]).toMatchObject({
      indicator: { type: "domain", value: "update-check.example.com" },
      lastSeen: "2026-11-20T07:55:00.000Z",
      threatType: "payload_delivery",
      malwareFamily: "ClearFake",
      tags: ["ClearFake", "macos"],
      confidence: 90,
      reporter: "anonymous",
      reference: "https://infosec.example.net/clearfake-2026",
      port: null,
    });
    expect(records[2]?.indicator).toEqual({ type: "url", value: "http://203.0.113.7/Panel/five/fre.php" });
    expect(records[3]).toMatchObject({
      indicator: { type: "sha256", value: "2f1c9a9b1c0d4e6f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f" },
      cves: ["CVE-2023-4966"],
    });
    // ThreatFox's "unknown" family is a placeholder, and "None" tags are no tags.
    expect(records[4]).toMatchObject({ indicator: { type: "md5" }, malwareFamily: null, tags: [] });
    expect(records[5]).toMatchObject({ indicator: { type: "ipv6", value: "2001:db8::5" }, port: 443 });

    expect(rejected).toEqual([
      { location: "line 16", reason: expect.stringContaining('"999.1.1.1:80"') },
      { location: "line 17", reason: "expected 15 columns, got 6" },
      { location: "line 18", reason: 'unknown ioc_type "sha3_384_hash"' },
      { location: "line 19", reason: "expected 15 columns, got 14" },
    ]);
  });

  it("reads older exports without is_compromised by their column count", async () => {
    const { records, rejected } = await collect(parseThreatFoxCsv(open(fixture("threatfox_legacy.csv")), { source: "tf" }));
    expect(rejected).toEqual([]);
    expect(records.map((r) => [r.source, r.indicator.type, r.indicator.value, r.port])).toEqual([
      ["tf", "ipv4", "192.0.2.45", 2222],
      ["tf", "url", "https://files.example.org/invoice_0131.zip", null],
      ["tf", "sha1", "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00", null],
    ]);
    expect(records[0]).toMatchObject({ lastSeen: "2023-01-31T23:55:00.000Z", tags: ["Qakbot", "obama236"], confidence: 75 });
    expect(records[1]?.reference).toBe("https://urlhaus.abuse.ch/url/2550001/");
  });
});

describe("ThreatFox JSON", () => {
  it("streams the export one IOC at a time, even from tiny chunks", async () => {
    const text = readFileSync(fixture("threatfox_export.json"), "utf8");
    const chunks = Array.from({ length: Math.ceil(text.length / 5) }, (_, i) => text.slice(i * 5, i * 5 + 5));
    const { records, rejected } = await collect(parseThreatFoxJson(chunks));
    expect(records).toEqual([
      {
        source: "threatfox",
        indicator: { type: "ipv4", value: "198.51.100.80" },
        rawValue: "198.51.100.80:2404",
        firstSeen: "2026-11-21T10:15:02.000Z",
        lastSeen: null,
        threatType: "botnet_cc",
        malwareFamily: "Remcos",
        tags: ["Remcos", "RAT"],
        aliases: [],
        confidence: 100,
        reporter: "abuse_ch",
        reference: "https://threatfox.abuse.ch/ioc/1652001/",
        port: 2404,
        cves: [],
      },
      expect.objectContaining({
        indicator: {
          type: "url",
          value: 'https://cdn-static.example.net/wp-content/Plugins/Update.PHP?id=7&ref="x"',
        },
        lastSeen: "2026-11-21T11:30:45.000Z",
        tags: ["SocGholish", "CVE-2024-3400"],
        cves: ["CVE-2024-3400"],
        reference: "https://infosec.example.net/socgholish",
      }),
    ]);
    expect(rejected).toEqual([
      { location: "ioc 1652003", reason: 'not a valid indicator: "not a domain"' },
      { location: "ioc 1652004", reason: "missing ioc_value or ioc_type" },
    ]);
  });
});

describe("URLhaus CSV", () => {
  it("canonicalises URLs and keeps the URLhaus link as reference", async () => {
    const { records, rejected } = await collect(parseUrlhausCsv(open(fixture("urlhaus_recent.csv"))));
    expect(records.map((r) => r.indicator.value)).toEqual([
      "http://192.0.2.44:36512/i",
      "https://drop.example.com/Invoice%20Nov.exe",
      "http://files.example.org/a/b.sh?arch=mips",
    ]);
    expect(records[0]).toEqual({
      source: "urlhaus",
      indicator: { type: "url", value: "http://192.0.2.44:36512/i" },
      rawValue: "http://192.0.2.44:36512/i",
      firstSeen: "2026-11-20T08:01:07.000Z",
      lastSeen: "2026-11-20T08:01:07.000Z",
      threatType: "malware_download",
      malwareFamily: null,
      tags: ["32-bit", "elf", "mips", "Mozi"],
      aliases: [],
      confidence: null,
      reporter: "geenensp",
      reference: "https://urlhaus.abuse.ch/url/3300004/",
      port: null,
      cves: [],
    });
    expect(records[2]?.tags).toEqual([]);
    expect(rejected).toEqual([
      { location: "line 13", reason: 'not a valid indicator: "files.example.org/no-scheme.sh"' },
      { location: "line 14", reason: "expected 9 columns, got 8" },
    ]);
  });
});

describe("Feodo Tracker CSV (real snapshot)", () => {
  const file = snapshot("abusech", "feodotracker_ipblocklist_2024-04-04.csv");

  it("reads all 28 entries of the 2024-04-04 blocklist", async () => {
    // The file ends with "# END 28 entries"; `grep -c '^"[0-9]'` counts 28 rows too.
    const { records, rejected } = await collect(parseFeodoCsv(open(file)));
    expect(rejected).toEqual([]);
    expect(records).toHaveLength(28);
    expect(countBy(records, (r) => r.malwareFamily ?? "")).toEqual({ Pikabot: 28 });
    expect(records.every((r) => r.indicator.type === "ipv4" && r.threatType === "botnet_cc")).toBe(true);
  });

  it("maps the first and last rows field by field", async () => {
    const { records } = await collect(parseFeodoCsv(open(file)));
    // "2023-05-23 17:51:44","192.9.135.73","1194","online","2024-04-01","Pikabot"
    expect(records[0]).toEqual({
      source: "feodotracker",
      indicator: { type: "ipv4", value: "192.9.135.73" },
      rawValue: "192.9.135.73",
      firstSeen: "2023-05-23T17:51:44.000Z",
      lastSeen: "2024-04-01T00:00:00.000Z",
      threatType: "botnet_cc",
      malwareFamily: "Pikabot",
      tags: [],
      aliases: [],
      confidence: null,
      reporter: null,
      reference: null,
      port: 1194,
      cves: [],
    });
    // "2024-04-04 07:03:03","172.233.221.61","5938","offline","2024-04-04","Pikabot": last online that day, so seen until 07:03:03 at least.
    expect(records[27]).toMatchObject({
      indicator: { type: "ipv4", value: "172.233.221.61" },
      port: 5938,
      firstSeen: "2024-04-04T07:03:03.000Z",
      lastSeen: "2024-04-04T07:03:03.000Z",
    });
    expect(records.filter((r) => r.lastSeen! < r.firstSeen!)).toEqual([]);
  });

  it("rejects a malformed row and keeps going", async () => {
    const text = readFileSync(file, "utf8").replace('"37.60.242.85","9785"', '"37.60.242.999","9785"').replace('"2078"', '"99999"');
    const { records, rejected } = await collect(parseFeodoCsv([text]));
    expect(records).toHaveLength(26);
    expect(rejected).toEqual([
      { location: "line 12", reason: 'not a valid indicator: "37.60.242.999"' },
      { location: "line 13", reason: 'invalid dst_port "99999"' },
    ]);
  });
});

describe("MalwareBazaar", () => {
  it("reads the recent-md5 hash list snapshot", async () => {
    // The footer says "# Number of entries: 506", but the file holds 507 md5
    // lines (`grep -cE '^[0-9a-f]{32}$'` = 507, all distinct): the export's own
    // count is off by one, and every line is a valid hash.
    const { records, rejected } = await collect(parseHashList(open(snapshot("abusech", "malwarebazaar_recent_md5_2023-11-23.txt"))));
    expect(rejected).toEqual([]);
    expect(records).toHaveLength(507);
    expect(new Set(records.map((r) => r.indicator.value)).size).toBe(507);
    expect(records.every((r) => r.indicator.type === "md5" && r.source === "malwarebazaar")).toBe(true);
    expect(records[0]?.indicator.value).toBe("98516400e20d10be5d0f6e2462e33df3");
    expect(records.at(-1)?.indicator.value).toBe("b90275debeb32092d4939345d6541f1f");
  });

  it("rejects a hash list line that is not a hash", async () => {
    const { records, rejected } = await collect(parseHashList(["# md5_hash\n98516400E20D10BE5D0F6E2462E33DF3\nnot-a-hash\n"]));
    expect(records.map((r) => r.indicator.value)).toEqual(["98516400e20d10be5d0f6e2462e33df3"]);
    expect(rejected).toEqual([{ location: "line 3", reason: 'not a valid indicator: "not-a-hash"' }]);
  });

  it("reads the CSV export with one record per hash of a sample", async () => {
    const { records, rejected } = await collect(parseMalwareBazaarCsv(open(fixture("malwarebazaar_recent.csv"))));
    expect(records.map((r) => [r.indicator.type, r.indicator.value])).toEqual([
      ["sha256", "7a3f0c2b9d8e1f4a6b5c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a"],
      ["md5", "5d41402abc4b2a76b9719d911017c592"],
      ["sha1", "aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d"],
      ["sha256", "0b5e7f1c2d3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c"],
      ["sha256", "1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d"],
    ]);
    expect(records[1]).toEqual({
      source: "malwarebazaar",
      indicator: { type: "md5", value: "5d41402abc4b2a76b9719d911017c592" },
      rawValue: "5D41402ABC4B2A76B9719D911017C592",
      firstSeen: "2026-11-20T08:02:15.000Z",
      lastSeen: null,
      threatType: "payload",
      malwareFamily: "AgentTesla",
      tags: ["exe"],
      aliases: [],
      confidence: null,
      reporter: "abuse_ch",
      reference: "https://bazaar.abuse.ch/sample/7a3f0c2b9d8e1f4a6b5c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a/",
      port: null,
      cves: [],
    });
    expect(records[3]?.malwareFamily).toBeNull();
    expect(rejected).toEqual([{ location: "line 12 md5_hash", reason: 'not a valid indicator: "not-a-md5"' }]);
  });
});

describe('abuse.ch\'s "Last updated" header', () => {
  const head = (path: string) => readFileSync(path).subarray(0, 4096).toString("utf8");

  it("dates each export by it, the real snapshots included, whether or not UTC is in brackets", () => {
    expect(abuseChLastUpdated(head(snapshot("abusech", "malwarebazaar_recent_md5_2023-11-23.txt")))).toBe("2023-11-23T04:18:36.000Z");
    expect(abuseChLastUpdated(head(snapshot("abusech", "feodotracker_ipblocklist_2024-04-04.csv")))).toBe("2024-04-04T07:03:03.000Z");
    expect(abuseChLastUpdated(head(fixture("threatfox_recent.csv")))).toBe("2026-11-20T08:00:12.000Z");
    expect(abuseChLastUpdated(head(fixture("urlhaus_recent.csv")))).toBe("2026-11-20T08:05:11.000Z");
  });

  it("finds no date where there is no such comment line, or no valid time in it", () => {
    expect(abuseChLastUpdated('"first_seen_utc","dst_ip"\n"2024-02-08 19:20:49","85.239.243.155"\n')).toBeNull();
    expect(abuseChLastUpdated("# Last updated: soon\n")).toBeNull();
    expect(abuseChLastUpdated("# Last updated: 2023-13-45 99:00:00 UTC\n")).toBeNull();
    // A data row quoting the words is not the header.
    expect(abuseChLastUpdated('"x","Last updated: 2023-11-23 04:18:36"\n')).toBeNull();
  });
});
