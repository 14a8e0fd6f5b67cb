import { sql, type Expression, type ExpressionBuilder, type SqlBool } from "kysely";
import { normalizeIndicator } from "../../shared/ioc/detect";
import { SEEN_WINDOWS, type IocListParams } from "../../shared/ioc-radar/list-params";
import type { Database } from "../db/schema";
import { INDICATOR_SEARCH_MIN_LENGTH, indicatorTextMatch, withoutIndex } from "../db/sqlite-specific";

type IndicatorExpressions = ExpressionBuilder<Database, "indicators">;

const DAY_MS = 86_400_000;

/** Text with LIKE's wildcards escaped (use with `escape '\\'`). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function likePattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

/** The earliest `seen_at` a "seen within" window admits, relative to the request's clock. */
export function seenSince(params: Pick<IocListParams, "seen">, now: Date): string | null {
  return params.seen ? new Date(now.getTime() - SEEN_WINDOWS[params.seen] * DAY_MS).toISOString() : null;
}

/**
 * The where-clause of a filtered IOC list, shared by the list, its count, the
 * chart statistics and the exports so they always describe the same set.
 * Free text matches the canonical form of a pasted indicator exactly, and
 * otherwise a substring of the value, malware family or threat type.
 * `walkAlong` names the sort column whose index a "walk" follows (see
 * `server/db/scan.ts`): the other filters then may not use their own indexes.
 */
export function iocFilter(eb: IndicatorExpressions, params: IocListParams, now: Date, walkAlong?: `indicators.${string}`): Expression<SqlBool> {
  const conditions: Array<Expression<SqlBool>> = [];
  const column = (name: `indicators.${string}`) => (walkAlong && name !== walkAlong ? withoutIndex(name) : sql.ref(name));
  if (params.type && params.type.length > 0) conditions.push(eb(column("indicators.type"), "in", params.type));
  if (params.threat_type) conditions.push(eb(column("indicators.threat_type"), "=", params.threat_type));
  if (params.malware) {
    const family = walkAlong ? sql`+lower(indicators.malware_family)` : sql`lower(indicators.malware_family)`;
    conditions.push(eb(family, "=", params.malware.toLowerCase()));
  }
  if (params.tag) {
    const tagged = eb.selectFrom("indicator_tags").select("indicator_tags.indicator_id").where("indicator_tags.tag", "=", params.tag);
    conditions.push(walkAlong ? eb.exists(tagged.whereRef("indicator_tags.indicator_id", "=", "indicators.id")) : eb("indicators.id", "in", tagged));
  }
  if (params.source) {
    const seenBy = eb.selectFrom("indicator_sightings").select("indicator_sightings.indicator_id").where("indicator_sightings.source", "=", params.source);
    conditions.push(walkAlong ? eb.exists(seenBy.whereRef("indicator_sightings.indicator_id", "=", "indicators.id")) : eb("indicators.id", "in", seenBy));
  }
  const since = seenSince(params, now);
  if (since) conditions.push(eb(column("indicators.seen_at"), ">=", since));
  if (params.q) {
    const canonical = normalizeIndicator(params.q);
    if (canonical) {
      conditions.push(eb("indicators.value", "=", canonical.value));
    } else if (params.q.length >= INDICATOR_SEARCH_MIN_LENGTH) {
      conditions.push(indicatorTextMatch(params.q, column("indicators.id")));
    } else {
      const pattern = likePattern(params.q.toLowerCase());
      conditions.push(
        eb.or([
          eb(sql`lower(indicators.value)`, "like", sql`${pattern} escape '\\'`),
          eb(sql`lower(indicators.malware_family)`, "like", sql`${pattern} escape '\\'`),
          eb(sql`lower(indicators.threat_type)`, "like", sql`${pattern} escape '\\'`),
        ]),
      );
    }
  }
  return eb.and(conditions);
}
