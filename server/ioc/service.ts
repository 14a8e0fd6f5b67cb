import { sql, type Kysely } from "kysely";
import type { IndicatorWithPort } from "../../shared/ioc/detect";
import type { WarninglistMatcher } from "./warninglist-match";
import type { IocDetailData } from "../../shared/ioc-radar/detail-types";
import { IOC_PAGE_SIZE_DEFAULT, iocListSearch, type IocListParams } from "../../shared/ioc-radar/list-params";
import type { IocChartStats, IocFacets, IocListPage } from "../../shared/ioc-radar/list-types";
import { LOOKUP_MAX_INDICATORS, type LookupResponse } from "../../shared/ioc-radar/lookup-types";
import type { SourceStatus } from "../../shared/types/source-status";
import { dialectOf } from "../db/dialect";
import { chooseScan, chooseScanProbed, type Scan } from "../db/scan";
import type { Database } from "../db/schema";
import { createVersionedCache, type DataVersion, type VersionedCache } from "../db/versioned-cache";
import { querySourceStatuses } from "../sources/status";
import { queryIocDetail } from "./detail";
import type { Extract } from "./extract-pool";
import { filterIndexKeepsOrder, probesSource, valueIndexHoldsFilter, type FilterContext } from "./filters";
import { countIndicators, countWalkHits, queryIndicatorRows, toListPage, toListRows } from "./list";
import { lookupIndicators } from "./lookup";
import { queryIocStats } from "./stats";
import { loadWarninglistMatcher } from "./warninglists";
import { IOC_SOURCES } from "../db/data-domains";

export interface IocService {
  list(params: IocListParams, now: Date): Promise<IocListPage>;
  stats(params: IocListParams, now: Date): Promise<IocChartStats>;
  detail(read: IndicatorWithPort, now: Date): Promise<IocDetailData>;
  lookup(text: string, now: Date): Promise<LookupResponse>;
  freshness(now: Date): Promise<SourceStatus[]>;
  facets(): Promise<IocFacets>;
  matcher(): Promise<WarninglistMatcher>;
  /** What a filter of these parameters needs besides them. */
  filterContext(params: IocListParams): Promise<FilterContext>;
  /** Each complete-list feed's last successful import (when it last listed what it lists). */
  completeLists(): Promise<ReadonlyMap<string, string | null>>;
  /** How the list finds this view's page: walking the sort index or gathering the matches (the bench prints it). */
  scanFor(params: IocListParams, now: Date): Promise<Scan>;
}

/** The part of a view that decides its row set, plus the hour it is relative to when it has a "seen within" window. */
function filterKey(params: IocListParams, now: Date): string {
  const search = iocListSearch({ ...params, page: undefined, per_page: undefined, sort: undefined, dir: undefined });
  return params.seen ? `${search}@${now.toISOString().slice(0, 13)}` : search;
}

/**
 * How the list reads its page: off the filter's own index when that keeps
 * the order; by gathering one host's or one registrable domain's indicators
 * (their own indexes find them, and they are few: no-ip.biz, among the
 * largest, has 13,658, gathered and sorted in 2 ms on the full import) rather
 * than walking the sort index past every other indicator, undated tail
 * included (2.5 s for no-ip.biz); otherwise as chooseScan() weighs it.
 */
export function listScan(params: IocListParams, context: FilterContext, counts: { matches: number; universe: number; pageEnd: number }): Scan {
  if (gathersByDesign(params, context)) return "gather";
  return chooseScan(counts);
}

/** Whether the list gathers whatever the counts say (see listScan). */
function gathersByDesign(params: IocListParams, context: FilterContext): boolean {
  return filterIndexKeepsOrder(params, context) || Boolean(params.host || params.domain);
}

/**
 * The rows a walk along the sort index steps over at most: every indicator,
 * except where a filter is a range of that index, so the walk starts and
 * stops inside it: a "seen within" window in the last-seen order, the types
 * in the type order. Weighing the walk against the whole table there made
 * `tag=phishing&seen=30d` gather and sort its 6,249 matches (50–150 ms on the
 * full import) where the walk takes 1 ms, and `type=url` by type probe
 * 424,000 domains (170 ms) before the URLs.
 */
