import { sql, type Kysely, type Selectable, type SqlBool } from "kysely";
import { dialectOf } from "../db/dialect";
import { CVE_PAGE_SIZE_DEFAULT, type CveListParams, type CveSortKey } from "../../shared/cve/list-params";
import type { CveListPage, CveListRow } from "../../shared/cve/list-types";
import type { CvesTable, Database } from "../db/schema";
import type { Scan } from "../db/scan";
import { countFrontHits } from "../db/walk-probe";
import { cveFilter, cweRowCounts, filtersByCweOnly, narrowsByRelatedRowsOnly, otherStateKeys } from "./filters";
import { countFromStatsTable, statsTableAnswers } from "./stats-table";

const SORT_COLUMNS = {
  priority: "cves.priority_score",
  published: "cves.date_published",
  updated: "cves.date_updated",
  cvss: "cves.cvss_score",
  epss: "cves.epss",
  exploits: "cves.exploit_count",
  kev_added: "cves.kev_date_added",
  kev_due: "cves.kev_due_date",
} as const satisfies Record<CveSortKey, `cves.${keyof CvesTable}`>;

export const LIST_COLUMNS = [
  "cves.id",
  "cves.state",
  "cves.has_record",
  "cves.title",
  "cves.description",
  "cves.vendor",
  "cves.product",
  "cves.cvss_score",
  "cves.cvss_severity",
  "cves.cvss_version",
  "cves.cvss_source",
  "cves.epss",
  "cves.epss_percentile",
  "cves.epss_7d_ago",
  "cves.kev",
  "cves.kev_date_added",
  "cves.kev_due_date",
  "cves.kev_ransomware",
  "cves.exploit_count",
  "cves.date_published",
  "cves.date_updated",
  "cves.priority_score",
] as const;

type ListColumns = Pick<
  Selectable<CvesTable>,
  | "id"
  | "state"
  | "has_record"
  | "title"
  | "description"
  | "vendor"
  | "product"
  | "cvss_score"
  | "cvss_severity"
  | "cvss_version"
  | "cvss_source"
  | "epss"
  | "epss_percentile"
  | "epss_7d_ago"
  | "kev"
  | "kev_date_added"
  | "kev_due_date"
  | "kev_ransomware"
  | "exploit_count"
  | "date_published"
  | "date_updated"
  | "priority_score"
>;

function firstLine(text: string | null): string {
  const line = (text ?? "").split(/\r?\n/)[0]?.trim() ?? "";
  return line.length > 240 ? `${line.slice(0, 237)}…` : line;
}

export function toListRow(row: ListColumns): CveListRow {
  return {
    id: row.id,
    state: row.state,
    hasRecord: row.has_record === 1,
    title: row.title?.trim() || firstLine(row.description),
    vendor: row.vendor,
    product: row.product,
    cvss: row.cvss_score === null ? null : { score: row.cvss_score, severity: row.cvss_severity ?? "NONE", version: row.cvss_version, source: row.cvss_source },
    epss:
      row.epss === null
        ? null
        : {
            score: row.epss,
            percentile: row.epss_percentile,
            change7d: row.epss_7d_ago === null ? null : Math.round((row.epss - row.epss_7d_ago) * 1e5) / 1e5,
          },
    kev: row.kev ? { dateAdded: row.kev_date_added, dueDate: row.kev_due_date, ransomware: row.kev_ransomware === 1 } : null,
    exploitCount: row.exploit_count,
    published: row.date_published,
    updated: row.date_updated,
    priority: row.priority_score,
  };
}

export function sortOf(params: CveListParams): { sort: CveSortKey; dir: "asc" | "desc" } {
  return { sort: params.sort ?? "priority", dir: params.dir ?? "desc" };
}

/**
 * A select of the filtered CVEs in the requested order. The id breaks ties so
 * pages never overlap or skip a row; it runs against the sort direction
 * because the sort indexes are "<column> desc, id asc", walked either way.
 * Missing values (no EPSS score, no CVSS) come last whichever way a column
 * is sorted.
 *
 * A gathered page's sort column is kept from its index (SqlDialect.withoutIndex):
 * given a LIMIT, SQLite walked the sort index anyway, whatever the service
 * chose. `cvss_min=9` by ascending priority stepped over most of the 361,109
 * CVEs of the full import to find its 5,237 at the far end (280–340 ms, where
 * gathering them through the CVSS index and sorting takes a few).
 */
export function orderedCves(db: Kysely<Database>, params: CveListParams, scan: Scan = "gather") {
  const { sort, dir } = sortOf(params);
  const dialect = dialectOf(db);
  const walkAlong = scan === "walk" ? SORT_COLUMNS[sort] : undefined;
  const column = walkAlong ? sql.ref(walkAlong) : dialect.withoutIndex(SORT_COLUMNS[sort]);
  return db
    .selectFrom("cves")
    .where((eb) => cveFilter(eb, params, dialect, walkAlong))
    .orderBy(sql`${column} ${sql.raw(dir)} nulls last, cves.id ${sql.raw(dir === "desc" ? "asc" : "desc")}`);
}

/**
 * The ids of one page of a list filtered by a CWE alone, by priority: a range of
 * `cve_cwes_priority_idx` (cwe_id, priority desc, cve_id, source), in the list's order (migration
 * 0015 copies each CVE's priority into its CWE rows). A CVE that several sources file under the
 * CWE has a row from each, next to each other in the index: `distinct` keeps one. `priority` is
 * never NULL, so the plain directions match the index both ways (the id runs against the sort).
 */
