import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { aggregateCveStats, statsFromTable } from "../../../server/cve/stats";
import { loadPipelineConfig } from "../../../server/pipeline/config";
import { priorityOf } from "../../../server/pipeline/derived";
import { syncSource } from "../../../server/pipeline/sync";
import { createTestDatabase, recordingLogger, snapshot, type TestDatabase } from "../../helpers/feed-server";

const NOW = new Date("2024-06-01T00:00:00Z");
const KEV_JSON = snapshot("cisa-kev", "known_exploited_vulnerabilities.json");
/** A CVE in KEV (its row exists before EPSS is imported) and two that only EPSS names. */
const KEV_CVE: string = JSON.parse(readFileSync(KEV_JSON, "utf8")).vulnerabilities[0].cveID;
const EPSS_ONLY = "CVE-2023-52001";
const EPSS_ONLY_2 = "CVE-2023-52002";

let db: TestDatabase;

beforeEach(async () => {
  db = await createTestDatabase();
});

afterEach(async () => {
  await db.dispose();
});

/** One day of FIRST's CSV, gzipped as published. */
async function epssFile(name: string, day: string, scores: Array<[cve: string, epss: number, percentile: number]>): Promise<string> {
  const lines = [`#model_version:v2025.03.14,score_date:${day}T00:00:00+0000`, "cve,epss,percentile", ...scores.map((s) => s.join(","))];
  const path = join(db.dir, name);
  await writeFile(path, gzipSync(`${lines.join("\n")}\n`));
  return path;
}

function sync(name: string, env: Record<string, string>) {
  return syncSource(name, { store: db.store, config: loadPipelineConfig(env), logger: recordingLogger().logger, now: () => NOW });
}

async function cve(id: string) {
  return db.db.selectFrom("cves").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

/** The priority the CVE page computes from the row's own evidence (the one definition, server/cve/priority.ts). */
async function expectedPriority(id: string): Promise<number> {
  return priorityOf(await cve(id), NOW);
}

describe("EPSS import", () => {
  it("writes new CVEs whole, rescores known ones, and on a later file touches only the scores that moved", async () => {
    await sync("cisa-kev", { SOURCE_CISA_KEV_URL: KEV_JSON });

    const first = await epssFile("day1.csv.gz", "2024-05-20", [
      [KEV_CVE, 0.5, 0.9],
      [EPSS_ONLY, 0.2, 0.5],
      [EPSS_ONLY_2, 0.1, 0.3],
    ]);
    expect((await sync("epss", { SOURCE_EPSS_URL: first })).counts).toMatchObject({ added: 3, updated: 0, unchanged: 0 });
    expect(await cve(EPSS_ONLY)).toMatchObject({
      state: "PUBLISHED",
      has_record: 0,
      epss: 0.2,
      epss_percentile: 0.5,
      epss_date: "2024-05-20",
      priority_score: 5,
    });
    expect(await cve(KEV_CVE)).toMatchObject({ kev: 1, epss: 0.5, epss_7d_ago: null });
    expect((await cve(KEV_CVE)).priority_score).toBe(await expectedPriority(KEV_CVE));

    // Eight days later: the day-1 scores become the week-old ones.
    const second = await epssFile("day2.csv.gz", "2024-05-28", [
      [KEV_CVE, 0.6, 0.92],
      [EPSS_ONLY, 0.2, 0.5],
      [EPSS_ONLY_2, 0.1, 0.3],
    ]);
    expect((await sync("epss", { SOURCE_EPSS_URL: second })).counts).toMatchObject({ added: 3, updated: 0 });
    expect(await cve(KEV_CVE)).toMatchObject({ epss: 0.6, epss_percentile: 0.92, epss_date: "2024-05-28", epss_7d_ago: 0.5 });
    expect((await cve(KEV_CVE)).priority_score).toBe(await expectedPriority(KEV_CVE));
    expect(await cve(EPSS_ONLY)).toMatchObject({ epss: 0.2, epss_date: "2024-05-28", epss_7d_ago: 0.2, priority_score: 5 });

    // The same day restated with one score corrected: only that CVE changes.
    const corrected = await epssFile("day2-fixed.csv.gz", "2024-05-28", [
      [KEV_CVE, 0.6, 0.92],
      [EPSS_ONLY, 0.4, 0.7],
      [EPSS_ONLY_2, 0.1, 0.3],
    ]);
    expect((await sync("epss", { SOURCE_EPSS_URL: corrected })).counts).toMatchObject({ added: 0, updated: 1, unchanged: 2 });
    expect(await cve(EPSS_ONLY)).toMatchObject({ epss: 0.4, epss_percentile: 0.7, epss_7d_ago: 0.2, priority_score: 10 });
    expect(await cve(EPSS_ONLY_2)).toMatchObject({ epss: 0.1, priority_score: 2.5 });
    expect((await cve(KEV_CVE)).priority_score).toBe(await expectedPriority(KEV_CVE));
  });

  it("counts the CVEs it is first to name in the statistics table as a recount of every CVE would", async () => {
    await sync("cisa-kev", { SOURCE_CISA_KEV_URL: KEV_JSON });
    const charts = async () => {
      for (const params of [{}, { state: "all" as const }]) {
        const [fromTable, aggregated] = await Promise.all([statsFromTable(db.db, params), aggregateCveStats(db.db, params)]);
        expect(fromTable).toEqual(aggregated);
      }
      return db.db.selectFrom("cve_stats").select("count").where("vendor", "is", null).where("day", "=", "").where("kev", "=", 0).execute();
    };
    // The first EPSS-only CVEs start their row of the table; later ones add to it.
    await sync("epss", {
      SOURCE_EPSS_URL: await epssFile("day1.csv.gz", "2024-05-20", [
        [KEV_CVE, 0.5, 0.9],
        [EPSS_ONLY, 0.2, 0.5],
      ]),
    });
    expect(await charts()).toEqual([{ count: 1 }]);
    await sync("epss", {
      SOURCE_EPSS_URL: await epssFile("day2.csv.gz", "2024-05-21", [
        [EPSS_ONLY, 0.2, 0.5],
        [EPSS_ONLY_2, 0.1, 0.3],
      ]),
    });
    expect(await charts()).toEqual([{ count: 2 }]);
  });
});
