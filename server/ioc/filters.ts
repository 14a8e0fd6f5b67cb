import { sql, type Expression, type ExpressionBuilder, type SqlBool } from "kysely";
import { normalizeIndicator } from "../../shared/ioc/detect";
import { SEEN_WINDOWS, type IocListParams } from "../../shared/ioc-radar/list-params";
import type { Database } from "../db/schema";

type IndicatorExpressions = ExpressionBuilder<Database, "indicators">;

const DAY_MS = 86_400_000;

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
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
 */
export function iocFilter(eb: IndicatorExpressions, params: IocListParams, now: Date): Expression<SqlBool> {
  const conditions: Array<Expression<SqlBool>> = [];
  if (params.type && params.type.length > 0) conditions.push(eb("indicators.type", "in", params.type));
  if (params.threat_type) conditions.push(eb("indicators.threat_type", "=", params.threat_type));
  if (params.malware) conditions.push(eb(sql`lower(indicators.malware_family)`, "=", params.malware.toLowerCase()));
  if (params.tag) {
    conditions.push(eb("indicators.id", "in", eb.selectFrom("indicator_tags").select("indicator_tags.indicator_id").where("indicator_tags.tag", "=", params.tag)));
  }
  if (params.source) {
    conditions.push(
      eb("indicators.id", "in", eb.selectFrom("indicator_sightings").select("indicator_sightings.indicator_id").where("indicator_sightings.source", "=", params.source)),
    );
  }
  const since = seenSince(params, now);
  if (since) conditions.push(eb("indicators.seen_at", ">=", since));
  if (params.q) {
    const canonical = normalizeIndicator(params.q);
    if (canonical) {
      conditions.push(eb("indicators.value", "=", canonical.value));
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
