import { sql, type Expression, type ExpressionBuilder, type Kysely, type RawBuilder, type SqlBool } from "kysely";
import type { IocListParams } from "../../shared/ioc-radar/list-params";
import type { Database } from "../db/schema";
import { addSignedCounts, countedKey, refillCounts, type CountsTable } from "../db/signed-counts";
import type { FilterContext } from "./filters";

/**
 * `indicator_stats`: how many indicators share each type, threat type,
 * malware family and publishers' last-seen day ('' when undated), about
 * 20,000 rows for 1.7 M indicators. The chart statistics and the counts of
 * the unfiltered list, and of lists filtered only by these columns, are sums
 * over it: a few milliseconds, where the same aggregate over the indicators
 * took seconds on the full import. Every import that changes indicators
 * refreshes it in its own transaction, so it always agrees with them.
 */
export async function refreshIndicatorStats(db: Kysely<Database>): Promise<void> {
  await refillCounts(db, INDICATOR_STATS, sql.table("indicators"));
}

/** The table's key, each column with how an indicator's row computes it: the fill and the counted changes are built from it. */
const INDICATOR_STATS: CountsTable = {
  table: "indicator_stats",
  key: [
    { column: "type" },
    // Null when no sighting names one.
    { column: "threat_type", nullable: true },
    { column: "malware_family", nullable: true },
    // The day of its last sighting, '' when undated.
    { column: "day", of: sql`coalesce(substr(last_seen, 1, 10), '')` },
  ],
  count: "count",
};

/** An indicator's key in `indicator_stats`, computed from the columns of `indicators` and named as the table's. */
export const INDICATOR_STATS_KEY = countedKey(INDICATOR_STATS);

/**
 * Adds signed counts to `indicator_stats`: `delta` names a table of
 * (type, threat_type, malware_family, day, n) rows, the touched indicators'
 * keys before a merge counted -1 each and after it +1 each. A small merge
 * costs a group over the indicators it touched instead of one over all of
 * them (8.5 of the 10 s a 5,000-indicator import took on the full import).
 */
export async function addToIndicatorStats(db: Kysely<Database>, delta: RawBuilder<unknown>): Promise<void> {
  await addSignedCounts(db, INDICATOR_STATS, delta);
}

/** The filters the stats table answers: any of type, threat type and malware family, and nothing else. */
export function statsTableAnswers(params: IocListParams): boolean {
  return !params.q && !params.tag && !params.source && !params.host && !params.domain && !params.seen;
}

type StatsTableExpressions = ExpressionBuilder<Database, "indicator_stats">;

/** The list's filter on the statistics table, for the filters it answers (statsTableAnswers). */
export function statsTableFilter(eb: StatsTableExpressions, params: IocListParams, context: FilterContext): Expression<SqlBool> {
  const conditions: Array<Expression<SqlBool>> = [];
  if (params.type && params.type.length > 0) conditions.push(eb("indicator_stats.type", "in", params.type));
  if (params.threat_type) conditions.push(eb("indicator_stats.threat_type", "=", params.threat_type));
  if (params.malware) {
    conditions.push(eb("indicator_stats.malware_family", "is not", null));
    conditions.push(eb(sql`lower(indicator_stats.malware_family)`, "in", [...context.malwareKeys]));
  }
  return eb.and(conditions);
}

/** How many indicators a filter the statistics table answers matches. */
export async function countFromStatsTable(db: Kysely<Database>, params: IocListParams, context: FilterContext): Promise<number> {
  if (params.malware && context.malwareKeys.length === 0) return 0;
  const row = await db
    .selectFrom("indicator_stats")
    .where((eb) => statsTableFilter(eb, params, context))
    .select(sql<number>`coalesce(sum(indicator_stats.count), 0)`.as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
