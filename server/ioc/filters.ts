import { sql, type Expression, type ExpressionBuilder, type SqlBool } from "kysely";
import { parseIndicator } from "../../shared/ioc/detect";
import { SEEN_WINDOWS, type IocListParams } from "../../shared/ioc-radar/list-params";
import { VALUE_SEARCH_MIN_LENGTH, type SqlDialect } from "../db/dialect";
import type { Database } from "../db/schema";
import { slashTwin } from "../../shared/ioc/url";

type IndicatorExpressions = ExpressionBuilder<Database, "indicators">;

const DAY_MS = 86_400_000;

/** The earliest publisher's last-seen time a "seen within" window admits, relative to the request's clock. */
export function seenSince(params: Pick<IocListParams, "seen">, now: Date): string | null {
  return params.seen ? new Date(now.getTime() - SEEN_WINDOWS[params.seen] * DAY_MS).toISOString() : null;
}

/**
 * What a filter needs besides the parameters: the dialect, and what free
 * text matches besides values (the malware families and threat types that
 * contain it, found in their short cached lists, so no query reads every
 * indicator to compare them).
 */
export interface FilterContext {
  dialect: SqlDialect;
  families: string[];
  threatTypes: string[];
  /**
   * The family keys the malware filter stands for: the family itself and the
   * families it is an alias of, resolved before the query (none without a
   * malware filter). One key is an equality the family index answers in the
   * default order.
   */
  malwareKeys: readonly string[];
  /**
   * The family keys a tag filter also matches (the families the tag is an
   * alias of), resolved before the query like malwareKeys: an IN list the
   * family index answers, where a subquery made SQLite read every indicator
   * for the OR (1 s for `phishing` on the full import).
   */
  tagFamilies: readonly string[];
  /**
   * The tag filter's tag id, read before the query where the dialect
   * resolvesKeysFirst (null: no tag has that name, so no row is tagged);
   * undefined elsewhere, and the query looks the id up itself.
   */
  tagId?: number | null;
  /**
   * A source filter probes each row for one of the source's sightings
   * instead of listing the source's indicators first (probesSource); a walk
   * always probes.
   */
  probeSource?: boolean;
}

/**
 * Whether a walk of the value index reads the whole filter from the index
 * itself, (value, type): a type filter alone. Each step is then as cheap as a
 * related table's probe (server/db/scan.ts): `type=url` by value stepped over
 * about a million domains before the URLs in 60 ms.
 */
export function valueIndexHoldsFilter(params: IocListParams): boolean {
  // Every other filter, whatever the parameters come to name: one the index does not hold makes a step read the row.
  const { type, sort, dir: _dir, page: _page, per_page: _perPage, ...otherFilters } = params;
  return sort === "value" && Boolean(type?.length) && Object.values(otherFilters).every((value) => value === undefined);
}

/**
 * Whether a filter's own index (server/db/ioc-tables.ts: threat type, a
 * single type or a family without aliases, followed by the default order) yields its
 * matches newest first: the page is then read straight off that index, and
 * walking the sort index instead would step over every row the filter
 * leaves out (undated matches sit at the far end of that walk).
 */
export function filterIndexKeepsOrder(params: IocListParams, context: FilterContext): boolean {
  const defaultOrder = (params.sort ?? "last_seen") === "last_seen" && (params.dir ?? "desc") === "desc";
  const oneFamily = Boolean(params.malware) && context.malwareKeys.length === 1;
  return defaultOrder && (Boolean(params.threat_type || params.type?.length === 1) || oneFamily);
}

function familyKeys(eb: IndicatorExpressions, keys: readonly string[]) {
  const family = sql`lower(indicators.malware_family)`;
  return eb.and([
    // Names the partial index's condition, so the family index serves the filter.
    eb("indicators.malware_family", "is not", null),
    keys.length === 1 ? eb(family, "=", keys[0]!) : eb(family, "in", [...keys]),
  ]);
}

/**
 * The where-clause of a filtered IOC list, shared by the list, its count, the
 * chart statistics and the exports so they always describe the same set.
 * Free text that is an indicator (in any form a feed or an analyst writes)
 * matches it exactly; other text matches part of a value, a malware family
 * or a threat type. `walkAlong` names the sort column whose index a "walk"
 * follows (server/db/scan.ts): the other filters then may not use theirs.
 */
