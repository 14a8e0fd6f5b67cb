import { sql, type Kysely } from "kysely";
import { defang } from "../../shared/ioc/defang";
import type { IndicatorType } from "../../shared/ioc/types";
import type { HomeData } from "../../shared/types/home";
import { querySourceStatuses } from "../sources/status";
import type { CveService } from "../cve/service";
import type { Database } from "../db/schema";
import type { VersionedCache } from "../db/versioned-cache";
import type { PipelineConfig } from "../pipeline/config";

const DAY_MS = 86_400_000;
const CHART_DAYS = 90;
const LIST_SIZE = 10;

const daysAgo = (now: Date, days: number) => new Date(now.getTime() - days * DAY_MS).toISOString();
const count = (row: { n: number | string | bigint } | undefined) => Number(row?.n ?? 0);

/**
 * Indicators per day (of the publishers' last-seen times) by type over the 90
 * days up to the newest, summed from `indicator_stats` (server/ioc/stats-table.ts),
 * which every import keeps equal to the same aggregate over `indicators`: the
 * first view after an import (and each hour's) reads a few thousand of its
 * rows instead of 90 days of indicators.
 */
async function indicatorsPerDay(db: Kysely<Database>): Promise<HomeData["indicatorChart"]> {
  const newest = await db
    .selectFrom("indicators")
    .select((eb) => eb.fn.max("last_seen").as("d"))
    .executeTakeFirst();
  if (!newest?.d) return { days: [], byType: {} };
  const end = Date.parse(`${newest.d.slice(0, 10)}T00:00:00Z`);
  const days = Array.from({ length: CHART_DAYS }, (_, i) => new Date(end - (CHART_DAYS - 1 - i) * DAY_MS).toISOString().slice(0, 10));
  const rows = await db
    .selectFrom("indicator_stats")
    .select(["day", "type"])
    .select((eb) => eb.fn.sum<number>("count").as("n"))
    .where("day", ">=", days[0]!)
    .groupBy(["day", "type"])
    .execute();
  const index = new Map(days.map((day, i) => [day, i]));
  const byType: Record<string, number[]> = {};
  for (const row of rows) {
    const i = index.get(row.day);
    if (i === undefined) continue;
    byType[row.type] ??= days.map(() => 0);
    byType[row.type]![i] = Number(row.n);
  }
  return { days, byType };
}

export interface HomeDependencies {
  db: Kysely<Database>;
  cves: CveService;
  cached: VersionedCache;
  pipelineConfig?: PipelineConfig;
}

/**
 * The home page's overview. Counts over windows depend on the clock, so they
 * are cached per hour; lists and charts only change with an import.
 */
export async function queryHomeOverview({ db, cves, cached, pipelineConfig }: HomeDependencies, now: Date): Promise<HomeData> {
  const hour = now.toISOString().slice(0, 13);
  // Published records only, and none dated after the clock (a pinned clock, or a CNA's clock ahead of ours).
  const publishedSince = (since: string) =>
    db
      .selectFrom("cves")
      .where("state", "=", "PUBLISHED")
      .where("date_published", ">=", since)
      .where("date_published", "<=", now.toISOString())
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .executeTakeFirst();
  const [figures, top, newestKev, newestIndicators, cveStats, indicatorChart, sources] = await Promise.all([
    cached(`home-figures|${hour}`, async () => {
      // The totals are sums over the statistics tables, which every import keeps equal to a count of every row.
      const [tracked, day, week, newest, kev, kev30, indicators, seen24h, newestSeen] = await Promise.all([
        db
          .selectFrom("cve_stats")
          .where("state", "=", "PUBLISHED")
          .select(sql<number>`coalesce(sum(count), 0)`.as("n"))
          .executeTakeFirst(),
        publishedSince(daysAgo(now, 1)),
        publishedSince(daysAgo(now, 7)),
        db
          .selectFrom("cves")
          .select((eb) => eb.fn.max("date_published").as("d"))
          .executeTakeFirst(),
        db
          .selectFrom("kev_entries")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirst(),
        db
          .selectFrom("kev_entries")
          .where("date_added", ">=", daysAgo(now, 30).slice(0, 10))
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirst(),
        db
          .selectFrom("indicator_stats")
          .select(sql<number>`coalesce(sum(count), 0)`.as("n"))
          .executeTakeFirst(),
        // The publishers' times only: a listing no feed dated was not "seen" at any time.
        db
          .selectFrom("indicators")
          .where("last_seen", ">=", daysAgo(now, 1))
          .where("last_seen", "<=", now.toISOString())
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirst(),
        db
          .selectFrom("indicators")
          .select((eb) => eb.fn.max("last_seen").as("d"))
          .executeTakeFirst(),
      ]);
      return {
        cvesTracked: count(tracked),
        published24h: count(day),
        published7d: count(week),
        newestPublished: newest?.d ?? null,
        kevEntries: count(kev),
        kevAdded30d: count(kev30),
        indicatorsTracked: count(indicators),
        indicatorsSeen24h: count(seen24h),
        newestIndicatorSeen: newestSeen?.d ?? null,
      };
    }),
    cves.list({ per_page: LIST_SIZE }),
    cached("home-kev", () =>
      db
        .selectFrom("kev_entries")
        .select(["cve_id", "vulnerability_name", "vendor_project", "product", "date_added", "due_date"])
        .orderBy("date_added", "desc")
        .orderBy("cve_id")
        .limit(LIST_SIZE)
        .execute(),
    ),
    cached("home-indicators", () =>
      db
        .selectFrom("indicators")
        .select(["type", "value", "last_seen", "malware_family", "threat_type"])
        .where("last_seen", "is not", null)
        .orderBy(sql`last_seen desc nulls last`)
        .orderBy("id")
        .limit(LIST_SIZE)
        .execute(),
    ),
    cves.stats({}),
    cached("home-indicator-chart", () => indicatorsPerDay(db)),
    querySourceStatuses(db, now, pipelineConfig),
  ]);
  return {
    generatedAt: now.toISOString(),
    figures,
    topCves: top.rows,
    newestKev: newestKev.map((k) => ({
      id: k.cve_id,
      name: k.vulnerability_name,
      vendor: k.vendor_project,
      product: k.product,
      dateAdded: k.date_added,
      dueDate: k.due_date,
    })),
    newestIndicators: newestIndicators.map((i) => ({
      type: i.type,
      value: i.value,
      display: defang({ type: i.type as IndicatorType, value: i.value }),
      seenAt: i.last_seen ?? "",
      malwareFamily: i.malware_family,
      threatType: i.threat_type,
    })),
    cveChart: cveStats.perDay,
    indicatorChart,
    sources,
  };
}
