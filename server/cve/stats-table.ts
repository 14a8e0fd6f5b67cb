import { sql, type Expression, type ExpressionBuilder, type Kysely, type RawBuilder, type SqlBool } from "kysely";
import type { CveListParams } from "../../shared/cve/list-params";
import type { Database } from "../db/schema";
import { addSignedCounts, countedKey, countedKeyGroup, keyColumns, refillCounts, type CountsTable } from "../db/signed-counts";

/**
 * `cve_stats`: how many CVEs share each state, KEV flag, exploited flag,
 * severity, vendor and publication day ('' when undated), about 30,000 rows
 * for the 361,254 CVEs of the full import. The chart statistics of the
 * unfiltered list, and of lists filtered only by these columns, are sums over
 * it: milliseconds, where the same aggregates over `cves` read up to every
 * CVE (seconds cold on the full import). Every import that changes `cves`
 * refreshes it in its own transaction (server/pipeline/derived.ts), so it
 * always agrees with them.
 */
export async function refreshCveStats(db: Kysely<Database>): Promise<void> {
  await refillCounts(db, CVE_STATS, sql.table("cves"));
}

/**
 * The table's key, each column with how a CVE's row computes it: the one
 * description the fill, the counted changes and the bare CVEs' row are all
 * built from.
 */
const CVE_STATS: CountsTable = {
  table: "cve_stats",
  key: [
    { column: "state" },
    { column: "kev" },
    { column: "exploited", of: sql`case when exploit_count > 0 then 1 else 0 end` },
    { column: "severity", of: sql`coalesce(cvss_severity, 'NONE')` },
    // Null for a CVE without one.
    { column: "vendor", nullable: true },
    { column: "day", of: sql`coalesce(substr(date_published, 1, 10), '')` },
  ],
  count: "count",
};

/** The counts a change takes out (negative) and puts back (positive): a temporary table, needing no staging area. */
const change = sql.table("cve_stats_change");

/** Counts the CVEs `ids` selects, as they are now, into the change: `sign` each. */
const countIntoChange = (db: Kysely<Database>, ids: RawBuilder<unknown>, sign: 1 | -1) =>
  sql`insert into ${change} (${keyColumns(CVE_STATS)}, n)
    select ${countedKey(CVE_STATS)}, ${sql.lit(sign)} * count(*) from cves where id in (${ids}) group by ${countedKeyGroup(CVE_STATS)}`.execute(db);

/**
 * Starts an update of the table for a change to a few CVEs (`ids` selects
 * their ids): takes them out of the counts as they are now. An import that
 * touches 1,404 CVEs (KEV) thus counts those twice instead of every CVE
 * once (360,000 wide rows read, and the whole table rewritten). Only for a
 * change made after this call.
 */
export async function beginStatsChange(db: Kysely<Database>, ids: RawBuilder<unknown>): Promise<void> {
  await sql`drop table if exists ${change}`.execute(db);
  await sql`
    create temporary table ${change} (
      state text not null, kev integer not null, exploited integer not null, severity text not null, vendor text, day text not null, n integer not null
    )`.execute(db);
  await countIntoChange(db, ids, -1);
}

/** Ends it: counts the same CVEs as they are now, and applies the difference (rows that reach 0 go, as a refill leaves none). */
export async function endStatsChange(db: Kysely<Database>, ids: RawBuilder<unknown>): Promise<void> {
  await countIntoChange(db, ids, 1);
  await addSignedCounts(db, CVE_STATS, change);
  await sql`drop table ${change}`.execute(db);
}

/**
 * Counts `added` CVEs just created with nothing but their id: published, no
 * KEV entry, exploit, CVSS score, vendor or publication date (the CVEs EPSS
 * is first to name). They all share one row of the table, so a first EPSS
 * import (about 300,000 of them) adds to one count instead of refilling the
 * table from every CVE. That row is computed as any CVE's, from a one-row
 * literal of such a CVE's columns.
 */
export async function countBareCves(db: Kysely<Database>, added: number): Promise<void> {
  if (added === 0) return;
  const bareCve = sql`(
    select 'PUBLISHED' as state, 0 as kev, 0 as exploit_count, cast(null as text) as cvss_severity, cast(null as text) as vendor,
      cast(null as text) as date_published
  )`;
  await addSignedCounts(db, CVE_STATS, sql`(select ${countedKey(CVE_STATS)}, cast(${added} as integer) as n from ${bareCve} cves)`);
}

/** The filters the table answers: state, severity, KEV, exploited and the publication range, and nothing else. */
export function statsTableAnswers(params: CveListParams): boolean {
  return (
    !params.q &&
    !params.vendor &&
    !params.product &&
    !params.cwe &&
    !params.updated_from &&
    !params.updated_to &&
    [params.cvss_min, params.cvss_max, params.epss_min, params.epss_max].every((bound) => bound === undefined)
  );
}

function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

type StatsTableExpressions = ExpressionBuilder<Database, "cve_stats">;

/**
 * How many CVEs a filter the table answers (statsTableAnswers) matches: a sum
 * over its rows of that filter. Counting the published CVEs themselves read
 * 361,109 index entries (9–12 ms on the full import), and every list's first
 * view after an import needs that count to choose its scan.
 */
export async function countFromStatsTable(db: Kysely<Database>, params: CveListParams): Promise<number> {
  const row = await db
    .selectFrom("cve_stats")
    .where((eb) => statsTableFilter(eb, params))
    .select(sql<number>`coalesce(sum(cve_stats.count), 0)`.as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The list's filter (server/cve/filters.ts) on the statistics table, for the filters it answers. */
export function statsTableFilter(eb: StatsTableExpressions, params: CveListParams): Expression<SqlBool> {
  const conditions: Array<Expression<SqlBool>> = [];
  const state = params.state ?? "published";
  if (state !== "all") conditions.push(eb("cve_stats.state", "=", state.toUpperCase()));
  if (params.severity && params.severity.length > 0) {
    conditions.push(
      eb(
        "cve_stats.severity",
        "in",
        params.severity.map((severity) => severity.toUpperCase()),
      ),
    );
  }
  if (params.kev) conditions.push(eb("cve_stats.kev", "=", 1));
  if (params.exploit) conditions.push(eb("cve_stats.exploited", "=", 1));
  // An undated CVE ('') is in no publication range.
  if (params.published_from || params.published_to) conditions.push(eb("cve_stats.day", "<>", ""));
  if (params.published_from) conditions.push(eb("cve_stats.day", ">=", params.published_from));
  if (params.published_to) conditions.push(eb("cve_stats.day", "<", nextDay(params.published_to)));
  return eb.and(conditions);
}
