import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { countIndicators } from "../../../server/ioc/list";
import { createIocService } from "../../../server/ioc/service";
import { aggregateIocStats, queryIocStats, statsFromTable } from "../../../server/ioc/stats";
import { statsTableAnswers } from "../../../server/ioc/stats-table";
import { extractIndicators } from "../../../shared/ioc/extract";
import type { IocListParams } from "../../../shared/ioc-radar/list-params";
import { createTestApp, type TestApp } from "../../helpers/test-app";
import { SNAPSHOT_NOW } from "../setup/snapshot-database";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ databasePath: inject("snapshotDatabase"), now: () => new Date(SNAPSHOT_NOW) });
});
afterAll(() => t?.close());

const now = new Date(SNAPSHOT_NOW);

/** The most common non-null value of a column, so each filter matches many indicators. */
async function mostCommon(column: "threat_type" | "malware_family"): Promise<string> {
  const { rows } = await sql<{ value: string }>`
    select ${sql.ref(column)} as value from indicators where ${sql.ref(column)} is not null group by 1 order by count(*) desc limit 1`.execute(t.database.db);
  return rows[0]!.value;
}

describe("the indicator statistics table", () => {
  it("gives the unfiltered list and its source, type, threat-type and family filters the same charts and counts as the indicators themselves", async () => {
    const db = t.database.db;
    const service = createIocService(
      db,
      () => "test",
      async (text, limit) => extractIndicators(text, limit),
    );
    const threat = await mostCommon("threat_type");
    const family = await mostCommon("malware_family");
    const views: IocListParams[] = [
      {},
      { type: ["url"] },
      { type: ["ipv4", "domain"] },
      { threat_type: threat },
      { malware: family.toLowerCase() },
      { malware: family.toLowerCase(), type: ["url", "domain"] },
      { malware: "no-such-family" },
      // From indicator_source_stats: an indicator of several sources counts under each.
      { source: "tweetfeed" },
      { source: "tweetfeed", type: ["url"] },
      { source: "tweetfeed", threat_type: threat },
      { source: "signature-base", type: ["domain", "ipv4"] },
      { source: "feodotracker", malware: family.toLowerCase() },
      { source: "no-such-source" },
    ];
    for (const params of views) {
      expect(statsTableAnswers(params)).toBe(true);
      const context = await service.filterContext(params);
      const [fromTable, aggregated] = await Promise.all([statsFromTable(db, params, context), aggregateIocStats(db, params, now, context)]);
      expect(fromTable).toEqual(aggregated);
      const { n } = await db
        .selectFrom("indicators")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where((eb) => (params.type ? eb("type", "in", params.type) : eb.lit(true)))
        .where((eb) => (params.threat_type ? eb("threat_type", "=", params.threat_type) : eb.lit(true)))
        .where((eb) => (params.malware ? eb(sql`lower(malware_family)`, "in", [...context.malwareKeys, ""]) : eb.lit(true)))
        .where((eb) =>
          params.source
            ? eb.exists(
                eb
                  .selectFrom("indicator_sightings as st")
                  .select("st.indicator_id")
                  .whereRef("st.indicator_id", "=", "indicators.id")
                  .where("st.source", "=", params.source),
              )
            : eb.lit(true),
        )
        .executeTakeFirstOrThrow();
      expect(await countIndicators(db, params, now, context)).toBe(Number(n));
    }
    // The data set has charts to compare: a per-day series and families, and a source's share of them.
    expect(await countIndicators(db, { source: "tweetfeed" }, now, await service.filterContext({ source: "tweetfeed" }))).toBeGreaterThan(1000);
    const all = await queryIocStats(db, {}, now, await service.filterContext({}));
    expect(all.perDay.days.length).toBeGreaterThan(0);
    expect(all.topMalware.length).toBeGreaterThan(0);
  });

  it("leaves the filters it cannot answer (free text, tag, host, domain, seen within) to the indicators", () => {
    for (const params of [
      { q: "login" },
      { tag: "x" },
      { source: "tweetfeed", tag: "x" },
      { host: "a.example" },
      { domain: "example.com" },
      { seen: "7d" },
    ] as IocListParams[]) {
      expect(statsTableAnswers(params)).toBe(false);
    }
  });
});
