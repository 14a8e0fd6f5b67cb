import { sql, type Kysely, type Selectable, type SqlBool } from "kysely";
import { defang } from "../../shared/ioc/defang";
import type { Indicator, IndicatorType } from "../../shared/ioc/types";
import type { WarninglistMatcher } from "./warninglist-match";
import { IOC_PAGE_SIZE_DEFAULT, type IocListParams, type IocSortKey } from "../../shared/ioc-radar/list-params";
import type { IocListPage, IocListRow } from "../../shared/ioc-radar/list-types";
import { scoreIndicator, type ScoreSighting } from "../../shared/scoring/ioc-score";
import type { Database, IndicatorsTable } from "../db/schema";
import type { Scan } from "../db/scan";
import { countFrontHits } from "../db/walk-probe";
import { countFromStatsTable, statsTableAnswers } from "./stats-table";
import { filterIndexKeepsOrder, iocFilter, type FilterContext } from "./filters";

type Direction = "asc" | "desc";
const reverse = (dir: Direction): Direction => (dir === "asc" ? "desc" : "asc");
/** Where a "<column> desc nulls last" index puts NULLs when walked in `dir`. */
const indexNulls = (dir: Direction) => (dir === "desc" ? "nulls last" : "nulls first");

/** A sort key as the ORDER BY names it: the column itself, or an expression of it that no index serves (see queryIndicatorRows). */
type SortKey = (column: `indicators.${keyof IndicatorsTable}`, type: "text" | "integer") => string;
const asIs: SortKey = (column) => column;

type Ordering = { column: `indicators.${keyof IndicatorsTable}`; order: (dir: Direction, key: SortKey) => string };

/**
 * One column, ties broken by id the other way. A column that may be NULL keeps them last either way;
 * one that never is spells the NULL position as its index has it, which SQLite reads as its default
 * and PostgreSQL needs to match the index at all (its DESC puts NULLs first unless told).
 */
const byColumn = (column: Ordering["column"], type: "text" | "integer", nullable: boolean): Ordering => ({
  column,
  order: (dir, key) => `${key(column, type)} ${dir} ${nullable ? "nulls last" : indexNulls(dir)}, indicators.id ${reverse(dir)}`,
});

/**
 * Each sort's ORDER BY, written to match its index (server/db/ioc-tables.ts)
 * in either direction, with an explicit tie-breaker so pages never overlap:
 * missing values (an undated indicator, no confidence) come last whichever
 * way a column is sorted.
 */
const ORDERINGS: Record<IocSortKey, Ordering> = {
  last_seen: byColumn("indicators.last_seen", "text", true),
  first_seen: byColumn("indicators.first_seen", "text", true),
  listed_since: byColumn("indicators.listed_since", "text", false),
  confidence: byColumn("indicators.confidence", "integer", true),
  sources: byColumn("indicators.source_count", "integer", false),
  // Within a type, newest first (the type index's own order, walked backwards for "desc").
  type: {
    column: "indicators.type",
    order: (dir, key) =>
      dir === "asc"
        ? `${key("indicators.type", "text")} asc, ${key("indicators.last_seen", "text")} desc nulls last, indicators.id asc`
        : `${key("indicators.type", "text")} desc, ${key("indicators.last_seen", "text")} asc nulls first, indicators.id desc`,
  },
  // (value, type) is unique: the type breaks the rare ties.
  value: {
    column: "indicators.value",
    order: (dir, key) => `${key("indicators.value", "text")} ${dir}, ${key("indicators.type", "text")} ${dir}`,
  },
};

export const INDICATOR_COLUMNS = [
  "indicators.id",
  "indicators.type",
  "indicators.value",
  "indicators.first_seen",
  "indicators.last_seen",
  "indicators.listed_since",
  "indicators.threat_type",
  "indicators.malware_family",
  "indicators.confidence",
] as const;

export type IndicatorRow = Pick<
  Selectable<IndicatorsTable>,
  "id" | "type" | "value" | "first_seen" | "last_seen" | "listed_since" | "threat_type" | "malware_family" | "confidence"
>;

/** What a list row, the score and the exports need of each sighting. */
export interface RowSighting extends ScoreSighting {
  /** Which of a feed's statements about the value this is (server/pipeline/importers/indicators-import.ts). */
  variant: number;
  tags: string | null;
  delistedAt: string | null;
  reference: string | null;
}

const SIGHTING_BATCH = 500;