export function iocFilter(
  eb: IndicatorExpressions,
  params: IocListParams,
  now: Date,
  context: FilterContext,
  walkAlong?: `indicators.${string}`,
): Expression<SqlBool> {
  const { dialect } = context;
  const conditions: Array<Expression<SqlBool>> = [];
  const column = (name: `indicators.${string}`) => (walkAlong && name !== walkAlong ? dialect.withoutIndex(name) : sql.ref(name));
  if (params.type && params.type.length > 0) conditions.push(eb(column("indicators.type"), "in", params.type));
  if (params.threat_type) conditions.push(eb(column("indicators.threat_type"), "=", params.threat_type));
  if (params.malware) conditions.push(familyKeys(eb, context.malwareKeys));
  if (params.tag) {
    const tag = params.tag;
    const tagId = context.tagId === undefined ? eb.selectFrom("tags").select("tags.id").where("tags.name", "=", tag) : eb.val(context.tagId);
    const tagged = eb.selectFrom("indicator_tags").select("indicator_tags.indicator_id").where("indicator_tags.tag_id", "=", tagId);
    const tagRows = walkAlong ? eb.exists(tagged.whereRef("indicator_tags.indicator_id", "=", "indicators.id")) : eb("indicators.id", "in", tagged);
    // A family's aliases tag it too (maltrail states them once per family).
    conditions.push(context.tagFamilies.length > 0 ? eb.or([tagRows, familyKeys(eb, context.tagFamilies)]) : tagRows);
  }
  if (params.source) {
    const seenBy = eb.selectFrom("indicator_sightings").select("indicator_sightings.indicator_id").where("indicator_sightings.source", "=", params.source);
    conditions.push(
      walkAlong || context.probeSource
        ? eb.exists(seenBy.whereRef("indicator_sightings.indicator_id", "=", "indicators.id"))
        : eb("indicators.id", "in", seenBy),
    );
  }
  if (params.host) conditions.push(eb.or([eb(column("indicators.host"), "=", params.host), eb("indicators.value", "=", params.host)]));
  if (params.domain) conditions.push(eb.or([eb(column("indicators.domain"), "=", params.domain), eb("indicators.value", "=", params.domain)]));
  const since = seenSince(params, now);
  if (since) conditions.push(eb(column("indicators.last_seen"), ">=", since));
  if (params.q) {
    const read = parseIndicator(params.q);
    if (read) {
      // An ip:port as written also finds the address a feed listed with that port.
      const values = [read.indicator, slashTwin(read.indicator), read.address].flatMap((indicator) => (indicator ? [indicator.value] : []));
      conditions.push(eb("indicators.value", "in", values));
    } else {
      const alternatives: Array<Expression<SqlBool>> = [];
      if (params.q.length >= VALUE_SEARCH_MIN_LENGTH) alternatives.push(dialect.valueContains(params.q, column("indicators.id")));
      else alternatives.push(eb("indicators.value", "=", params.q));
      // Without the family index's condition SQLite cannot serve this alternative from it, and so
      // reads the whole table for the OR (about 1 s for `emotet` on the full import).
      if (context.families.length > 0) alternatives.push(familyKeys(eb, context.families));
      if (context.threatTypes.length > 0) alternatives.push(eb(column("indicators.threat_type"), "in", context.threatTypes));
      conditions.push(eb.or(alternatives));
    }
  }
  return eb.and(conditions);
}

/**
 * Whether a page read off the filter's own index (filterIndexKeepsOrder)
 * probes each of its rows for the source's sighting rather than listing the
 * source's indicators first. Listing costs a row per indicator of the source
 * (0.4 s for maltrail's 1.42 M on the full import, to read 25 of its
 * domains); the walk steps over about pageEnd × alongIndex / matches rows of
 * that index (`alongIndex`: the view's matches without its source filter),
 * each probed. Probe when that walk is the shorter.
 */
export function probesSource({
  matches,
  alongIndex,
  sourceSize,
  pageEnd,
}: {
  matches: number;
  alongIndex: number;
  sourceSize: number;
  pageEnd: number;
}): boolean {
  return matches > 0 && pageEnd * alongIndex < sourceSize * matches;
}