export function walkUniverseView(params: IocListParams): IocListParams {
  const sort = params.sort ?? "last_seen";
  if (params.seen && sort === "last_seen") return { seen: params.seen };
  if (params.type?.length && sort === "type") return { type: params.type };
  return {};
}

/** The source whose import writes the warninglists, and nothing else does. */
const WARNINGLISTS_SOURCE = "misp-warninglists";

/**
 * The warninglist matcher, built again only when the warninglists were
 * imported since (their source's last success moved): building it reads every
 * entry (269,049 on the full set, 310–480 ms), which every other feed's import
 * left unchanged, yet the first IOC view after each one paid for it.
 */
function warninglistMatcherCache(db: Kysely<Database>, cached: VersionedCache): () => Promise<WarninglistMatcher> {
  let current: { stamp: string; matcher: Promise<WarninglistMatcher> } | null = null;
  return async () => {
    const stamp = await cached("warninglists-imported", async () => {
      const row = await db.selectFrom("sources").select("last_success_at").where("name", "=", WARNINGLISTS_SOURCE).executeTakeFirst();
      return row?.last_success_at ?? "";
    });
    if (current?.stamp !== stamp) {
      const matcher = loadWarninglistMatcher(db);
      current = { stamp, matcher };
      matcher.catch(() => {
        if (current?.matcher === matcher) current = null;
      });
    }
    return current.matcher;
  };
}

/**
 * The IOC radar's queries. Counts, chart statistics and facets are cached per
 * data version, like the CVE radar's, and the warninglist matcher per import
 * of the warninglists; a page of rows is read fresh. A "seen within" view is
 * cached per hour of the clock.
 */
