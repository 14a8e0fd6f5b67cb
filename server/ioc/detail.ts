import type { Kysely } from "kysely";
import { sql } from "kysely";
import { defang } from "../../shared/ioc/defang";
import type { IndicatorWithPort } from "../../shared/ioc/detect";
import { hostOf, ipv4Slash24, registrableDomain } from "../../shared/ioc/host";
import type { Indicator } from "../../shared/ioc/types";
import type { WarninglistMatcher } from "./warninglist-match";
import { iocListSearch, SEEN_WINDOWS } from "../../shared/ioc-radar/list-params";
import type { IocActivityWindow, IocDetailData, IocSightingView, RelatedGroup, RelatedIndicator } from "../../shared/ioc-radar/detail-types";
import { scoreIndicator } from "../../shared/scoring/ioc-score";
import { dialectOf } from "../db/dialect";
import type { Database } from "../db/schema";
import { asIndicator, parseStringList } from "./list";
import { slashTwin } from "../../shared/ioc/url";

/** Related indicators shown per relation; the page links to the full list. */
export const RELATED_LIMIT = 10;
/** At most this many addresses of a /24 are read to find its newest (a /24 holds at most 256 addresses, each with some ports). */
const SLASH24_SCAN = 2_000;
const DAY_MS = 86_400_000;

type RelatedRow = { id: number; type: string; value: string; last_seen: string | null; malware_family: string | null };

const toRelated = (rows: readonly RelatedRow[]): RelatedIndicator[] =>
  rows.map((row) => ({ type: row.type, value: row.value, display: defang(asIndicator(row)), lastSeen: row.last_seen, malwareFamily: row.malware_family }));

const RELATED_COLUMNS = ["indicators.id", "indicators.type", "indicators.value", "indicators.last_seen", "indicators.malware_family"] as const;

/** Newest first, undated last, as the lists order them. */
function newestFirst(a: RelatedRow, b: RelatedRow): number {
  if (a.last_seen !== b.last_seen) return a.last_seen === null ? 1 : b.last_seen === null ? -1 : a.last_seen > b.last_seen ? -1 : 1;
  return a.id - b.id;
}