function cwePageKeys(db: Kysely<Database>, params: CveListParams & { cwe: string }, perPage: number, offset: number) {
  const { dir } = sortOf(params);
  let keys = db
    .selectFrom("cve_cwes")
    .select(["cve_cwes.priority", "cve_cwes.cve_id"])
    .distinct()
    .where("cve_cwes.cwe_id", "=", params.cwe)
    .where(cweRowCounts(dialectOf(db)));
  if ((params.state ?? "published") === "published") {
    // The few CVEs in another state, as cveFilter excludes them (by id: all this index holds of a CVE).
    keys = keys.where("cve_cwes.cve_id", "not in", (eb) => otherStateKeys(eb, "id"));
  }
  return keys
    .orderBy("cve_cwes.priority", dir)
    .orderBy("cve_cwes.cve_id", dir === "desc" ? "asc" : "desc")
    .limit(perPage)
    .offset(offset);
}

/** The statement that reads one page of the list, found by `scan`. */
export function cvePageQuery(db: Kysely<Database>, params: CveListParams, scan: Scan = "gather") {
  const perPage = params.per_page ?? CVE_PAGE_SIZE_DEFAULT;
  const offset = ((params.page ?? 1) - 1) * perPage;
  if (params.cwe && sortOf(params).sort === "priority" && filtersByCweOnly(params)) {
    // Whatever the scan: the index range reads the page's keys and those before it, nothing else.
    const keys = db.selectFrom(cwePageKeys(db, { ...params, cwe: params.cwe }, perPage, offset).as("page")).select("page.cve_id");
    return orderedCves(db, { state: "all", sort: params.sort, dir: params.dir }).where("cves.id", "in", keys).select(LIST_COLUMNS);
  }
  if (scan === "walk" && dialectOf(db).walksKeysFirst && narrowsByRelatedRowsOnly(params)) {
    // The page's keys from the sort index alone (each step tests only the id it holds, and probes the
    // related table's index), then just those rows (SqlDialect.walksKeysFirst).
    const keys = orderedCves(db, params, "walk").select("cves.id").limit(perPage).offset(offset);
    return orderedCves(db, { state: "all", sort: params.sort, dir: params.dir }).where("cves.id", "in", keys).select(LIST_COLUMNS);
  }
  return orderedCves(db, params, scan).select(LIST_COLUMNS).limit(perPage).offset(offset);
}

export async function queryCveRows(db: Kysely<Database>, params: CveListParams, scan: Scan = "gather"): Promise<CveListRow[]> {
  const rows = await cvePageQuery(db, params, scan).execute();
  return rows.map(toListRow);
}

/** The filters on each sort column itself: a walk along its index starts and stops at their range. */
const SORT_COLUMN_FILTERS: Record<CveSortKey, ReadonlyArray<keyof CveListParams>> = {
  priority: [],
  published: ["published_from", "published_to"],
  updated: ["updated_from", "updated_to"],
  cvss: ["cvss_min", "cvss_max"],
  epss: ["epss_min", "epss_max"],
  exploits: ["exploit"],
  kev_added: [],
  kev_due: [],
};

/** What a walk of the list steps over: its state's CVEs, within the range its filters put on the sort column. */
function walkUniverse(params: CveListParams): CveListParams {
  const { sort } = sortOf(params);
  const range = Object.fromEntries(SORT_COLUMN_FILTERS[sort].map((key) => [key, params[key]]));
  return { ...range, state: params.state, sort: params.sort, dir: params.dir };
}

/**
 * How many of the first `cap` CVEs a walk of the list steps over (its
 * state's, along the sort index, from where the filters' range of the sort
 * column starts) match the filter, up to `enough`: the probe of
 * server/db/scan.ts's chooseScanProbed. At most `cap` index steps, whatever
 * the filter.
 */
export async function countWalkHits(db: Kysely<Database>, params: CveListParams, cap: number, enough: number): Promise<number> {
  const { sort } = sortOf(params);
  const dialect = dialectOf(db);
  const front = orderedCves(db, walkUniverse(params), "walk")
    .select((eb) => sql<SqlBool>`${cveFilter(eb, params, dialect, SORT_COLUMNS[sort])}`.as("hit"))
    .limit(cap);
  return countFrontHits(db, front, enough);
}

/** How many CVEs a filter matches: from the statistics table where it answers the filter. */
export function countCves(db: Kysely<Database>, params: CveListParams): Promise<number> {
  return statsTableAnswers(params) ? countFromStatsTable(db, params) : countMatchingCves(db, params);
}

/** How many CVEs a filter matches, counted on the CVEs themselves. */
export async function countMatchingCves(db: Kysely<Database>, params: CveListParams): Promise<number> {
  const { total } = await db
    .selectFrom("cves")
    .where((eb) => cveFilter(eb, params, dialectOf(db)))
    .select((eb) => eb.fn.countAll<number>().as("total"))
    .executeTakeFirstOrThrow();
  return Number(total);
}

export function toListPage(params: CveListParams, rows: CveListRow[], total: number): CveListPage {
  const perPage = params.per_page ?? CVE_PAGE_SIZE_DEFAULT;
  return {
    rows,
    total,
    page: params.page ?? 1,
    perPage,
    pageCount: Math.max(1, Math.ceil(total / perPage)),
    ...sortOf(params),
  };
}
