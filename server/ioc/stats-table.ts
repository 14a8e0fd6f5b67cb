import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from "kysely";
import type { IocListParams } from "../../shared/ioc-radar/list-params";
import type { Database } from "../db/schema";
import { addSignedCounts, countedKey, refillCounts, type CountsTable } from "../db/signed-counts";
import type { FilterContext } from "./filters";

/**
 * `indicator_stats`: how many indicators share each type, threat type,
 * malware family and publishers' last-seen day ('' where there is none: no
 * sighting names one, or none is dated), about 20,000 rows for 1.7 M
 * indicators; `indicator_source_stats`: the same per
 * source, an indicator counted once under each source with a sighting of it.
 * The chart statistics and the counts of the unfiltered list, and of lists
 * filtered by source and these columns, are sums over them: a few
 * milliseconds, where the same aggregate over the indicators took seconds on
 * the full import. Every import that changes indicators refreshes both in its
 * own transaction, so they always agree with them.
 */
export async function refreshIndicatorStats(db: Kysely<Database>): Promise<void> {
  await refillCounts(db, INDICATOR_STATS, sql.table("indicators"));
  await refillCounts(db, INDICATOR_SOURCE_STATS, SOURCE_MEMBERSHIPS);
}

/** The table's key, each column with how an indicator's row computes it: the fill and the counted changes are built from it. */
const INDICATOR_STATS: CountsTable = {
  table: "indicator_stats",
  key: [
    { column: "type" },
    // '' rather than null when no sighting names one: a merge finds each changed key by `=`, which SQLite looks up
    // in the key's index and PostgreSQL hashes. `is not distinct from` PostgreSQL can neither hash nor merge on: moving
    // 10,000 keys of `indicator_source_stats` filtered 71 M pairs (10.6 s) on the full import.
    { column: "threat_type", of: sql`coalesce(threat_type, '')` },
    { column: "malware_family", of: sql`coalesce(malware_family, '')` },
    // The day of its last sighting, '' when undated.
    { column: "day", of: sql`coalesce(substr(last_seen, 1, 10), '')` },
  ],
  count: "count",
};

/** An indicator's key in `indicator_stats`, computed from the columns of `indicators` and named as the table's. */
export const INDICATOR_STATS_KEY = countedKey(INDICATOR_STATS);

/** The same key with the source of a sighting of the indicator first. */
const INDICATOR_SOURCE_STATS: CountsTable = {
  table: "indicator_source_stats",
  key: [{ column: "source" }, ...INDICATOR_STATS.key],
  count: "count",
};

/**
 * An indicator's key in `indicator_source_stats`, computed from a row of
 * `indicators` joined to a select of (indicator_id, source), and named as
 * the table's.
 */
export const INDICATOR_SOURCE_STATS_KEY = countedKey(INDICATOR_SOURCE_STATS);

/**
 * Each indicator once per source that has a sighting of it, delisted or not
 * (as the source filter matches), with the indicator's counted columns.
 */
const SOURCE_MEMBERSHIPS = sql`(
  select m.source, i.type, i.threat_type, i.malware_family, i.last_seen
  from (select distinct indicator_id, source from indicator_sightings) m join indicators i on i.id = m.indicator_id
) memberships`;

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

/** As addToIndicatorStats(), for `indicator_source_stats`: `delta`'s rows have the source first. */
export async function addToIndicatorSourceStats(db: Kysely<Database>, delta: RawBuilder<unknown>): Promise<void> {
  await addSignedCounts(db, INDICATOR_SOURCE_STATS, delta);
}

/** The filters the statistics tables answer: any of source, type, threat type and malware family, and nothing else. */
export function statsTableAnswers(params: IocListParams): boolean {
  return !params.q && !params.tag && !params.host && !params.domain && !params.seen;
}

const COUNTED_COLUMNS = ["type", "threat_type", "malware_family", "day", "count"] as const;

/**
 * The statistics rows of the indicators a filter the tables answer matches
 * (statsTableAnswers), as `stats`: the source's rows of
 * `indicator_source_stats` under a source filter, else `indicator_stats`.
 */
export function statsRows(db: Kysely<Database>, params: IocListParams, context: FilterContext) {
  const { source } = params;
  return db
    .with("stats", (qb) =>
      source
        ? qb.selectFrom("indicator_source_stats").select(COUNTED_COLUMNS).where("indicator_source_stats.source", "=", source)
        : qb.selectFrom("indicator_stats").select(COUNTED_COLUMNS),
    )
    .selectFrom("stats")
    .where((eb) => {
      const conditions: Array<Expression<SqlBool>> = [];
      if (params.type && params.type.length > 0) conditions.push(eb("stats.type", "in", params.type));
      if (params.threat_type) conditions.push(eb("stats.threat_type", "=", params.threat_type));
      if (params.malware) conditions.push(eb(sql`lower(stats.malware_family)`, "in", [...context.malwareKeys]));
      return eb.and(conditions);
    });
}

/** How many indicators a filter the statistics tables answer matches. */
export async function countFromStatsTable(db: Kysely<Database>, params: IocListParams, context: FilterContext): Promise<number> {
  if (params.malware && context.malwareKeys.length === 0) return 0;
  const row = await statsRows(db, params, context)
    .select(sql<number>`coalesce(sum(stats.count), 0)`.as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
