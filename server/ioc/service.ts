import type { Kysely } from "kysely";
import type { Indicator } from "../../shared/ioc/types";
import type { WarninglistMatcher } from "../../shared/ioc/warninglist-match";
import type { IocDetailData } from "../../shared/ioc-radar/detail-types";
import { IOC_PAGE_SIZE_DEFAULT, iocListSearch, type IocListParams } from "../../shared/ioc-radar/list-params";
import type { IocChartStats, IocFacets, IocListPage } from "../../shared/ioc-radar/list-types";
import type { SourceStatus } from "../../shared/types/sources";
import { querySourceStatuses } from "../api/sources";
import { LOOKUP_MAX_INDICATORS, type LookupResponse } from "../../shared/ioc-radar/lookup-types";
import { chooseScan } from "../db/scan";
import type { Database } from "../db/schema";
import { createVersionedCache, type DataVersion } from "../db/versioned-cache";
import { queryIocDetail } from "./detail";
import { countIndicators, queryIndicatorRows, toListPage, toListRows } from "./list";
import type { Extract } from "./extract-pool";
import { lookupIndicators } from "./lookup";
import { queryIocStats } from "./stats";
import { loadWarninglistMatcher } from "./warninglists";

/** Feeds of the IOC radar, in the order the page lists their freshness. */
export const IOC_SOURCES = ["feodotracker", "malwarebazaar", "urlhaus", "threatfox", "tweetfeed", "maltrail", "signature-base", "misp-warninglists"];

export interface IocService {
  list(params: IocListParams, now: Date): Promise<IocListPage>;
  stats(params: IocListParams, now: Date): Promise<IocChartStats>;
  detail(indicator: Indicator, now: Date): Promise<IocDetailData>;
  lookup(text: string, now: Date): Promise<LookupResponse>;
  freshness(now: Date): Promise<SourceStatus[]>;
  facets(): Promise<IocFacets>;
  matcher(): Promise<WarninglistMatcher>;
}

/** The part of a view that decides its row set, plus the day it is relative to when it has a "seen within" window. */
function filterKey(params: IocListParams, now: Date): string {
  const search = iocListSearch({ ...params, page: undefined, per_page: undefined, sort: undefined, dir: undefined });
  return params.seen ? `${search}@${now.toISOString().slice(0, 13)}` : search;
}

/**
 * The IOC radar's queries. Counts, chart statistics, facets and the
 * warninglist matcher are cached per data version (the sources' newest
 * successful import), like the CVE radar's; a page of rows is read fresh.
 * A "seen within" view is cached per hour of the clock.
 */
export function createIocService(db: Kysely<Database>, dataVersion: DataVersion, extract: Extract, cacheSize = 500): IocService {
  const cached = createVersionedCache(dataVersion, cacheSize);

  const matcher = () => cached("matcher", () => loadWarninglistMatcher(db));

  return {
    async list(params, now) {
      const count = (view: IocListParams) => cached(`count|${filterKey(view, now)}`, () => countIndicators(db, view, now));
      const [total, universe, lists] = await Promise.all([count(params), count({}), matcher()]);
      const pageEnd = (params.page ?? 1) * (params.per_page ?? IOC_PAGE_SIZE_DEFAULT);
      const scan = chooseScan({ matches: total, universe, pageEnd });
      const rows = await queryIndicatorRows(db, params, now, scan);
      return toListPage(params, await toListRows(db, rows, lists, now), total);
    },
    stats: (params, now) => cached(`stats|${filterKey(params, now)}`, () => queryIocStats(db, params, now)),
    detail: async (indicator, now) => queryIocDetail(db, indicator, await matcher(), now),
    lookup: async (text, now) => lookupIndicators(db, await extract(text, LOOKUP_MAX_INDICATORS + 1), await matcher(), now),
    freshness: async (now) =>
      (await querySourceStatuses(db, now))
        .filter((source) => IOC_SOURCES.includes(source.name) && source.status !== "never-run")
        .sort((a, b) => IOC_SOURCES.indexOf(a.name) - IOC_SOURCES.indexOf(b.name)),
    facets: () =>
      cached("facets", async () => {
        const [threatTypes, sources] = await Promise.all([
          db.selectFrom("indicators").select("threat_type").distinct().where("threat_type", "is not", null).orderBy("threat_type").execute(),
          db.selectFrom("indicator_sightings").select("source").distinct().orderBy("source").execute(),
        ]);
        return { threatTypes: threatTypes.map((r) => r.threat_type ?? ""), sources: sources.map((r) => r.source) };
      }),
    matcher,
  };
}
