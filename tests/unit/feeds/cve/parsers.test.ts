import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { normalizeCveJson5, parseCveJson5Lines } from "../../../../server/feeds/cve/cve-json5";
import { parseDeltaDocument, planFromDeltas, recordPathInTree } from "../../../../server/feeds/cve/cvelist";
import { parseCweXml } from "../../../../server/feeds/cve/cwe";
import { dateInFileName, parseEpssCsv } from "../../../../server/feeds/cve/epss";
import { parseKev } from "../../../../server/feeds/cve/kev";
import { parseNvdPage } from "../../../../server/feeds/cve/nvd";
import { parseTrickestMarkdown } from "../../../../server/feeds/cve/trickest";
import { loadPipelineConfig, PipelineConfigError } from "../../../../server/pipeline/config";
import { openFeedFile } from "../../../../server/feeds/toolkit/file";
import { open, snapshot } from "../paths";

async function collect<T>(results: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const result of results) all.push(result);
  return all;
}

const text = (value: string) => Readable.from([Buffer.from(value)]);

const record = (overrides: Record<string, unknown> = {}) => ({
  dataType: "CVE_RECORD",
  dataVersion: "5.1",
  cveMetadata: { cveId: "CVE-2024-0001", state: "PUBLISHED", datePublished: "2024-01-02T00:00:00Z" },
  containers: {
    cna: {
      title: "Example",
      descriptions: [{ lang: "en", value: "An example flaw." }],
      metrics: [
        { cvssV3_1: { baseScore: 7.5, vectorString: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N" } },
        { cvssV2_0: { baseScore: 5, vectorString: "AV:N/AC:L/Au:N/C:P/I:N/A:N" } },
        { cvssV4_0: { baseScore: "high" } },
      ],
      problemTypes: [{ descriptions: [{ type: "text", description: "CWE-79 Cross-site Scripting" }, { description: "no id" }] }],
      references: [{ url: "https://example.test/a", tags: ["exploit"] }, { name: "no url" }],
    },
    adp: [
      {
        providerMetadata: { shortName: "CVE" },
        references: [{ url: "https://example.test/a", tags: ["x_transferred", "patch"] }],
      },
    ],
  },
  ...overrides,
});

describe("CVE JSON 5 parser", () => {
  it("normalises metrics, CWEs and references, skipping unusable sub-elements", () => {
    const result = normalizeCveJson5(record(), "test");
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.record.metrics).toEqual([
      {
        source: "cna",
        version: "3.1",
        score: 7.5,
        severity: "HIGH",
        vector: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N",
        nvdType: null,
        computedScore: 7.5,
        computedSeverity: "HIGH",
      },
      {
        source: "cna",
        version: "2.0",
        score: 5,
        severity: "MEDIUM",
        vector: "AV:N/AC:L/Au:N/C:P/I:N/A:N",
        nvdType: null,
        computedScore: 5,
        computedSeverity: "MEDIUM",
      },
    ]);
    expect(result.record.weaknesses).toEqual([{ source: "cna", cweId: "CWE-79", description: "CWE-79 Cross-site Scripting" }]);
    expect(result.record.references).toEqual([{ url: "https://example.test/a", name: null, tags: ["exploit", "patch"], source: "cna" }]);
  });

  it("rejects a record whose identity is unusable, naming where and why", () => {
    expect(normalizeCveJson5(record({ cveMetadata: { cveId: "CVE-24-1", state: "PUBLISHED" } }), "f:3")).toEqual({
      ok: false,
      location: "f:3",
      reason: 'cveMetadata.cveId "CVE-24-1" is not a CVE id',
    });
    expect(normalizeCveJson5(record({ cveMetadata: { cveId: "CVE-2024-0001", state: "DRAFT" } }), "x").ok).toBe(false);
    expect(normalizeCveJson5(record({ dataType: "OTHER" }), "x").ok).toBe(false);
  });

  it("reads JSON Lines with line locations, and fails on a truncated gzip", async () => {
    const lines = `${JSON.stringify(record())}\n{not json\n\n`;
    const results = await collect(parseCveJson5Lines(text(lines), "bundle.jsonl"));
    expect(results.map((r) => (r.ok ? r.record.id : r.location))).toEqual(["CVE-2024-0001", "bundle.jsonl:2"]);

    const gz = gzipSync(Buffer.from(lines.repeat(200)));
    const path = join(mkdtempSync(join(tmpdir(), "tr-unit-")), "cut.jsonl.gz");
    writeFileSync(path, gz.subarray(0, Math.floor(gz.length / 2)));
    await expect(collect(parseCveJson5Lines(await openFeedFile(path), "cut.jsonl.gz"))).rejects.toThrow(/unexpected end of file/);
  });
});

describe("EPSS parser", () => {
  it("reads FIRST's file with its model/score-date line and header", async () => {
    const csv = "#model_version:v2025.03.14,score_date:2025-09-03T00:00:00+0000\ncve,epss,percentile\nCVE-2024-3400,0.94335,0.99954\n";
    expect(await collect(parseEpssCsv(text(csv), "f", { fallbackScoreDate: null }))).toEqual([
      { ok: true, record: { cveId: "CVE-2024-3400", scoreDate: "2025-09-03", epss: 0.94335, percentile: 0.99954, modelVersion: "v2025.03.14" } },
    ]);
  });

  it("reads the semicolon variant with the file's date and rejects bad rows", async () => {
    const csv = "CVE-2021-44228;0.999990000;1.000000000\nCVE-2021-1;0.1;0.2\nCVE-2021-44229;1.5;0.2\n";
    const results = await collect(parseEpssCsv(text(csv), "e.csv", { fallbackScoreDate: dateInFileName("x/emba_2026-08-16.csv.gz") }));
    expect(results[0]).toEqual({ ok: true, record: { cveId: "CVE-2021-44228", scoreDate: "2026-08-16", epss: 0.99999, percentile: 1, modelVersion: null } });
    expect(results.slice(1).map((r) => !r.ok && r.location)).toEqual(["e.csv:2", "e.csv:3"]);
  });

  it("refuses a file with no score date at all", async () => {
    await expect(collect(parseEpssCsv(text("CVE-2021-44228;0.9;1\n"), "f", { fallbackScoreDate: null }))).rejects.toThrow(/score_date/);
  });
});

describe("KEV parser", () => {
  const header = "cveID,vendorProject,product,vulnerabilityName,dateAdded,shortDescription,requiredAction,dueDate,knownRansomwareCampaignUse,notes,cwes\n";
  it("reads the CSV form, splitting the comma-joined CWEs", async () => {
    const csv = `${header}CVE-2024-3400,Palo Alto Networks,PAN-OS,"Name",2024-04-12,"Desc","Act",2024-04-19,Known,"","CWE-20, CWE-77"\n`;
    const [result] = await collect(parseKev(text(csv), "kev.csv"));
    expect(result).toMatchObject({
      ok: true,
      record: { cveId: "CVE-2024-3400", cwes: ["CWE-20", "CWE-77"], notes: null, knownRansomwareCampaignUse: "Known" },
    });
  });

  it("rejects a file that is not a KEV catalogue", async () => {
    await expect(collect(parseKev(text("a,b\n1,2\n"), "x.csv"))).rejects.toThrow(/missing column/);
    await expect(collect(parseKev(text('{"title":"x"}'), "x.json"))).rejects.toThrow(/vulnerabilities/);
  });
});

describe("Trickest, CWE and NVD parsers", () => {
  it("reads a Trickest badge whose message holds parentheses, as CWE names do", () => {
    const md = [
      "### [CVE-2024-0001](https://cve.mitre.org/cgi-bin/cvename.cgi?name=CVE-2024-0001)",
      "![](https://img.shields.io/static/v1?label=Product&message=Widget%20(Pro)&color=blue)",
      "![](https://img.shields.io/static/v1?label=Vulnerability&message=CWE-79%20Improper%20Neutralization%20(%27Cross-site%20Scripting%27)&color=brightgreen)",
      "",
      "#### Github",
      "- https://github.com/someone/CVE-2024-0001",
    ].join("\n");
    const result = parseTrickestMarkdown("2024/CVE-2024-0001.md", md, "t:1");
    expect(result.ok && result.record.products).toEqual(["Widget (Pro)"]);
    expect(result.ok && result.record.weaknesses).toEqual([
      { source: "trickest", cweId: "CWE-79", description: "CWE-79 Improper Neutralization ('Cross-site Scripting')" },
    ]);
  });

  it("reads Trickest badges and PoC lists", () => {
    const md = [
      "### [CVE-2024-3400](https://cve.mitre.org/cgi-bin/cvename.cgi?name=CVE-2024-3400)",
      "![](https://img.shields.io/static/v1?label=Product&message=PAN-OS&color=blue)",
      "![](https://img.shields.io/static/v1?label=Version&message=n%2Fa&color=brightgreen)",
      "![](https://img.shields.io/static/v1?label=Vulnerability&message=CWE-77%20Command%20Injection&color=brightgreen)",
      "",
      "### POC",
      "",
      "#### Reference",
      "- https://security.example/advisory",
      "",
      "#### Github",
      "- https://github.com/someone/CVE-2024-3400",
      "- https://github.com/other/scanner",
    ].join("\n");
    expect(parseTrickestMarkdown("2024/CVE-2024-3400.md", md, "t:1")).toEqual({
      ok: true,
      record: {
        cveId: "CVE-2024-3400",
        products: ["PAN-OS"],
        versions: [],
        weaknesses: [{ source: "trickest", cweId: "CWE-77", description: "CWE-77 Command Injection" }],
        exploits: [
          { url: "https://github.com/someone/CVE-2024-3400", kind: "poc-repository" },
          { url: "https://github.com/other/scanner", kind: "poc-repository" },
          { url: "https://security.example/advisory", kind: "reference" },
        ],
      },
    });
  });

  it("streams CWE entries from the catalogue XML", async () => {
    const xml = `<?xml version="1.0"?><Weakness_Catalog Name="CWE"><Weaknesses><Weakness ID="79" Name="XSS" Abstraction="Base" Status="Stable"><Description>long</Description></Weakness><Weakness ID="x" Name="bad"/></Weaknesses><Categories><Category ID="16" Name="Configuration" Status="Obsolete"/></Categories></Weakness_Catalog>`;
    const results = await collect(parseCweXml(text(xml), "cwe.xml"));
    expect(results.filter((r) => r.ok).map((r) => r.ok && r.record)).toEqual([
      { id: "CWE-79", name: "XSS", kind: "weakness", abstraction: "Base", status: "Stable" },
      { id: "CWE-16", name: "Configuration", kind: "category", abstraction: null, status: "Obsolete" },
    ]);
    expect(results.filter((r) => !r.ok)).toHaveLength(1);
  });

  it("dates the CWE catalogue by its release day, the real snapshot's included", async () => {
    const days: string[] = [];
    const xml = `<?xml version="1.0"?><Weakness_Catalog Name="CWE" Version="4.15" Date="2024-07-16"><Weaknesses/></Weakness_Catalog>`;
    await collect(parseCweXml(text(xml), "cwe.xml", (day) => days.push(day)));
    expect(days).toEqual(["2024-07-16"]);
    await collect(parseCweXml(text(xml.replace("2024-07-16", "July 2024")), "cwe.xml", (day) => days.push(day)));
    expect(days).toEqual(["2024-07-16"]);
    // zcat cwec_v4.15.xml.gz | head -c 120  -> <Weakness_Catalog Name="CWE" Version="4.15" Date="2024-07-16" …>
    const snapshotDays: string[] = [];
    for await (const result of parseCweXml(open(snapshot("mitre-cwe", "cwec_v4.15.xml.gz")), "cwec_v4.15.xml", (day) => snapshotDays.push(day))) void result;
    expect(snapshotDays).toEqual(["2024-07-16"]);
  });

  it("maps an NVD page's sources to cna / cisa-adp / nvd and CPEs to products", () => {
    const page = parseNvdPage(
      JSON.stringify({
        resultsPerPage: 1,
        startIndex: 0,
        totalResults: 1,
        vulnerabilities: [
          {
            cve: {
              id: "CVE-2024-0002",
              vulnStatus: "Rejected",
              published: "2024-01-01T00:00:00.000",
              metrics: { cvssMetricV31: [{ source: "134c704f-9b21-4f2e-91b3-4a467353bcc0", type: "Secondary", cvssData: { baseScore: 4.3 } }] },
              configurations: [{ nodes: [{ cpeMatch: [{ vulnerable: true, criteria: "cpe:2.3:a:acme:widget\\:pro:1.0:*:*:*:*:*:*:*" }] }] }],
            },
          },
        ],
      }),
      "page",
    );
    const result = page.records[0];
    expect(result?.ok && result.record).toMatchObject({
      state: "REJECTED",
      datePublished: "2024-01-01T00:00:00.000Z",
      metrics: [{ source: "cisa-adp", version: "3.1", score: 4.3, severity: "MEDIUM" }],
      affected: [{ source: "nvd", vendor: "acme", product: "widget:pro", versions: [{ version: "1.0", status: "affected" }] }],
    });
  });
});

describe("cvelistV5 deltas", () => {
  const log = parseDeltaDocument(
    JSON.stringify([
      { fetchTime: "2024-05-01T12:00:00Z", new: [{ cveId: "CVE-2024-0003" }], updated: [{ cveId: "CVE-2024-0001" }] },
      { fetchTime: "2024-05-01T11:00:00Z", new: [{ cveId: "CVE-2024-0001" }, { cveId: "CVE-2024-0002" }], updated: [] },
    ]),
    "deltaLog.json",
  );

  it("lists what changed after the cursor when the log reaches back to it", () => {
    expect(planFromDeltas(log, "2024-05-01T11:00:00Z")).toEqual({
      covered: true,
      newestFetchTime: "2024-05-01T12:00:00Z",
      changes: [
        { cveId: "CVE-2024-0003", githubLink: null },
        { cveId: "CVE-2024-0001", githubLink: null },
      ],
    });
  });

  it("is not covered without a cursor or when the log starts after it", () => {
    expect(planFromDeltas(log, null).covered).toBe(false);
    expect(planFromDeltas(log, "2024-05-01T10:00:00Z").covered).toBe(false);
  });

  it("places records in the cves/YYYY/Nxxx tree", () => {
    expect(recordPathInTree("CVE-2024-3400", null)).toBe("2024/3xxx/CVE-2024-3400.json");
    expect(recordPathInTree("CVE-2024-21762", "https://raw.githubusercontent.com/CVEProject/cvelistV5/main/cves/2024/21xxx/CVE-2024-21762.json")).toBe(
      "2024/21xxx/CVE-2024-21762.json",
    );
  });
});

describe("loadPipelineConfig", () => {
  it("uses the publishers' defaults and per-source overrides", () => {
    const config = loadPipelineConfig({
      SOURCE_CISA_KEV_URL: "/data/kev.json, https://mirror.example/kev.json",
      SYNC_INTERVAL_EPSS_MINUTES: "30",
      SOURCE_NVD_ENABLED: "true",
      SYNC_ENABLED: "false",
    });
    expect(config.syncEnabled).toBe(false);
    expect(config.sources["cisa-kev"]).toMatchObject({ locations: ["/data/kev.json", "https://mirror.example/kev.json"], overridden: true });
    expect(config.sources.epss.intervalMinutes).toBe(30);
    expect(config.sources.nvd.enabled).toBe(true);
    expect(config.sources["cve-json5"].overridden).toBe(false);
  });

  it("names every bad variable", () => {
    const bad = { SYNC_INTERVAL_EPSS_MINUTES: "soon", SOURCE_CISAKEV_URL: "x", SOURCE_EPSS_URL: "ftp://x/y", SYNC_ENABLED: "maybe" };
    expect(() => loadPipelineConfig(bad)).toThrow(PipelineConfigError);
    const message = (() => {
      try {
        loadPipelineConfig(bad);
        return "";
      } catch (error) {
        return (error as Error).message;
      }
    })();
    for (const name of Object.keys(bad)) expect(message).toContain(name);
  });
});
