import { createReadStream } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { sql } from "kysely";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parseMispFeedTar } from "../../../server/feeds/ioc/misp";
import { parseStixBundle } from "../../../server/feeds/ioc/stix";
import { parseTweetFeedCsv } from "../../../server/feeds/ioc/tweetfeed";
import type { ParseResult } from "../../../server/feeds/toolkit/result";
import type { IocSighting } from "../../../server/feeds/ioc/sighting";
import { loadPipelineConfig } from "../../../server/pipeline/config";
import { syncSource } from "../../../server/pipeline/sync";
import type { HomeData } from "../../../shared/types/home";
import { formatCount } from "../../../shared/util/format";
import { kevCatalogue, rawCveRecords, utcTimestamp } from "../../helpers/source-files";
import { DATA_DIR } from "../../helpers/paths";
import { createTestApp, type TestApp } from "../../helpers/test-app";
import { SNAPSHOT_NOW } from "../setup/snapshot-database";
import { feodoEntries } from "../ioc-radar/source-counts";
import { summarizeSnapshot } from "../cve-radar/source-truth";

/** The home page: figures that agree with the data, and no zeros passed off as facts before an import. */

const textOf = (html: string) => html.replaceAll("<!-- -->", "");
const figure = (html: string, label: string) => new RegExp(`<dt>${label}</dt><dd>(.*?)</dd>`).exec(html)?.[1] ?? "";

/**
 * Indicators whose newest publisher time (last seen, else first seen, over
 * every dated feed of the snapshot import) falls in the 24 h before `now`,
 * read from the feed files. MalwareBazaar and signature-base date nothing,
 * so they never count, and a value seen again after `now` is not "seen in
 * the last 24 h" on that clock.
 */
async function seenInLastDay(now: number): Promise<number> {
  const tweetfeed = (name: string) => createReadStream(join(DATA_DIR, "tweetfeed", name));
  const feeds: Array<AsyncIterable<ParseResult<IocSighting>>> = [
    ...["tweetfeed_daily_2024.csv.gz", "tweetfeed_daily_2025.csv.gz", "tweetfeed_daily_2026.csv.gz"].map((name) => parseTweetFeedCsv(tweetfeed(name))),
    parseMispFeedTar(tweetfeed("tweetfeed_misp_feed.tar.gz"), { source: "tweetfeed" }),
    parseStixBundle(tweetfeed("tweetfeed_stix21_week.json.gz"), { source: "tweetfeed" }),
  ];
  const newest = new Map<string, number>();
  const note = (key: string, time: string | null) => {
    const at = time ? Date.parse(time) : Number.NaN;
    if (!Number.isNaN(at) && at > (newest.get(key) ?? -Infinity)) newest.set(key, at);
  };
  for (const feed of feeds) {
    for await (const result of feed)
      if (result.ok) note(`${result.record.indicator.type} ${result.record.indicator.value}`, result.record.lastSeen ?? result.record.firstSeen);
  }
  for (const entry of feodoEntries()) note(`ipv4 ${entry.ip}`, entry.lastOnline ? `${entry.lastOnline}T00:00:00Z` : null);
  return [...newest.values()].filter((at) => at >= now - 86_400_000 && at <= now).length;
}

