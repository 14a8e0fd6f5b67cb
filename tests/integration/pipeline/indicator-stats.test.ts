import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadPipelineConfig } from "../../../server/pipeline/config";
import { syncSource } from "../../../server/pipeline/sync";
import { createTestDatabase, recordingLogger, type TestDatabase } from "../../helpers/feed-server";

/**
 * Small imports merge in place and move only the touched indicators' counts
 * in `indicator_stats` (server/ioc/stats-table.ts): after each, the table
 * must equal the aggregate over every indicator, as a full refresh makes it.
 * The files make an indicator change key (threat type, then day) between
 * imports, and add new ones beside it.
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

async function importFile(source: "signature-base" | "tweetfeed", path: string, day: string) {
  const variable = source === "signature-base" ? "SOURCE_SIGNATURE_BASE_URL" : "SOURCE_TWEETFEED_URL";
  return syncSource(source, {
    store: db.store,
    config: loadPipelineConfig({ [variable]: path }),
    logger,
    mirrorDir: null,
    now: () => new Date(`${day}T12:00:00Z`),
  });
}

async function statsAgreeWithIndicators(): Promise<number> {
  const { rows: expected } = await sql<object>`
    select coalesce(substr(last_seen, 1, 10), '') as day, type, threat_type, malware_family, count(*) as count
    from indicators group by day, type, threat_type, malware_family order by 1, 2, 3, 4`.execute(db.db);
  const { rows: stored } = await sql<object>`
    select day, type, threat_type, malware_family, count from indicator_stats order by 1, 2, 3, 4`.execute(db.db);
  expect(stored.map((row) => ({ ...row, count: Number((row as { count: unknown }).count) }))).toEqual(
    expected.map((row) => ({ ...row, count: Number((row as { count: unknown }).count) })),
  );
  return expected.length;
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
  });
});
