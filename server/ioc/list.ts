import type { Kysely, Selectable } from "kysely";
import { defang } from "../../shared/ioc/defang";
import type { Indicator, IndicatorType } from "../../shared/ioc/types";
import type { WarninglistMatcher } from "../../shared/ioc/warninglist-match";
import { IOC_PAGE_SIZE_DEFAULT, type IocListParams, type IocSortKey } from "../../shared/ioc-radar/list-params";
import type { IocListPage, IocListRow } from "../../shared/ioc-radar/list-types";
import { scoreIndicator, type ScoreSighting } from "../../shared/scoring/ioc-score";
import type { Database, IndicatorsTable } from "../db/schema";
import type { Scan } from "../db/scan";
import { iocFilter } from "./filters";

const SORT_COLUMNS = {
  last_seen: "indicators.seen_at",
  first_seen: "indicators.first_seen",
  confidence: "indicators.confidence",
  sources: "indicators.source_count",
  value: "indicators.value",
  type: "indicators.type",
} as const satisfies Record<IocSortKey, `indicators.${keyof IndicatorsTable}`>;

/**
 * How the id tie-breaker runs against each sort index, so that SQLite walks
 * the index in either direction instead of sorting: `indicators_seen_idx` is
 * "seen_at desc, id", the others "<column>, id".
 */
const ID_DIRECTION: Record<IocSortKey, "with" | "against"> = {
  last_seen: "against",
  first_seen: "with",
  confidence: "with",
  sources: "with",
  value: "with",
  type: "with",
};

export const INDICATOR_COLUMNS = [
  "indicators.id",
  "indicators.type",
  "indicators.value",
  "indicators.first_seen",
  "indicators.last_seen",
  "indicators.threat_type",
  "indicators.malware_family",
  "indicators.confidence",
  "indicators.tags",
  "indicators.sources",
] as const;

export type IndicatorRow = Pick<
  Selectable<IndicatorsTable>,
  "id" | "type" | "value" | "first_seen" | "last_seen" | "threat_type" | "malware_family" | "confidence" | "tags" | "sources"
>;

const SIGHTING_BATCH = 500;

export function parseStringList(text: string): string[] {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

export function asIndicator(row: { type: string; value: string }): Indicator {
  return { type: row.type as IndicatorType, value: row.value };
}

/** Each indicator's sightings, as the score needs them, for a batch of ids. */
export async function scoreSightings(db: Kysely<Database>, ids: readonly number[]): Promise<Map<number, ScoreSighting[]>> {
  const byId = new Map<number, ScoreSighting[]>();
  for (let start = 0; start < ids.length; start += SIGHTING_BATCH) {
    const batch = ids.slice(start, start + SIGHTING_BATCH);
    const rows = await db
      .selectFrom("indicator_sightings")
      .select(["indicator_id", "source", "confidence", "first_seen", "last_seen"])
      .where("indicator_id", "in", batch)
      .execute();
    for (const row of rows) {
      const sighting: ScoreSighting = { source: row.source, confidence: row.confidence, firstSeen: row.first_seen, lastSeen: row.last_seen };
      const list = byId.get(Number(row.indicator_id));
      if (list) list.push(sighting);
      else byId.set(Number(row.indicator_id), [sighting]);
    }
  }
  return byId;
}

/** List rows with their score and benign-list flag. */
export async function toListRows(db: Kysely<Database>, rows: readonly IndicatorRow[], matcher: WarninglistMatcher, now: Date): Promise<IocListRow[]> {
  const sightings = await scoreSightings(db, rows.map((row) => row.id));
  return rows.map((row) => {
    const benignLists = matcher.match(asIndicator(row)).map((match) => match.list);
    const score = scoreIndicator(sightings.get(row.id) ?? [], now, benignLists.length > 0);
    return {
      id: row.id,
      type: row.type,
      value: row.value,
      display: defang(asIndicator(row)),
      firstSeen: row.first_seen,
      lastSeen: row.last_seen,
      threatType: row.threat_type,
      malwareFamily: row.malware_family,
      tags: parseStringList(row.tags),
      sources: parseStringList(row.sources),
      confidence: row.confidence,
      score: score.score,
      verdict: score.verdict,
      benignLists,
    };
  });
}

export function sortOf(params: IocListParams): { sort: IocSortKey; dir: "asc" | "desc" } {
  return { sort: params.sort ?? "last_seen", dir: params.dir ?? "desc" };
}

/** A select of the filtered indicators in the requested order; the id breaks ties so pages never overlap. */
export function orderedIndicators(db: Kysely<Database>, params: IocListParams, now: Date, scan: Scan = "gather") {
  const { sort, dir } = sortOf(params);
  return db
    .selectFrom("indicators")
    .where((eb) => iocFilter(eb, params, now, scan === "walk" ? SORT_COLUMNS[sort] : undefined))
    .orderBy(SORT_COLUMNS[sort], dir)
    .orderBy("indicators.id", ID_DIRECTION[sort] === "with" ? dir : dir === "desc" ? "asc" : "desc");
}

export async function queryIndicatorRows(db: Kysely<Database>, params: IocListParams, now: Date, scan: Scan = "gather"): Promise<IndicatorRow[]> {
  const perPage = params.per_page ?? IOC_PAGE_SIZE_DEFAULT;
  const rows = await orderedIndicators(db, params, now, scan)
    .select(INDICATOR_COLUMNS)
    .limit(perPage)
    .offset(((params.page ?? 1) - 1) * perPage)
    .execute();
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}

export async function countIndicators(db: Kysely<Database>, params: IocListParams, now: Date): Promise<number> {
  const { total } = await db
    .selectFrom("indicators")
    .where((eb) => iocFilter(eb, params, now))
    .select((eb) => eb.fn.countAll<number>().as("total"))
    .executeTakeFirstOrThrow();
  return Number(total);
}

export function toListPage(params: IocListParams, rows: IocListRow[], total: number): IocListPage {
  const perPage = params.per_page ?? IOC_PAGE_SIZE_DEFAULT;
  return { rows, total, page: params.page ?? 1, perPage, pageCount: Math.max(1, Math.ceil(total / perPage)), ...sortOf(params) };
}
