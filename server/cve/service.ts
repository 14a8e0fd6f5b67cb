import type { Kysely } from "kysely";
import { CVE_PAGE_SIZE_DEFAULT, cveListSearch, type CveListParams } from "../../shared/cve/list-params";
import type { CveChartStats, CveListPage } from "../../shared/cve/list-types";
import type { CveDetailData } from "../../shared/cve/detail-types";
import type { Database } from "../db/schema";
import { chooseScan, chooseScanProbed, type Scan } from "../db/scan";
import { createVersionedCache, type DataVersion } from "../db/versioned-cache";
import { queryCveDetail } from "./detail";
import { narrowsByRelatedRowsOnly } from "./filters";
import { countCves, countWalkHits, queryCveRows, toListPage } from "./list";
import { queryCveStats } from "./stats";
import { statsTableAnswers } from "./stats-table";

export interface CveService {
  list(params: CveListParams): Promise<CveListPage>;
  stats(params: CveListParams): Promise<CveChartStats>;
  detail(id: string, now: Date): Promise<CveDetailData | null>;
  /** How to find the rows of a filter up to `pageEnd` (server/db/scan.ts), from the cached counts. */
  scanFor(params: CveListParams, pageEnd: number): Promise<Scan>;
}

/** The part of a view that decides its row set: paging and order do not change counts or charts. */
function filterKey(params: CveListParams): string {
  return cveListSearch({ ...params, page: undefined, per_page: undefined, sort: undefined, dir: undefined });
}

/**
 * The CVE radar's queries. Counts and chart statistics scan many rows, and
 * the data only changes when an import finishes, so they are cached per
 * filter and invalidated by the sources' newest successful import; a page of
 * rows is always read fresh, by the plan the cached counts say is cheaper.
 */
export function createCveService(db: Kysely<Database>, dataVersion: DataVersion, cacheSize = 500): CveService {
  const cached = createVersionedCache(dataVersion, cacheSize);
  const count = (params: CveListParams) => cached(`count|${filterKey(params)}`, () => countCves(db, params));
  const scanFor = async (params: CveListParams, pageEnd: number) => {
    const [matches, universe] = await Promise.all([count(params), count({ state: params.state })]);
    // The probe's answer holds for the data version, like the counts it complements.
    const hitsWithin = (cap: number, enough: number) =>
      cached(`walk-hits|${cveListSearch({ ...params, page: undefined, per_page: undefined })}|${cap}|${enough}`, () => countWalkHits(db, params, cap, enough));
    return chooseScanProbed({ matches, universe, pageEnd, probing: narrowsByRelatedRowsOnly(params) }, hitsWithin);
  };
  return {
    async list(params) {
      const pageEnd = (params.page ?? 1) * (params.per_page ?? CVE_PAGE_SIZE_DEFAULT);
      const [total, scan] = await Promise.all([count(params), scanFor(params, pageEnd)]);
      const rows = await queryCveRows(db, params, scan);
      return toListPage(params, rows, total);
    },
    stats: (params) =>
      cached(`stats|${filterKey(params)}`, async () => {
        if (statsTableAnswers(params)) return queryCveStats(db, params);
        const [matches, universe] = await Promise.all([count(params), count({ state: params.state })]);
        return queryCveStats(db, params, chooseScan({ matches, universe, pageEnd: 1 }));
      }),
    detail: (id, now) => queryCveDetail(db, id, now),
    scanFor,
  };
}
