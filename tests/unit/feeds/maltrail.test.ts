import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { parseMaltrailFile, parseMaltrailTar, trailFileOf } from "../../../server/feeds/ioc/maltrail";
import type { IocSighting } from "../../../server/feeds/ioc/sighting";
import { collect, open, snapshot } from "./paths";

describe("maltrail trail files", () => {
  it("takes category and family from the path", () => {
    expect(trailFileOf("trails/static/malware/emotet.txt")).toEqual({ category: "malware", name: "emotet" });
    expect(trailFileOf("trails/static/suspicious/onion.txt")).toEqual({ category: "suspicious", name: "onion" });
    expect(trailFileOf("trails/static/mass_scanner_cidr.txt")).toEqual({ category: "mass_scanner", name: "mass_scanner_cidr" });
    expect(trailFileOf("trails/static/__init__.py")).toBeNull();
  });

  it("applies references and aliases to the trails below them and rejects host-less trails", async () => {
    const text = [
      "# Copyright (c) 2014-2026 Maltrail developers (https://github.com/stamparm/maltrail/)",
      "",
      "# Aliases: Emotet, Heodo",
      "",
      "# Reference: https://example.com/report-1",
      "",
      "192.0.2.10:443",
      "Evil.Example.COM",
      "",
      "# Reference: https://example.com/report-2",
      "evil.example.net/gate.php",
      "/wp-content/x.php",
      "   # indented comment",
      "bad-[0-9]+.example.com",
      "",
    ].join("\n");
    const { records, rejected } = await collect(parseMaltrailFile([text], { category: "malware", name: "emotet", path: "emotet.txt" }));
    expect(records.map((r) => [r.indicator.type, r.indicator.value, r.port, r.reference])).toEqual([
      ["ipv4", "192.0.2.10", 443, "https://example.com/report-1"],
      ["domain", "evil.example.com", null, "https://example.com/report-1"],
      ["url", "http://evil.example.net/gate.php", null, "https://example.com/report-2"],
    ]);
    expect(records[0]).toMatchObject({ malwareFamily: "emotet", threatType: "malware", tags: [], aliases: ["Emotet", "Heodo"], firstSeen: null });
    expect(rejected).toEqual([
      { location: "emotet.txt:12", reason: "path-only trail names no host" },
      { location: "emotet.txt:14", reason: 'not a valid indicator: "bad-[0-9]+.example.com"' },
    ]);
  });

  it("files a split file's parts under the first file, as their header note says", async () => {
    const parse = async (name: string, category: string, lines: string[]) =>
      (await collect(parseMaltrailFile([lines.join("\n")], { category, name, path: `${name}.txt` }))).records;
    const [part] = await parse("cobaltstrike-2", "malware", [
      "# Note: Continuation of /maltrail/trails/static/malware/cobaltstrike.txt",
      "# Note: Continuation of /maltrail/trails/static/malware/cobaltstrike-1.txt",
      "",
      "192.0.2.10",
    ]);
    expect(part).toMatchObject({ malwareFamily: "cobaltstrike", tags: [] });
    const [third] = await parse("interlock-2", "malware", ["# Continuation of /malware/interlock.txt, /malware/interlock-1.txt trails", "192.0.2.11"]);
    expect(third?.malwareFamily).toBe("interlock");
    // Outside the family categories the file name is a tag: the first file's too.
    const [scanner] = await parse("scanner-1", "suspicious", ["# note: continuation of /suspicious/scanner.txt", "192.0.2.12"]);
    expect(scanner).toMatchObject({ malwareFamily: null, tags: ["scanner"] });
    // A note after the first trail, or one naming no .txt file, changes nothing.
    const late = await parse("emotet", "malware", ["192.0.2.13", "# Continuation of /malware/other.txt", "192.0.2.14"]);
    expect(late.map((r) => r.malwareFamily)).toEqual(["emotet", "emotet"]);
    const [vague] = await parse("njrat-1", "malware", ["# Continuation of the njrat list", "192.0.2.15"]);
    expect(vague?.malwareFamily).toBe("njrat-1");
  });
});

describe("maltrail archive errors", () => {
  it("throws on a truncated or corrupt archive, so a half-downloaded feed fails the import", async () => {
    const archive = readFileSync(snapshot("maltrail", "maltrail_trails_static.tar.gz"));
    await expect(collect(parseMaltrailTar([archive.subarray(0, 200_000)]))).rejects.toThrow(/unexpected end of file/);
    await expect(collect(parseMaltrailTar([Buffer.from("not a tar archive ".repeat(64))]))).rejects.toThrow(/tar header/);
  });
});