export function createIocService(db: Kysely<Database>, dataVersion: DataVersion, extract: Extract, cacheSize = 500): IocService {
  const cached = createVersionedCache(dataVersion, cacheSize);
  const dialect = dialectOf(db);
  const matcher = warninglistMatcherCache(db, cached);

  const facets = () =>
    cached("facets", async () => {
      const [threatTypes, families, sources] = await Promise.all([
        db.selectFrom("indicators").select("threat_type").distinct().where("threat_type", "is not", null).orderBy("threat_type").execute(),
        db
          .selectFrom("indicators")
          .select(sql<string>`lower(malware_family)`.as("family"))
          .distinct()
          .where("malware_family", "is not", null)
          .execute(),
        db.selectFrom("sources").select("name").where("record_count", ">", 0).orderBy("name").execute(),
      ]);
      return {
        threatTypes: threatTypes.map((r) => r.threat_type ?? ""),
        families: families.map((r) => r.family),
        sources: sources.map((r) => r.name).filter((name) => IOC_SOURCES.includes(name) && name !== WARNINGLISTS_SOURCE),
      };
    });

  /** The family keys a malware filter stands for: the family itself and the families it is an alias of. */
  const familyKeysOf = (name: string) =>
    cached(`malware-keys|${name.toLowerCase()}`, async () => {
      const key = name.toLowerCase();
      const aliased = await db
        .selectFrom("family_aliases")
        .select("family_key")
        .distinct()
        .where(sql<string>`lower(alias)`, "=", key)
        .execute();
      return [...new Set([key, ...aliased.map((row) => row.family_key)])];
    });

  /** The family keys a tag also matches: the families it is an alias of (family_aliases.alias is stored as the tag is). */
  const tagFamiliesOf = (tag: string) =>
    cached(`tag-families|${tag}`, async () => {
      const rows = await db.selectFrom("family_aliases").select("family_key").distinct().where("alias", "=", tag).execute();
      return rows.map((row) => row.family_key);
    });

  /** A tag's id by its name, null when there is none (see SqlDialect.resolvesKeysFirst). */
  const tagIdOf = (tag: string) =>
    cached(`tag-id|${tag}`, async () => {
      const row = await db.selectFrom("tags").select("id").where("name", "=", tag).executeTakeFirst();
      return row ? Number(row.id) : null;
    });

  const filterContext = async (params: IocListParams): Promise<FilterContext> => {
    const [malwareKeys, tagFamilies, tagId] = await Promise.all([
      params.malware ? familyKeysOf(params.malware) : [],
      params.tag ? tagFamiliesOf(params.tag) : [],
      params.tag && dialect.resolvesKeysFirst ? tagIdOf(params.tag) : undefined,
    ]);
    if (!params.q) return { dialect, families: [], threatTypes: [], malwareKeys, tagFamilies, tagId };
    const needle = params.q.toLowerCase();
    const { threatTypes, families } = await facets();
    return {
      dialect,
      families: families.filter((family) => family.includes(needle)),
      threatTypes: threatTypes.filter((threatType) => threatType.toLowerCase().includes(needle)),
      malwareKeys,
      tagFamilies,
      tagId,
    };
  };

  const completeLists = () =>
    cached("complete-lists", async () => {
      const rows = await db.selectFrom("sources").select(["name", "last_success_at"]).where("complete_list", "=", 1).execute();
      return new Map(rows.map((row) => [row.name, row.last_success_at]));
    });

  const count = (view: IocListParams, now: Date, context: FilterContext) =>
    cached(`count|${filterKey(view, now)}`, () => countIndicators(db, view, now, context));

  // As listScan(), with a probe of the sort index's front where the counts say gather
  // (sha256 by first seen, oldest first: the hashes are among the oldest indicators).
  const scanFor = async (params: IocListParams, now: Date): Promise<Scan> => {
    const context = await filterContext(params);
    if (gathersByDesign(params, context)) return "gather";
    const [matches, universe] = await Promise.all([count(params, now, context), count(walkUniverseView(params), now, context)]);
    const pageEnd = (params.page ?? 1) * (params.per_page ?? IOC_PAGE_SIZE_DEFAULT);
    const hitsWithin = (cap: number, enough: number) =>
      cached(`walk-hits|${filterKey(params, now)}|${params.sort ?? ""}|${params.dir ?? ""}|${cap}|${enough}`, () =>
        countWalkHits(db, params, walkUniverseView(params), now, context, cap, enough),
      );
    return chooseScanProbed({ matches, universe, pageEnd, probing: valueIndexHoldsFilter(params) }, hitsWithin);
  };

  // Whether the page's source filter probes rows (see probesSource), from counts the statistics tables answer.
  const probeSourceFor = async (params: IocListParams, now: Date, context: FilterContext): Promise<boolean> => {
    if (!params.source || !filterIndexKeepsOrder(params, context)) return false;
    const [matches, alongIndex, sourceSize] = await Promise.all([
      count(params, now, context),
      count({ ...params, source: undefined }, now, context),
      count({ source: params.source }, now, context),
    ]);
    return probesSource({ matches, alongIndex, sourceSize, pageEnd: (params.page ?? 1) * (params.per_page ?? IOC_PAGE_SIZE_DEFAULT) });
  };

  return {
    scanFor,
    async list(params, now) {
      const context = await filterContext(params);
      const [total, scan, lists, listed, probeSource] = await Promise.all([
        count(params, now, context),
        scanFor(params, now),
        matcher(),
        completeLists(),
        probeSourceFor(params, now, context),
      ]);
      const rows = await queryIndicatorRows(db, params, now, { ...context, probeSource }, scan);
      return toListPage(params, await toListRows(db, rows, lists, listed, now), total);
    },
    stats: async (params, now) => {
      const context = await filterContext(params);
      return cached(`stats|${filterKey(params, now)}`, () => queryIocStats(db, params, now, context));
    },
    detail: async (read, now) => queryIocDetail(db, read, await matcher(), await completeLists(), now),
    lookup: async (text, now) => lookupIndicators(db, await extract(text, LOOKUP_MAX_INDICATORS + 1), await matcher(), now),
    freshness: async (now) =>
      (await querySourceStatuses(db, now))
        .filter((source) => IOC_SOURCES.includes(source.name) && source.status !== "never-run")
        .sort((a, b) => IOC_SOURCES.indexOf(a.name) - IOC_SOURCES.indexOf(b.name)),
    facets: async () => {
      const { threatTypes, sources } = await facets();
      return { threatTypes, sources };
    },
    matcher,
    filterContext,
    completeLists,
  };
}