export function parseStringList(text: string | null): string[] {
  if (!text) return [];
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

export function asIndicator(row: { type: string; value: string }): Indicator {
  return { type: row.type as IndicatorType, value: row.value };
}

/** The sightings of a batch of indicators, by id. */
export async function sightingsOf(db: Kysely<Database>, ids: readonly number[]): Promise<Map<number, RowSighting[]>> {
  const byId = new Map<number, RowSighting[]>();
  for (let start = 0; start < ids.length; start += SIGHTING_BATCH) {
    const rows = await db
      .selectFrom("indicator_sightings as s")
      .leftJoin("sighting_references as r", "r.id", "s.reference_id")
      .select(["s.indicator_id", "s.source", "s.variant", "s.confidence", "s.first_seen", "s.last_seen", "s.tags", "s.delisted_at", "r.url"])
      .where("s.indicator_id", "in", ids.slice(start, start + SIGHTING_BATCH))
      .orderBy("s.indicator_id")
      .orderBy("s.source")
      .orderBy("s.variant")
      .execute();
    for (const row of rows) {
      const sighting: RowSighting = {
        source: row.source,
        variant: Number(row.variant),
        confidence: row.confidence,
        firstSeen: row.first_seen,
        lastSeen: row.last_seen,
        tags: row.tags,
        delistedAt: row.delisted_at,
        reference: row.url,
      };
      const list = byId.get(Number(row.indicator_id));
      if (list) list.push(sighting);
      else byId.set(Number(row.indicator_id), [sighting]);
    }
  }
  return byId;
}

/**
 * When a complete list last listed an indicator: the latest successful
 * import among the complete-list feeds whose sighting of it is not
 * delisted. Feeds of additions say nothing about still listing anything.
 */
export function stillListedAt(sightings: readonly RowSighting[], completeLists: ReadonlyMap<string, string | null>): string | null {
  let newest: string | null = null;
  for (const sighting of sightings) {
    const listedAt = completeLists.get(sighting.source) ?? null;
    if (sighting.delistedAt === null && listedAt !== null && (newest === null || listedAt > newest)) newest = listedAt;
  }
  return newest;
}

/** List rows with their score, tags, feeds, listing times and benign-list flag. */
export async function toListRows(
  db: Kysely<Database>,
  rows: readonly IndicatorRow[],
  matcher: WarninglistMatcher,
  completeLists: ReadonlyMap<string, string | null>,
  now: Date,
): Promise<IocListRow[]> {
  const sightings = await sightingsOf(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => {
    const own = sightings.get(row.id) ?? [];
    const benignLists = matcher.match(asIndicator(row)).map((match) => match.list);
    const score = scoreIndicator(own, now, benignLists.length > 0);
    return {
      id: row.id,
      type: row.type,
      value: row.value,
      display: defang(asIndicator(row)),
      firstSeen: row.first_seen,
      lastSeen: row.last_seen,
      listedSince: row.listed_since,
      stillListedAt: stillListedAt(own, completeLists),
      threatType: row.threat_type,
      malwareFamily: row.malware_family,
      tags: [...new Set(own.flatMap((s) => parseStringList(s.tags)))],
      sources: [...new Set(own.map((s) => s.source))].sort(),
      confidence: row.confidence,
      score: score.score,
      verdict: score.verdict,
      benignLists,
    };
  });
}

export function sortOf(params: IocListParams): { sort: IocSortKey; dir: Direction } {
  return { sort: params.sort ?? "last_seen", dir: params.dir ?? "desc" };
}

/**
 * A select of the filtered indicators in the requested order (see ORDERINGS).
 * `key` spells the sort keys: as they are, unless a gathered page must keep
 * the dialect off the sort index (queryIndicatorRows).
 */
export function orderedIndicators(db: Kysely<Database>, params: IocListParams, now: Date, context: FilterContext, scan: Scan = "gather", key: SortKey = asIs) {
  const { sort, dir } = sortOf(params);
  const { column, order } = ORDERINGS[sort];
  return db
    .selectFrom("indicators")
    .where((eb) => iocFilter(eb, params, now, context, scan === "walk" ? column : undefined))
    .orderBy(sql.raw(order(dir, key)));
}

/** The statement that reads one page of the list, found by `scan`. */
export function indicatorPageQuery(db: Kysely<Database>, params: IocListParams, now: Date, context: FilterContext, scan: Scan = "gather") {
  const perPage = params.per_page ?? IOC_PAGE_SIZE_DEFAULT;
  // A gathered page sorts its matches, unless the filter's own index yields them in order: the
  // dialect then spells the sort keys so that its planner cannot walk the sort index instead.
  const { unindexedSortKey } = context.dialect;
  const key: SortKey = scan === "gather" && !filterIndexKeepsOrder(params, context) ? unindexedSortKey : asIs;
  return orderedIndicators(db, params, now, context, scan, key)
    .select(INDICATOR_COLUMNS)
    .limit(perPage)
    .offset(((params.page ?? 1) - 1) * perPage);
}

export async function queryIndicatorRows(
  db: Kysely<Database>,
  params: IocListParams,
  now: Date,
  context: FilterContext,
  scan: Scan = "gather",
): Promise<IndicatorRow[]> {
  const rows = await indicatorPageQuery(db, params, now, context, scan).execute();
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}

/**
 * How many of the first `cap` indicators of the walk's universe (`universe`:
 * every indicator, or a "seen within" window), in the list's sort order,
 * match the filter, up to `enough`: the probe of server/db/scan.ts's
 * chooseScanProbed. At most `cap` index steps, whatever the filter.
 */
export async function countWalkHits(
  db: Kysely<Database>,
  params: IocListParams,
  universe: IocListParams,
  now: Date,
  context: FilterContext,
  cap: number,
  enough: number,
): Promise<number> {
  const { sort, dir } = sortOf(params);
  const along = ORDERINGS[sort].column;
  const front = orderedIndicators(db, { ...universe, sort, dir }, now, context, "walk")
    .select((eb) => sql<SqlBool>`${iocFilter(eb, params, now, context, along)}`.as("hit"))
    .limit(cap);
  return countFrontHits(db, front, enough);
}

export async function countIndicators(db: Kysely<Database>, params: IocListParams, now: Date, context: FilterContext): Promise<number> {
  // The unfiltered list and its type, threat-type and family filters are sums over the statistics table.
  if (statsTableAnswers(params)) return countFromStatsTable(db, params, context);
  const { total } = await db
    .selectFrom("indicators")
    .where((eb) => iocFilter(eb, params, now, context))
    .select((eb) => eb.fn.countAll<number>().as("total"))
    .executeTakeFirstOrThrow();
  return Number(total);
}

export function toListPage(params: IocListParams, rows: IocListRow[], total: number): IocListPage {
  const perPage = params.per_page ?? IOC_PAGE_SIZE_DEFAULT;
  return { rows, total, page: params.page ?? 1, perPage, pageCount: Math.max(1, Math.ceil(total / perPage)), ...sortOf(params) };
}