describe("maltrail static trails (real snapshot, 1.85 M trails)", () => {
  const summary = {
    ok: 0,
    rejected: 0,
    pathOnly: 0,
    byType: {} as Record<string, number>,
    byCategory: {} as Record<string, number>,
    emotet: 0,
    families: new Map<string, number>(),
  };
  const samples = new Map<string, IocSighting>();
  const published: string[] = [];
  const wanted: Record<string, (record: IocSighting) => boolean> = {
    emotet: (r) => r.malwareFamily === "emotet" && r.rawValue === "66.210.228.178:443",
    hostPath: (r) => r.malwareFamily === "absent" && r.rawValue === "the.earth.li/~sgtatham/putty/latest/w64/putty.exe",
    cidr: (r) => r.tags[0] === "mass_scanner_cidr" && r.rawValue === "5.63.151.0/24",
    onion: (r) => r.tags[0] === "onion" && r.rawValue === "onion.gq",
  };

  beforeAll(async () => {
    // One pass over the whole archive; only counts and a few records are kept.
    const onPublished = (at: string) => published.push(at);
    for await (const result of parseMaltrailTar(open(snapshot("maltrail", "maltrail_trails_static.tar.gz")), { onPublished })) {
      if (!result.ok) {
        summary.rejected += 1;
        if (result.reason === "path-only trail names no host") summary.pathOnly += 1;
        continue;
      }
      const record = result.record;
      summary.ok += 1;
      summary.byType[record.indicator.type] = (summary.byType[record.indicator.type] ?? 0) + 1;
      summary.byCategory[record.threatType ?? ""] = (summary.byCategory[record.threatType ?? ""] ?? 0) + 1;
      if (record.malwareFamily === "emotet") summary.emotet += 1;
      if (record.malwareFamily !== null) summary.families.set(record.malwareFamily, (summary.families.get(record.malwareFamily) ?? 0) + 1);
      for (const [name, test] of Object.entries(wanted)) if (!samples.has(name) && test(record)) samples.set(name, record);
    }
  }, 180_000);

  it("accounts for every trail line", () => {
    // tar -xzOf maltrail_trails_static.tar.gz | grep -v '^\s*#' | grep -cv '^\s*$'  -> 1852460
    expect(summary.ok + summary.rejected).toBe(1_852_460);
    // ... | grep -c '^\s*/'  -> 93715 path-only trails ("/gate.php"), which name no host.
    expect(summary.pathOnly).toBe(93_715);
    // The rest of the rejections are regexes, wildcards and typos (well under 1 %).
    expect(summary.rejected - summary.pathOnly).toBeLessThan(10_000);
  });

  it("dates the list by its trail files' times in the archive", () => {
    // tar -tvzf maltrail_trails_static.tar.gz --full-time | sort -k4,5 | tail -1  -> 2026-08-22 21:01:36 (UTC)
    expect(published.length).toBeGreaterThan(0);
    expect(published.reduce((latest, at) => (at > latest ? at : latest))).toBe("2026-08-22T21:01:36.000Z");
  });

  it("files the parts of split files under the first file's family", () => {
    // The eight files named <name>-<n>.txt each begin "Continuation of …/<name>.txt".
    for (const part of ["interlock-1", "interlock-2", "cobaltstrike-1", "cobaltstrike-2", "njrat-1", "apt_gamaredon-1", "apt_unc6691-1", "ek_clearfake-1"]) {
      expect(summary.families.has(part), part).toBe(false);
    }
    // tar -xzOf … trails/static/malware/interlock{,-1,-2}.txt | grep -v '^\s*#' | grep -v '^\s*$' | grep -vc '^\s*/'
    // -> 87102 + 101723 + 24691 trails with a host; the few the normaliser rejects are not counted.
    expect(summary.families.get("interlock")).toBeGreaterThan(213_000);
    expect(summary.families.get("interlock")).toBeLessThanOrEqual(87_102 + 101_723 + 24_691);
  });

  it("reads the categories and families", () => {
    // tar -xzOf … trails/static/malware/emotet.txt | grep -v '^\s*#' | grep -v '^\s*$' | grep -vc '^\s*/'
    // -> 10297 trails with a host (plus 4737 path-only ones): every one is read.
    expect(summary.emotet).toBe(10_297);
    expect(Object.keys(summary.byCategory).sort()).toEqual(["malicious", "malware", "mass_scanner", "suspicious"]);
    expect(summary.byType.domain).toBeGreaterThan(1_300_000);
    expect(summary.byType.ipv4).toBeGreaterThan(290_000);
    expect(summary.byType.url).toBeGreaterThan(70_000);
    expect(summary.byType.cidr).toBeGreaterThan(1_000);
  });

  it("spot-checks real trails field by field", () => {
    expect(samples.get("emotet")).toEqual({
      source: "maltrail",
      indicator: { type: "ipv4", value: "66.210.228.178" },
      rawValue: "66.210.228.178:443",
      firstSeen: null,
      lastSeen: null,
      threatType: "malware",
      malwareFamily: "emotet",
      tags: [],
      aliases: ["Emotet", "Heodo", "Geodo"],
      confidence: null,
      reporter: null,
      reference: "https://twitter.com/_lockhum/status/1221213324525867008",
      port: 443,
      cves: [],
    });
    expect(samples.get("hostPath")?.indicator).toEqual({
      type: "url",
      value: "http://the.earth.li/~sgtatham/putty/latest/w64/putty.exe",
    });
    expect(samples.get("cidr")).toMatchObject({
      indicator: { type: "cidr", value: "5.63.151.0/24" },
      threatType: "mass_scanner",
      malwareFamily: null,
      tags: ["mass_scanner_cidr"],
    });
    expect(samples.get("onion")).toMatchObject({
      indicator: { type: "domain", value: "onion.gq" },
      threatType: "suspicious",
      malwareFamily: null,
      tags: ["onion"],
      reference: "http://malwaretips.com/threads/connects-to-tor-hidden-services-through-tor2web.42274/",
    });
  });
});
