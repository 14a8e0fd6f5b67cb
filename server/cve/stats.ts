import { sql, type Kysely } from "kysely";
import type { CveListParams } from "../../shared/cve/list-params";
import type { CveChartStats } from "../../shared/cve/list-types";
import type { Database } from "../db/schema";
import { dialectOf } from "../db/dialect";
import { cveFilter } from "./filters";
import type { Scan } from "../db/scan";
import { statsTableAnswers, statsTableFilter } from "./stats-table";

const DAY_MS = 86_400_000;
/** Without a published-date filter, the per-day chart shows the last 90 days of data. */
export const PER_DAY_DEFAULT_DAYS = 90;
const PER_DAY_MAX_DAYS = 366;
const TOP_VENDORS = 10;
export const SEVERITY_ORDER = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "NONE"] as const;

function dayList(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS) {
    days.push(new Date(t).toISOString().slice(0, 10));
  }
  return days;
}

function shiftDay(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

interface DayCount {
  day: string;
  severity: string;
  count: number | string | bigint;
}
interface SeverityCount {
  severity: string;
  count: number | string | bigint;
}
interface VendorCount {
  vendor: string | null;
  count: number | string | bigint;
}

/** The four aggregates behind the charts, for one filter. */
interface StatsSource {
  /** The newest matching publication time (or day). */
  newest(params: CveListParams): Promise<string | null>;
  perDay(params: CveListParams): Promise<DayCount[]>;
  severities(params: CveListParams): Promise<SeverityCount[]>;
  topVendors(params: CveListParams): Promise<VendorCount[]>;
}

/** Sums over the statistics table, for the filters it answers (server/cve/stats-table.ts). */
function statsTableSource(db: Kysely<Database>): StatsSource {
  const filtered = (params: CveListParams) => db.selectFrom("cve_stats").where((eb) => statsTableFilter(eb, params));
  const total = sql<number>`sum(cve_stats.count)`;
  return {
    async newest(params) {
      const row = await filtered(params)
        .where("cve_stats.day", "<>", "")
        .select((eb) => eb.fn.max("cve_stats.day").as("newest"))
        .executeTakeFirst();
      return row?.newest ?? null;
    },
    perDay: (params) =>
      filtered(params)
        .select(["cve_stats.day", "cve_stats.severity", total.as("count")])
        .groupBy(["cve_stats.day", "cve_stats.severity"])
        .execute(),
    severities: (params) =>
      filtered(params)
        .select(["cve_stats.severity", total.as("count")])
        .groupBy("cve_stats.severity")
        .execute(),
    topVendors: (params) =>
      filtered(params)
        .where("cve_stats.vendor", "is not", null)
        .select(["cve_stats.vendor", total.as("count")])
        .groupBy("cve_stats.vendor")
        .orderBy("count", "desc")
        .orderBy("cve_stats.vendor")
        .limit(TOP_VENDORS)
        .execute(),
  };
}

/**
 * Aggregates over the matching CVEs themselves. `scan` is the list's choice for a one-row page
 * (server/db/scan.ts): with many matches ("walk") the newest is found by walking the publication
 * index down to the first match, where the other filters' indexes would read every match.
 */
function cveTableSource(db: Kysely<Database>, scan: Scan): StatsSource {
  const dialect = dialectOf(db);
  const severityLabel = sql<string>`coalesce(cves.cvss_severity, 'NONE')`;
  const filtered = (params: CveListParams, walkAlong?: "cves.date_published") => db.selectFrom("cves").where((eb) => cveFilter(eb, params, dialect, walkAlong));
  return {
    async newest(params) {
      const row = await filtered(params, scan === "walk" ? "cves.date_published" : undefined)
        .select((eb) => eb.fn.max("cves.date_published").as("newest"))
        .executeTakeFirst();
      return row?.newest ?? null;
    },
    perDay: (params) =>
      filtered(params)
        .select([sql<string>`substr(cves.date_published, 1, 10)`.as("day"), severityLabel.as("severity")])
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .groupBy(["day", "severity"])
        .execute(),
    // Grouped by the label, not the column: grouping by the column let SQLite walk the severity
    // index through every CVE to skip a sort of five groups, instead of using a selective filter's index.
    severities: (params) =>
      filtered(params)
        .select([severityLabel.as("severity")])
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .groupBy(severityLabel)
        .execute(),
    topVendors: (params) =>
      filtered(params)
        .where("cves.vendor", "is not", null)
        .select(["cves.vendor"])
        .select((eb) => eb.fn.countAll<number>().as("count"))
        .groupBy("cves.vendor")
        .orderBy("count", "desc")
        .orderBy("cves.vendor")
        .limit(TOP_VENDORS)
        .execute(),
  };
}

/** The per-day window: the filter's published range, else the 90 days up to the newest match. */
async function perDayWindow(source: StatsSource, params: CveListParams): Promise<{ from: string; to: string } | null> {
  let to = params.published_to;
  if (!to) {
    const newest = await source.newest(params);
    if (!newest) return null;
    to = newest.slice(0, 10);
  }
  const earliest = shiftDay(to, -(PER_DAY_MAX_DAYS - 1));
  const wanted = params.published_from ?? shiftDay(to, -(PER_DAY_DEFAULT_DAYS - 1));
  const from = wanted < earliest ? earliest : wanted;
  return from <= to ? { from, to } : null;
}

/**
 * Statistics behind the charts above the list; they follow the list's filter. Filters on state,
 * severity, KEV, exploits and the publication range are answered by the statistics table; the
 * others aggregate their matches, found as `scan` says.
 */
export function queryCveStats(db: Kysely<Database>, params: CveListParams, scan: Scan = "gather"): Promise<CveChartStats> {
  return statsTableAnswers(params) ? statsFromTable(db, params) : aggregateCveStats(db, params, scan);
}

/** The charts from the statistics table; only for the filters it answers (statsTableAnswers). */
export function statsFromTable(db: Kysely<Database>, params: CveListParams): Promise<CveChartStats> {
  return chartStats(statsTableSource(db), params);
}

/** The charts aggregated over the matching CVEs themselves. */
export function aggregateCveStats(db: Kysely<Database>, params: CveListParams, scan: Scan = "gather"): Promise<CveChartStats> {
  return chartStats(cveTableSource(db, scan), params);
}

async function chartStats(source: StatsSource, params: CveListParams): Promise<CveChartStats> {
  const window = await perDayWindow(source, params);
  const [perDayRows, severityRows, vendorRows] = await Promise.all([
    window ? source.perDay({ ...params, published_from: window.from, published_to: window.to }) : Promise.resolve([]),
    source.severities(params),
    source.topVendors(params),
  ]);

  const days = window ? dayList(window.from, window.to) : [];
  const dayIndex = new Map(days.map((day, index) => [day, index]));
  const bySeverity: Record<string, number[]> = Object.fromEntries(SEVERITY_ORDER.map((s) => [s, days.map(() => 0)]));
  for (const row of perDayRows) {
    const index = dayIndex.get(row.day);
    const series = bySeverity[row.severity];
    if (index !== undefined && series) series[index] = Number(row.count);
  }
  const severityCounts = new Map<string, number>();
  for (const row of severityRows) {
    const severity = row.severity ?? "NONE";
    severityCounts.set(severity, (severityCounts.get(severity) ?? 0) + Number(row.count));
  }
  return {
    perDay: { days, bySeverity },
    severity: SEVERITY_ORDER.map((severity) => ({ severity, count: severityCounts.get(severity) ?? 0 })),
    topVendors: vendorRows.map((row) => ({ vendor: row.vendor ?? "", count: Number(row.count) })),
  };
}
