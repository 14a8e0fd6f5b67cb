import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from "kysely";
import { defang } from "../../shared/ioc/defang";
import { hostOf, ipv4Slash24, registrableDomain } from "../../shared/ioc/host";
import type { Indicator } from "../../shared/ioc/types";
import { KNOWN_SCHEMES } from "../../shared/ioc/url";
import type { WarninglistMatcher } from "../../shared/ioc/warninglist-match";
import { SEEN_WINDOWS } from "../../shared/ioc-radar/list-params";
import type { IocActivityWindow, IocDetailData, IocSightingView, RelatedGroup, RelatedIndicator } from "../../shared/ioc-radar/detail-types";
import { scoreIndicator } from "../../shared/scoring/ioc-score";
import type { Database } from "../db/schema";
import { indicatorTextMatch } from "../db/sqlite-specific";
import { escapeLike } from "./filters";
import { asIndicator, parseStringList } from "./list";

const RELATED_LIMIT = 10;
const DAY_MS = 86_400_000;

/**
 * `value` starts with one of the prefixes: a range on the value index for
 * each ("abc" ≤ value < "abd"), where LIKE with a wildcard reads every row.
 */
function startsWithAny(eb: ExpressionBuilder<Database, "indicators">, prefixes: readonly string[]): Expression<SqlBool> {
  return eb.or(
    prefixes.map((prefix) => {
      const next = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
      return eb.and([eb("indicators.value", ">=", prefix), eb("indicators.value", "<", next)]);
    }),
  );
}

function relatedQuery(db: Kysely<Database>, selfId: number | null) {
  return db
    .selectFrom("indicators")
    .select(["indicators.type", "indicators.value", "indicators.last_seen", "indicators.malware_family"])
    .$if(selfId !== null, (qb) => qb.where("indicators.id", "!=", selfId ?? 0))
    .orderBy("indicators.seen_at", "desc")
    .orderBy("indicators.id")
    .limit(RELATED_LIMIT);
}

type RelatedRow = { type: string; value: string; last_seen: string | null; malware_family: string | null };
const toRelated = (rows: RelatedRow[]): RelatedIndicator[] =>
  rows.map((row) => ({ type: row.type, value: row.value, display: defang(asIndicator(row)), lastSeen: row.last_seen, malwareFamily: row.malware_family }));

async function relatedGroups(db: Kysely<Database>, indicator: Indicator, selfId: number | null, malware: string | null): Promise<RelatedGroup[]> {
  const groups: Array<Promise<RelatedGroup>> = [];
  if (malware) {
    groups.push(
      relatedQuery(db, selfId)
        .where(sql`lower(indicators.malware_family)`, "=", malware.toLowerCase())
        .execute()
        .then((rows) => ({ relation: "malware", key: malware, indicators: toRelated(rows) })),
    );
  }
  if (indicator.type === "url" || indicator.type === "domain") {
    const host = hostOf(indicator);
    if (host) {
      const onHost = KNOWN_SCHEMES.flatMap((scheme) => [`${scheme}://${host}/`, `${scheme}://${host}:`]);
      groups.push(
        relatedQuery(db, selfId)
          .where((eb) => eb.or([eb("indicators.value", "=", host), startsWithAny(eb, onHost)]))
          .execute()
          .then((rows) => ({ relation: "host", key: host, indicators: toRelated(rows) })),
      );
    }
    const domain = registrableDomain(indicator);
    if (domain && domain !== host) {
      groups.push(
        relatedQuery(db, selfId)
          .where("indicators.type", "=", "domain")
          .where((eb) => eb.or([eb("indicators.value", "=", domain), eb.and([indicatorTextMatch(domain), eb("indicators.value", "like", sql<string>`${`%.${escapeLike(domain)}`} escape '\\'`)])]))
          .execute()
          .then((rows) => ({ relation: "domain", key: domain, indicators: toRelated(rows) })),
      );
    }
  }
  if (indicator.type === "ipv4" || indicator.type === "ip:port") {
    const range = ipv4Slash24(indicator.value);
    if (range) {
      const prefix = range.slice(0, range.lastIndexOf(".") + 1);
      groups.push(
        relatedQuery(db, selfId)
          .where("indicators.type", "in", ["ipv4", "ip:port"])
          .where((eb) => startsWithAny(eb, [prefix]))
          .execute()
          .then((rows) => ({ relation: "slash24", key: range, indicators: toRelated(rows) })),
      );
    }
  }
  return Promise.all(groups);
}

function activityWindows(sightings: IocSightingView[], now: Date): IocActivityWindow[] {
  return Object.values(SEEN_WINDOWS).map((days) => {
    const since = now.getTime() - days * DAY_MS;
    const sources = sightings
      .filter((s) => {
        const time = Date.parse(s.lastSeen ?? s.firstSeen ?? "");
        return !Number.isNaN(time) && time >= since && time <= now.getTime();
      })
      .map((s) => s.source);
    return { days, sources: [...new Set(sources)].sort() };
  });
}

/** Everything the detail page shows about one canonical indicator, seen by a feed or not. */
export async function queryIocDetail(db: Kysely<Database>, indicator: Indicator, matcher: WarninglistMatcher, now: Date): Promise<IocDetailData> {
  const row = await db
    .selectFrom("indicators")
    .selectAll()
    .where("value", "=", indicator.value)
    .where("type", "=", indicator.type)
    .executeTakeFirst();
  const id = row ? Number(row.id) : null;
  const [sightingRows, cveRows] = id === null
    ? [[], []]
    : await Promise.all([
        db.selectFrom("indicator_sightings").selectAll().where("indicator_id", "=", id).orderBy("source").orderBy("port").execute(),
        db.selectFrom("indicator_cves").select("cve_id").distinct().where("indicator_id", "=", id).orderBy("cve_id").execute(),
      ]);
  const sightings: IocSightingView[] = sightingRows.map((s) => ({
    source: s.source,
    port: s.port === 0 ? null : s.port,
    rawValue: s.raw_value,
    firstSeen: s.first_seen,
    lastSeen: s.last_seen,
    threatType: s.threat_type,
    malwareFamily: s.malware_family,
    tags: parseStringList(s.tags),
    confidence: s.confidence,
    reporter: s.reporter,
    reference: s.reference,
  }));
  const matches = matcher.match(indicator);
  const descriptions = matches.length
    ? new Map(
        (await db.selectFrom("warninglists").select(["name", "description"]).where("name", "in", matches.map((m) => m.list)).execute()).map((l) => [l.name, l.description]),
      )
    : new Map<string, string | null>();
  const related = await relatedGroups(db, indicator, id, row?.malware_family ?? null);
  return {
    type: indicator.type,
    value: indicator.value,
    display: defang(indicator),
    known: row !== undefined,
    summary: row
      ? {
          firstSeen: row.first_seen,
          lastSeen: row.last_seen,
          threatType: row.threat_type,
          malwareFamily: row.malware_family,
          tags: parseStringList(row.tags),
          sources: parseStringList(row.sources),
          confidence: row.confidence,
        }
      : null,
    score: scoreIndicator(
      sightings.map((s) => ({ source: s.source, confidence: s.confidence, firstSeen: s.firstSeen, lastSeen: s.lastSeen })),
      now,
      matches.length > 0,
    ),
    sightings,
    activity: activityWindows(sightings, now),
    related: related.filter((group) => group.indicators.length > 0),
    cves: cveRows.map((c) => c.cve_id),
    warninglists: matches.map((m) => ({ list: m.list, type: m.type, entry: m.entry, description: descriptions.get(m.list) ?? null })),
    generatedAt: now.toISOString(),
  };
}