async function countWhere(db: Kysely<Database>, column: "host" | "domain", key: string): Promise<number> {
  const row = await db
    .selectFrom("indicators")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where(column, "=", key)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Indicators that share a relation key (server/db/ioc-tables.ts): the newest
 * few by the key's index, the value that is the key itself, and how many
 * share it in all. Each is one index range; nothing is sorted but a handful.
 */
async function sharingKey(db: Kysely<Database>, column: "host" | "domain", key: string, selfId: number | null): Promise<{ rows: RelatedRow[]; total: number }> {
  const [newest, itself, total] = await Promise.all([
    db
      .selectFrom("indicators")
      .select(RELATED_COLUMNS)
      .where(column, "=", key)
      .orderBy(sql`indicators.last_seen desc nulls last, indicators.id asc`)
      .limit(RELATED_LIMIT + 1)
      .execute(),
    db.selectFrom("indicators").select(RELATED_COLUMNS).where("value", "=", key).where("type", "in", ["domain", "ipv4", "ipv6"]).execute(),
    countWhere(db, column, key),
  ]);
  const rows = [...itself, ...newest]
    .filter((row) => row.id !== selfId)
    .sort(newestFirst)
    .slice(0, RELATED_LIMIT);
  return { rows, total: total + itself.length - (selfId !== null && [...itself, ...newest].some((row) => row.id === selfId) ? 1 : 0) };
}

async function relatedGroups(db: Kysely<Database>, indicator: Indicator, selfId: number | null, malware: string | null): Promise<RelatedGroup[]> {
  const groups: Array<Promise<RelatedGroup>> = [];
  if (malware) {
    const key = malware.toLowerCase();
    groups.push(
      Promise.all([
        db
          .selectFrom("indicators")
          .select(RELATED_COLUMNS)
          // Names the partial index's condition, so the family index serves the query.
          .where("indicators.malware_family", "is not", null)
          .where(sql`lower(indicators.malware_family)`, "=", key)
          .$if(selfId !== null, (qb) => qb.where("indicators.id", "!=", selfId ?? 0))
          .orderBy(sql`indicators.last_seen desc nulls last, indicators.id asc`)
          .limit(RELATED_LIMIT)
          .execute(),
        db
          .selectFrom("indicators")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("indicators.malware_family", "is not", null)
          .where(sql`lower(indicators.malware_family)`, "=", key)
          .executeTakeFirst(),
      ]).then(([rows, count]) => ({
        relation: "malware",
        key: malware,
        indicators: toRelated(rows),
        total: Math.max(0, Number(count?.n ?? 0) - (selfId !== null ? 1 : 0)),
        listSearch: iocListSearch({ malware }),
      })),
    );
  }
  if (indicator.type === "url" || indicator.type === "domain" || indicator.type === "email" || indicator.type === "ip:port") {
    const host = hostOf(indicator);
    if (host && host !== indicator.value) {
      groups.push(
        sharingKey(db, "host", host, selfId).then(({ rows, total }) => ({
          relation: "host",
          key: host,
          indicators: toRelated(rows),
          total,
          listSearch: iocListSearch({ host }),
        })),
      );
    }
    const domain = registrableDomain(indicator);
    if (domain && domain !== host) {
      groups.push(
        sharingKey(db, "domain", domain, selfId).then(({ rows, total }) => ({
          relation: "domain",
          key: domain,
          indicators: toRelated(rows),
          total,
          listSearch: iocListSearch({ domain }),
        })),
      );
    }
    if (indicator.type === "domain" && host === indicator.value) {
      groups.push(
        sharingKey(db, "host", indicator.value, selfId).then(({ rows, total }) => ({
          relation: "host",
          key: indicator.value,
          indicators: toRelated(rows),
          total,
          listSearch: iocListSearch({ host: indicator.value }),
        })),
      );
      const under = await sharingKey(db, "domain", indicator.value, selfId);
      if (under.total > 0)
        groups.push(
          Promise.resolve({
            relation: "domain",
            key: indicator.value,
            indicators: toRelated(under.rows),
            total: under.total,
            listSearch: iocListSearch({ domain: indicator.value }),
          }),
        );
    }
  }
  if (indicator.type === "ipv4" || indicator.type === "ip:port") {
    const range = ipv4Slash24(indicator.value);
    if (range) {
      const prefix = range.slice(0, range.lastIndexOf(".") + 1);
      // "1.2.3." ≤ value < "1.2.3/": the /24's addresses and ip:ports, one range of the value index.
      const upper = `${prefix.slice(0, -1)}/`;
      groups.push(
        db
          .selectFrom("indicators")
          .select(RELATED_COLUMNS)
          .where("value", ">=", prefix)
          .where("value", "<", upper)
          // Kept off the type index: SQLite otherwise reads every address through it (40–100 ms on
          // the full import, even for a /24 with no other address) instead of the value range (0.2 ms).
          .where(dialectOf(db).withoutIndex("indicators.type"), "in", ["ipv4", "ip:port"])
          .limit(SLASH24_SCAN)
          .execute()
          .then((rows) => {
            const others = rows.filter((row) => row.id !== selfId);
            return {
              relation: "slash24",
              key: range,
              indicators: toRelated(others.sort(newestFirst).slice(0, RELATED_LIMIT)),
              total: others.length,
              listSearch: "",
            };
          }),
      );
    }
  }
  return Promise.all(groups);
}

function activityWindows(sightings: IocSightingView[], now: Date): IocActivityWindow[] {
  return Object.values(SEEN_WINDOWS).map((days) => {
    const since = now.getTime() - days * DAY_MS;
    // The publishers' times only: an undated listing is not activity.
    const sources = sightings
      .filter((s) => {
        const time = Date.parse(s.lastSeen ?? s.firstSeen ?? "");
        return !Number.isNaN(time) && time >= since && time <= now.getTime();
      })
      .map((s) => s.source);
    return { days, sources: [...new Set(sources)].sort() };
  });
}

/**
 * Everything the detail page shows about an indicator, in any form it was
 * asked for: an ip:port a feed filed under its bare address shows that
 * address, with the port's sightings first. A value no feed reported still
 * gets its page (score "unknown", warninglist matches).
 */
export async function queryIocDetail(
  db: Kysely<Database>,
  read: IndicatorWithPort,
  matcher: WarninglistMatcher,
  completeLists: ReadonlyMap<string, string | null>,
  now: Date,
): Promise<IocDetailData> {
  const find = (indicator: Indicator) =>
    db.selectFrom("indicators").selectAll().where("value", "=", indicator.value).where("type", "=", indicator.type).executeTakeFirst();
  let indicator = read.indicator;
  let row = await find(indicator);
  const twin = slashTwin(indicator);
  if (!row && twin) {
    const twinRow = await find(twin);
    if (twinRow) {
      indicator = twin;
      row = twinRow;
    }
  }
  if (!row && read.address) {
    const address = await find(read.address);
    if (address) {
      indicator = read.address;
      row = address;
    }
  }
  const id = row ? Number(row.id) : null;
  const [sightingRows, cveRows] =
    id === null
      ? [[], []]
      : await Promise.all([
          db
            .selectFrom("indicator_sightings as s")
            .leftJoin("sighting_references as r", "r.id", "s.reference_id")
            .selectAll("s")
            .select("r.url")
            .where("s.indicator_id", "=", id)
            .orderBy("s.source")
            .orderBy("s.last_seen", "desc")
            .orderBy("s.variant")
            .execute(),
          db.selectFrom("indicator_cves").select("cve_id").distinct().where("indicator_id", "=", id).orderBy("cve_id").execute(),
        ]);
  const sightings: IocSightingView[] = sightingRows.map((s) => {
    const listedAt = completeLists.get(s.source) ?? null;
    return {
      source: s.source,
      port: s.port,
      rawValue: s.raw_value ?? indicator.value,
      firstSeen: s.first_seen,
      lastSeen: s.last_seen,
      listedSince: s.listed_since,
      stillListedAt: s.delisted_at === null ? listedAt : null,
      delistedAt: s.delisted_at,
      threatType: s.threat_type,
      malwareFamily: s.malware_family,
      tags: parseStringList(s.tags),
      confidence: s.confidence,
      reporter: s.reporter,
      reference: s.url,
    };
  });
  // The port that was asked for comes first.
  if (read.port !== null) sightings.sort((a, b) => Number(b.port === read.port) - Number(a.port === read.port));
  const matches = matcher.match(indicator);
  const descriptions = matches.length
    ? new Map(
        (
          await db
            .selectFrom("warninglists")
            .select(["name", "description"])
            .where(
              "name",
              "in",
              matches.map((m) => m.list),
            )
            .execute()
        ).map((l) => [l.name, l.description]),
      )
    : new Map<string, string | null>();
  const related = await relatedGroups(db, indicator, id, row?.malware_family ?? null);
  const stillListed =
    sightings
      .map((s) => s.stillListedAt)
      .filter((t): t is string => t !== null)
      .sort()
      .at(-1) ?? null;
  return {
    type: indicator.type,
    value: indicator.value,
    display: defang(indicator),
    known: row !== undefined,
    requested: indicator.value !== read.indicator.value || read.port !== null ? { value: read.indicator.value, port: read.port } : null,
    summary: row
      ? {
          firstSeen: row.first_seen,
          lastSeen: row.last_seen,
          listedSince: row.listed_since,
          stillListedAt: stillListed,
          threatType: row.threat_type,
          malwareFamily: row.malware_family,
          tags: [...new Set(sightings.flatMap((s) => s.tags))],
          sources: [...new Set(sightings.map((s) => s.source))].sort(),
          confidence: row.confidence,
        }
      : null,
    score: scoreIndicator(sightings, now, matches.length > 0),
    sightings,
    activity: activityWindows(sightings, now),
    related: related.filter((group) => group.indicators.length > 0),
    cves: cveRows.map((c) => c.cve_id),
    warninglists: matches.map((m) => ({ list: m.list, type: m.type, entry: m.entry, description: descriptions.get(m.list) ?? null })),
    generatedAt: now.toISOString(),
  };
}
