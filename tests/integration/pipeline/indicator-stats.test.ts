import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPipelineConfig } from "../../../server/pipeline/config";
import { syncSource } from "../../../server/pipeline/sync";
import { createTestDatabase, recordingLogger, type TestDatabase } from "../../helpers/feed-server";
import { expectIndicatorStatsAgree } from "../../helpers/indicator-stats";

/**
 * Small imports merge in place and move only the touched indicators' counts
 * in `indicator_stats` and `indicator_source_stats`
 * (server/ioc/stats-table.ts): after each, both must equal the aggregate over
 * every indicator, as a full refresh makes them. The files make an indicator
 * change key (threat type, then day) and gain a second source between
 * imports, add new ones beside it, and delist one.
 */
const dir = mkdtempSync(join(tmpdir(), "threat-radar-indicator-stats-"));
const { logger } = recordingLogger();
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, lines: string[]): string {
  const folder = mkdtempSync(join(dir, "run-"));
  mkdirSync(folder, { recursive: true });
  const path = join(folder, name);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

async function importFile(source: "feodotracker" | "signature-base" | "tweetfeed", path: string, day: string) {
  const variable = `SOURCE_${source.toUpperCase().replace("-", "_")}_URL`;
  return syncSource(source, {
    store: db.store,
    config: loadPipelineConfig({ [variable]: path }),
    logger,
    mirrorDir: null,
    now: () => new Date(`${day}T12:00:00Z`),
  });
}

async function statsAgreeWithIndicators(): Promise<number> {
  const { rows, sourceRows } = await expectIndicatorStatsAgree(db.db);
  expect(sourceRows).toBeGreaterThan(0);
  return rows;
}

async function domainsBySource(): Promise<Record<string, number>> {
  const { rows } = await sql<{ source: string; n: number }>`
    select source, sum(count) as n from indicator_source_stats where type = 'domain' group by source order by source`.execute(db.db);
  return Object.fromEntries(rows.map((row) => [row.source, Number(row.n)]));
}

const tweet = (at: string, type: string, value: string, tags: string, id: number) =>
  `${at},reporter,${type},${value},${tags},https://x.com/reporter/status/${id}`;

describe("the indicator statistics after merges in place", () => {
  it("agree with the indicators after each import, as indicators are added and change threat type and day", async () => {
    const first = await importFile("signature-base", file("c2-iocs.txt", ["evil-stats-test.com", "45.13.7.201", "other-stats-test.net"]), "2026-08-01");
    expect(first).toMatchObject({ status: "ok", counts: { added: 3 } });
    expect(await statsAgreeWithIndicators()).toBeGreaterThan(0);

    // evil-stats-test.com gains a dated sighting with another threat type; a new URL beside it.
    const second = await importFile(
      "tweetfeed",
      file("month.csv", [
        tweet("2026-08-02 10:00:00", "domain", "evil-stats-test.com", "#phishing", 1),
        tweet("2026-08-02 10:05:00", "url", "https://evil-stats-test.com/login", "#phishing", 2),
      ]),
      "2026-08-02",
    );
    expect(second).toMatchObject({ status: "ok", counts: { added: 2 } });
    await statsAgreeWithIndicators();
    // The domain both sources list counts once under each; the URL only under TweetFeed.
    expect(await domainsBySource()).toEqual({ "signature-base": 2, tweetfeed: 1 });

    // Seen again three days later: its day moves, the other domain stays where it was.
    const third = await importFile(
      "tweetfeed",
      file("month.csv", [tweet("2026-08-05 09:00:00", "domain", "evil-stats-test.com", "#phishing", 3)]),
      "2026-08-05",
    );
    expect(third.status).toBe("ok");
    expect(third.counts.added + third.counts.updated).toBeGreaterThan(0);
    await statsAgreeWithIndicators();
    const { rows } = await sql<{ day: string }>`select day from indicator_stats where type = 'domain' and day <> '' order by day`.execute(db.db);
    expect(rows.map((row) => row.day)).toEqual(["2026-08-05"]);

    // Signature-base no longer lists the other domain: delisted, it is still one of the source's.
    const fourth = await importFile("signature-base", file("c2-iocs.txt", ["evil-stats-test.com", "45.13.7.201"]), "2026-08-06");
    expect(fourth).toMatchObject({ status: "ok", counts: { removed: 1 } });
    await statsAgreeWithIndicators();
    expect(await domainsBySource()).toEqual({ "signature-base": 2, tweetfeed: 1 });
  });

  it("count an indicator under a source from its first sighting there, beside others of the same key already counted under it", async () => {
    // Two C2 servers of one family, last online the same day: one key.
    const feodo = ["first_seen_utc,dst_ip,dst_port,c2_status,last_online,malware"].concat(
      ["45.13.7.211", "45.13.7.212"].map((ip) => `2026-08-01 07:00:00,${ip},443,online,2026-08-09,QakBot`),
    );
    expect((await importFile("feodotracker", file("ipblocklist.csv", feodo), "2026-08-09")).status).toBe("ok");
    await statsAgreeWithIndicators();
    // Signature-base names one, then both: an undated sighting leaves their key as it is, and the
    // second gains the source where the first already counts under it.
    expect((await importFile("signature-base", file("c2-iocs.txt", ["45.13.7.211"]), "2026-08-10")).status).toBe("ok");
    await statsAgreeWithIndicators();
    const both = await importFile("signature-base", file("c2-iocs.txt", ["45.13.7.211", "45.13.7.212"]), "2026-08-11");
    expect(both).toMatchObject({ status: "ok", counts: { added: 1 } });
    await statsAgreeWithIndicators();
    const { rows } = await sql<{ n: number }>`
      select sum(count) as n from indicator_source_stats
      where source = 'signature-base' and type = 'ipv4' and malware_family = 'QakBot' and day = '2026-08-09'`.execute(db.db);
    expect(Number(rows[0]?.n)).toBe(2);
  });
});