describe("home page on the snapshot data", () => {
  let t: TestApp;
  let html: string;
  beforeAll(async () => {
    t = await createTestApp({ databasePath: inject("snapshotDatabase"), now: () => new Date(SNAPSHOT_NOW) });
    html = textOf((await request(t.app).get("/").expect(200)).text);
  });
  afterAll(() => t?.close());

  it("counts what the database and the source files say", async () => {
    // Every published CVE any source names, with or without a CVE JSON 5 record.
    const tracked = (await summarizeSnapshot()).filter((summary) => summary.state === "PUBLISHED").length;
    expect(figure(html, "CVEs tracked")).toContain(`<strong>${formatCount(tracked)}</strong>`);

    const now = Date.parse(SNAPSHOT_NOW);
    const weekAgo = now - 7 * 86_400_000;
    let week = 0;
    for await (const record of rawCveRecords()) {
      const publishedAt = Date.parse(utcTimestamp(record.cveMetadata.datePublished) ?? "");
      if (record.cveMetadata.state === "PUBLISHED" && publishedAt >= weekAgo && publishedAt <= now) week++;
    }
    expect(week).toBeGreaterThan(0);
    expect(figure(html, "Published in the last 7 days")).toContain(`<strong>${formatCount(week)}</strong>`);

    expect(figure(html, "CISA KEV entries")).toContain(`<strong>${formatCount(kevCatalogue().length)}</strong>`);
    const indicators = await t.database.db
      .selectFrom("indicators")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirstOrThrow();
    expect(figure(html, "Indicators seen in the last 24 h")).toContain(`of ${formatCount(Number(indicators.n))} tracked`);
    const seen24h = await seenInLastDay(now);
    expect(seen24h).toBeGreaterThan(0);
    expect(figure(html, "Indicators seen in the last 24 h")).toContain(`<strong>${formatCount(seen24h)}</strong>`);
    expect(html).not.toContain("not imported yet</span></dd>");
  });

  it("charts the indicators per day and type that the indicators table holds, over the 90 days up to the newest", async () => {
    const home = (await request(t.app).get(`/_payload.json?${t.buildId}`).expect(200)).body.data as HomeData;
    const { days, byType } = home.indicatorChart;
    expect(days).toHaveLength(90);
    const newest = await t.database.db
      .selectFrom("indicators")
      .select((eb) => eb.fn.max("last_seen").as("d"))
      .executeTakeFirstOrThrow();
    expect(days.at(-1)).toBe(newest.d!.slice(0, 10));
    // The same aggregate over every indicator, which the chart no longer reads.
    const rows = await t.database.db
      .selectFrom("indicators")
      .select([sql<string>`substr(last_seen, 1, 10)`.as("day"), "type"])
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("last_seen", ">=", days[0]!)
      .groupBy(["day", "type"])
      .execute();
    const expected: Record<string, number[]> = {};
    for (const row of rows) (expected[row.type] ??= days.map(() => 0))[days.indexOf(row.day)] = Number(row.n);
    expect(rows.length).toBeGreaterThan(90);
    expect(byType).toEqual(expected);
  });

  it("lists the top of the CVE radar and the newest KEV additions, newest first", async () => {
    const top = (await request(t.app).get("/api/v1/cves?per_page=1").expect(200)).body.rows[0].id as string;
    const topList = html.slice(html.indexOf('id="top-cves"'));
    expect(topList.indexOf(`>${top}<`)).toBeGreaterThan(0);
    const newestKev = [...kevCatalogue()].sort((a, b) => b.dateAdded.localeCompare(a.dateAdded) || a.cveID.localeCompare(b.cveID))[0]!;
    const kevList = html.slice(html.indexOf('id="newest-kev"'));
    expect(kevList).toContain(`>${newestKev.cveID}<`);
    expect(kevList).toContain(`added ${newestKev.dateAdded}`);
  });

  it("warns that feeds are stale on the snapshot's clock", () => {
    expect(html).toMatch(/role="alert">\d+ sources? (is|are) stale or failing: [^<]*abuse\.ch Feodo Tracker/);
  });

  it("dates lists whose records carry no date by the publisher's own date, and judges their freshness by it", () => {
    const row = (title: string) => html.slice(html.indexOf(`<td data-label="Source">${title}</td>`)).split("</tr>")[0]!;
    // The hash list's header says "Last updated: 2023-11-23 04:18:36 UTC": on this clock, long past its 48 h.
    expect(row("abuse.ch MalwareBazaar")).toContain('<span class="pill pill--warn">stale</span>');
    expect(row("abuse.ch MalwareBazaar")).toContain('undated records, list of <time class="nowrap" dateTime="2023-11-23">2023-11-23</time>');
    expect(html).toMatch(/role="alert">\d+ sources? (is|are) stale or failing: [^<]*abuse\.ch MalwareBazaar/);
    // CWE 4.15 is dated 2024-07-16: within its 400 days.
    expect(row("MITRE CWE catalogue")).toContain('<span class="pill pill--ok">fresh</span>');
    expect(row("MITRE CWE catalogue")).toContain('undated records, list of <time class="nowrap" dateTime="2024-07-16">2024-07-16</time>');
    expect(row("CISA Known Exploited Vulnerabilities")).toContain('newest record <time class="nowrap" dateTime="2025-08-25">2025-08-25</time>');
    // signature-base's lists say nothing of their date: judged by the last import.
    expect(row("signature-base IOCs (Florian Roth)")).toContain('<td data-label="Data as of">undated records</td>');
    expect(row("NVD CVE API 2.0")).toContain('<td data-label="Data as of">—</td>');
  });
});

describe("home page before the feeds are imported", () => {
  it("an empty database explains what is happening instead of showing zeros", async () => {
    const t = await createTestApp();
    try {
      const html = textOf((await request(t.app).get("/").expect(200)).text);
      expect(html).toContain("No data has been imported yet");
      expect(html).not.toContain("CVEs tracked");
    } finally {
      await t.close();
    }
  });

  it("with only CISA KEV imported, the KEV figures show, every KEV entry is a tracked CVE, and the indicator figures say they are not imported yet", async () => {
    // A fresh database (SQLite file or PostgreSQL database) that only CISA KEV is imported into.
    const t = await createTestApp();
    try {
      const outcome = await syncSource("cisa-kev", { store: t.store, config: loadPipelineConfig({}), logger: pino({ level: "silent" }), mirrorDir: DATA_DIR });
      expect(outcome.status).toBe("ok");
      const html = textOf((await request(t.app).get("/").expect(200)).text);
      expect(html).toContain("Some feeds have not been imported yet");
      expect(html).toContain("No data yet from: indicator feeds.");
      expect(figure(html, "CISA KEV entries")).toContain(`<strong>${formatCount(kevCatalogue().length)}</strong>`);
      // A CVE exists as soon as any source knows it (issue 10): KEV's ids are CVEs before their records arrive.
      expect(figure(html, "CVEs tracked")).toBe(`<strong>${formatCount(kevCatalogue().length)}</strong>`);
      expect(figure(html, "Indicators seen in the last 24 h")).toBe('<span class="muted">not imported yet</span>');
    } finally {
      await t.close();
    }
  });
});
