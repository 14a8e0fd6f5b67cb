import { describe, expect, it } from "vitest";
import { parseSignatureBaseC2, parseSignatureBaseHashes } from "../../../server/feeds/ioc/signature-base";
import { collect, countBy, open, snapshot } from "./paths";

describe("signature-base IOC lists (real snapshot)", () => {
  it("reads all 1,844 C2 entries with their group as tag and reference", async () => {
    const { records, rejected } = await collect(parseSignatureBaseC2(open(snapshot("signature-base-iocs", "c2-iocs.txt"))));
    // grep -v '^#' c2-iocs.txt | grep -cv '^\s*$' -> 1844
    expect(rejected).toEqual([]);
    expect(records).toHaveLength(1_844);
    expect(countBy(records, (r) => r.indicator.type)).toEqual({ domain: 1_709, ipv4: 135 });
    // "# FireEye Operation Snowman https://goo.gl/x1v7mT" then "suroot.com"
    expect(records[0]).toEqual({
      source: "signature-base",
      indicator: { type: "domain", value: "suroot.com" },
      rawValue: "suroot.com",
      firstSeen: null,
      lastSeen: null,
      threatType: "botnet_cc",
      malwareFamily: null,
      tags: ["FireEye Operation Snowman"],
      aliases: [],
      confidence: null,
      reporter: null,
      reference: "https://goo.gl/x1v7mT",
      port: null,
      cves: [],
    });
    // "176.123.5.126;65": the number after ";" is a LOKI score.
    expect(records.find((r) => r.rawValue === "176.123.5.126")?.confidence).toBe(65);
    // The Papercut group names its CVEs.
    const papercut = records.filter((r) => r.tags[0]?.startsWith("Papercut exploitation"));
    expect(papercut.length).toBeGreaterThan(0);
    expect(papercut.every((r) => r.cves?.join() === "CVE-2023-27351,CVE-2023-27350")).toBe(true);
  });

  it("reads all 3,224 hashes", async () => {
    const { records, rejected } = await collect(parseSignatureBaseHashes(open(snapshot("signature-base-iocs", "hash-iocs.txt"))));
    // grep -v '^#' hash-iocs.txt | grep -v '^$' | awk -F';' '{print length($1)}' | sort | uniq -c
    // -> 1039 × 32, 926 × 40, 1259 × 64
    expect(rejected).toEqual([]);
    expect(countBy(records, (r) => r.indicator.type)).toEqual({ md5: 1_039, sha1: 926, sha256: 1_259 });
    // "ce5838…b072;Dark Caracal - MS Windows HtmlHelp Data"
    expect(records.find((r) => r.rawValue.startsWith("ce583821191345274cd954b2db7da974"))).toMatchObject({
      indicator: { type: "sha256", value: "ce583821191345274cd954b2db7da9742c239fe413fc17dcb97ffdd7b51cb072" },
      threatType: "payload",
      tags: ["Dark Caracal"],
      reference: null,
    });
    // Upper-case hashes in the file are lower-cased.
    expect(records.find((r) => r.rawValue.startsWith("EE04B324"))?.indicator.value).toBe("ee04b324f7e25b59d3412232a79d1878632d6817c3bb49500b214bf19afa4e2c");
  });

  it("rejects a value of the wrong kind and ignores commented-out entries", async () => {
    const text = "# 563d1512178cec1f6a73c98d565c98fa;Cygwin nc.exe example\n\nevil.example.com;Test\n";
    const { records, rejected } = await collect(parseSignatureBaseHashes([text]));
    expect(records).toEqual([]);
    expect(rejected).toEqual([{ location: "line 3", reason: 'expected md5 or sha1 or sha256 or sha512, got domain "evil.example.com"' }]);
  });
});
