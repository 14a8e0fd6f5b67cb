import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import type { Database } from "../../server/db/schema";
import { CVE_SORT_KEYS } from "../../shared/cve/list-params";
import { canonicalIndicatorPath } from "../../shared/ioc/indicator-path";
import { IOC_SORT_KEYS } from "../../shared/ioc-radar/list-params";
import { PAYLOAD_FILE } from "../../shared/constants";

/**
 * What a URL of the mix exercises, for the per-kind table: the surface
 * (server-rendered page, client-navigation payload, JSON API, export) and the
 * view. Details of indicators are split by type, since their related-row
 * queries differ per type.
 */
export type RouteKind = string;

export interface MixUrl {
  kind: RouteKind;
  path: string;
}

/** Exports in the mix are filtered down to at most this many rows, so that they weigh like a page and not like a dump. */
const EXPORT_ROWS_MAX = 1_000;
const WELL_KNOWN_CVE = "CVE-2021-44228";
/** CVE text is English prose: this phrase matches on any real data set without being picked from it. */
const CVE_PROSE = "remote code execution";

const query = (params: Record<string, string | number>) => {
  const search = new URLSearchParams(Object.entries(params).map(([key, value]) => [key, String(value)])).toString();
  return search ? `?${search}` : "";
};
const withQuery = (path: string, search: string) => `${path}${search}`;
const payloadOf = (path: string, search: string, buildId: string) =>
  `${path === "/" ? "" : path}/${PAYLOAD_FILE}?${buildId}${search ? `&${search.slice(1)}` : ""}`;

async function first<T>(rows: Promise<{ rows: T[] }>): Promise<T | undefined> {
  return (await rows).rows[0];
}

/** CVE list views: the default order, each filter the radar offers, and every sort in both directions. */
async function cveListViews(db: Kysely<Database>): Promise<string[]> {
  const vendor = await first(
    sql<{ vendor: string }>`
    select vendor from cves where state = 'PUBLISHED' and vendor is not null group by vendor order by count(*) desc, vendor limit 1`.execute(db),
  );
  const cwe = await first(
    sql<{ cwe_id: string; n: number }>`
    select cwe_id, count(*) as n from cve_cwes where cwe_id like 'CWE-%' group by cwe_id order by n desc, cwe_id limit 1`.execute(db),
  );
  const newest = await db
    .selectFrom("cves")
    .select((eb) => eb.fn.max("date_published").as("at"))
    .executeTakeFirst();
  const filters = [
    query({}),
    query({ kev: 1 }),
    query({ severity: "critical", exploit: 1, sort: "epss" }),
    query({ q: CVE_PROSE }),
    vendor ? query({ vendor: vendor.vendor, sort: "published" }) : null,
    // A page well inside the CWE's matches, where the walk of the sort index is long.
    cwe ? query({ cwe: cwe.cwe_id, page: Math.max(1, Math.min(20, Math.floor(cwe.n / 25))) }) : null,
    newest?.at ? query({ ...monthBefore(newest.at), sort: "cvss", dir: "asc" }) : null,
  ].filter((search): search is string => search !== null);
  const sorts = CVE_SORT_KEYS.flatMap((sort) => [query({ sort, dir: "desc" }), query({ sort, dir: "asc" })]);
  return [...filters, ...sorts];
}

/** `published_from`/`published_to` spanning the month before the newest publication. */
function monthBefore(newestIso: string): { published_from: string; published_to: string } {
  const to = new Date(newestIso);
  const from = new Date(to.getTime() - 30 * 86_400_000);
  return { published_from: from.toISOString().slice(0, 10), published_to: to.toISOString().slice(0, 10) };
}

/** CVE detail pages: the best-known one if the data set knows it, the top of the radar, the record with the most references, the newest. */
async function cveDetailIds(db: Kysely<Database>): Promise<string[]> {
  const ids = await Promise.all([
    // Its page answers when any feed mentions it: the CVE snapshot may lack it while KEV lists it.
    first(
      sql<{ id: string }>`select id from cves where id = ${WELL_KNOWN_CVE} union select cve_id from kev_entries where cve_id = ${WELL_KNOWN_CVE}`.execute(db),
    ),
    first(sql<{ id: string }>`select id from cves where state = 'PUBLISHED' order by priority_score desc, id limit 1`.execute(db)),
    first(sql<{ id: string }>`select cve_id as id from cve_references group by cve_id order by count(*) desc, cve_id limit 1`.execute(db)),
    first(
      sql<{ id: string }>`select id from cves where state = 'PUBLISHED' and date_published is not null order by date_published desc, id limit 1`.execute(db),
    ),
  ]);
  return [...new Set(ids.filter((row) => row !== undefined).map((row) => row.id))];
}

interface IocPicks {
  family?: string;
  tag?: string;
  source?: string;
  ipv4?: string;
  host?: string;
  domain?: string;
}

/** The list's default order (server/ioc/list.ts ORDERINGS): the publishers' newest first, undated last. */
const NEWEST = sql.raw("last_seen desc nulls last, id asc");

async function iocPicks(db: Kysely<Database>): Promise<IocPicks> {
  const [family, tag, source, ipv4, host, domain] = await Promise.all([
    first(
      sql<{
        v: string;
      }>`select min(malware_family) as v from indicators where malware_family is not null group by lower(malware_family) order by count(*) desc, v limit 1`.execute(
        db,
      ),
    ),
    first(
      sql<{
        v: string;
      }>`select min(t.name) as v from indicator_tags it join tags t on t.id = it.tag_id group by it.tag_id order by count(*) desc, v limit 1`.execute(db),
    ),
    first(sql<{ v: string }>`select source as v from indicator_sightings group by source order by count(*) desc, source limit 1`.execute(db)),
    first(sql<{ v: string }>`select value as v from indicators where type = 'ipv4' order by ${NEWEST} limit 1`.execute(db)),
    first(sql<{ v: string }>`select host as v from indicators where host is not null group by host order by count(*) desc, v limit 1`.execute(db)),
    first(sql<{ v: string }>`select domain as v from indicators where domain is not null group by domain order by count(*) desc, v limit 1`.execute(db)),
  ]);
  return { family: family?.v, tag: tag?.v, source: source?.v, ipv4: ipv4?.v, host: host?.v, domain: domain?.v };
}

/** IOC list views: the default order, each filter, the seen windows, free text, and every sort in both directions. */
function iocListViews(picks: IocPicks): string[] {
  const filters = [
    query({}),
    query({ type: "ipv4", sort: "confidence" }),
    picks.family ? query({ malware: picks.family }) : null,
    picks.tag ? query({ tag: picks.tag, seen: "30d" }) : null,
    picks.source ? query({ source: picks.source }) : null,
    picks.host ? query({ host: picks.host }) : null,
    picks.domain ? query({ domain: picks.domain }) : null,
    query({ seen: "24h" }),
    query({ seen: "7d" }),
    query({ seen: "90d" }),
    // Part of a family name: the trigram "contains" search, not an exact indicator.
    picks.family && picks.family.length >= 4 ? query({ q: picks.family.slice(0, 5).toLowerCase() }) : null,
    picks.ipv4 ? query({ q: picks.ipv4 }) : null,
  ].filter((search): search is string => search !== null);
  const sorts = IOC_SORT_KEYS.flatMap((sort) => [query({ sort, dir: "desc" }), query({ sort, dir: "asc" })]);
  return [...filters, ...sorts];
}

/**
 * Indicators whose detail pages do the most work: the newest URL on the host
 * with the most URLs (and that host's own domain indicator), the newest name
 * under the registrable domain with the most names, and an address of the
 * /24 with the most addresses. Hosts and domains are the relation keys the
 * import stores (server/db/ioc-tables.ts).
 */
async function heavyIndicators(db: Kysely<Database>): Promise<Array<{ type: string; value: string }>> {
  const host = await first(
    sql<{ host: string }>`
    select host from indicators where type = 'url' and host is not null group by host order by count(*) desc, host limit 1`.execute(db),
  );
  const picks: Array<{ type: string; value: string } | undefined> = [];
  if (host) {
    picks.push(
      await first(
        sql<{ type: string; value: string }>`
        select type, value from indicators where host = ${host.host} and type = 'url' order by ${NEWEST} limit 1`.execute(db),
      ),
      await first(sql<{ type: string; value: string }>`select type, value from indicators where type = 'domain' and value = ${host.host}`.execute(db)),
    );
  }
  const parent = await first(
    sql<{ parent: string }>`
    select domain as parent from indicators where type = 'domain' and domain is not null group by domain order by count(*) desc, domain limit 1`.execute(db),
  );
  if (parent) {
    picks.push(
      await first(
        sql<{ type: string; value: string }>`
        select type, value from indicators where domain = ${parent.parent} and type = 'domain' order by ${NEWEST} limit 1`.execute(db),
      ),
    );
  }
  // Up to the last dot of an address is its /24 ("192.0.2."), with or without a port.
  const slash24 = await first(
    sql<{ prefix: string }>`
    select rtrim(value, replace(value, '.', '')) as prefix from indicators where type in ('ipv4', 'ip:port')
    group by prefix order by count(*) desc, prefix limit 1`.execute(db),
  );
  if (slash24) {
    picks.push(
      await first(
        sql<{ type: string; value: string }>`
        select type, value from indicators where type in ('ipv4', 'ip:port') and value >= ${slash24.prefix} and value < ${`${slash24.prefix}:`}
        order by ${NEWEST} limit 1`.execute(db),
      ),
    );
  }
  return picks.filter((pick) => pick !== undefined);
}

/** The newest indicator of every type present, then the heavy ones; each value once. */
async function iocDetailValues(db: Kysely<Database>): Promise<Array<{ type: string; value: string }>> {
  const types = await db.selectFrom("indicators").select("type").distinct().orderBy("type").execute();
  const newest = await Promise.all(
    types.map(({ type }) => db.selectFrom("indicators").select(["type", "value"]).where("type", "=", type).orderBy(NEWEST).limit(1).executeTakeFirstOrThrow()),
  );
  const all = [...newest, ...(await heavyIndicators(db))];
  return all.filter((pick, i) => all.findIndex((other) => other.value === pick.value && other.type === pick.type) === i);
}

/** A filter that selects at most EXPORT_ROWS_MAX rows: the most common KEV vendor that stays under it. */
async function boundedCveExport(db: Kysely<Database>): Promise<string | null> {
  const vendor = await first(
    sql<{ vendor: string }>`
    select vendor from cves where kev = 1 and vendor is not null group by vendor having count(*) <= ${EXPORT_ROWS_MAX}
    order by count(*) desc, vendor limit 1`.execute(db),
  );
  return vendor ? query({ kev: 1, vendor: vendor.vendor }) : null;
}

/** The largest malware family under EXPORT_ROWS_MAX indicators, with the type it has most of (blocklists list one type). */
async function boundedIocExport(db: Kysely<Database>): Promise<{ search: string; blocklist: string } | null> {
  const family = await first(
    sql<{ family: string }>`
    select min(malware_family) as family from indicators where malware_family is not null group by lower(malware_family)
    having count(*) <= ${EXPORT_ROWS_MAX} order by count(*) desc, family limit 1`.execute(db),
  );
  if (!family) return null;
  const type = await first(
    sql<{ type: string }>`
    select type from indicators where lower(malware_family) = ${family.family.toLowerCase()} group by type order by count(*) desc, type limit 1`.execute(db),
  );
  return { search: query({ malware: family.family }), blocklist: query({ malware: family.family, type: type?.type ?? "ipv4" }) };
}

/**
 * Every kind of URL the site answers, built from the database the server
 * reads, so the mix fits any data set: pages, their `_payload.json` (with the
 * build id, as client navigations send it), the JSON API, and bounded exports.
 */
export async function buildUrlMix(db: Kysely<Database>, buildId: string): Promise<MixUrl[]> {
  const [cveViews, cveIds, picks, iocValues, cveExport, iocExport] = await Promise.all([
    cveListViews(db),
    cveDetailIds(db),
    iocPicks(db),
    iocDetailValues(db),
    boundedCveExport(db),
    boundedIocExport(db),
  ]);
  const iocViews = iocListViews(picks);
  const iocPaths = iocValues
    .map(({ type, value }) => ({ type, value, page: canonicalIndicatorPath(value) }))
    .filter((ioc): ioc is { type: string; value: string; page: string } => ioc.page !== null);
  const mix: MixUrl[] = [];
  const add = (kind: RouteKind, path: string) => mix.push({ kind, path });

  add("page home", "/");
  for (const search of cveViews) add("page cve list", withQuery("/cve-radar", search));
  for (const id of cveIds) add("page cve details", `/cve-radar/${id}`);
  for (const search of iocViews) add("page ioc list", withQuery("/ioc-radar", search));
  for (const ioc of iocPaths) add(`page ioc details ${ioc.type}`, ioc.page);

  // Client navigations: one payload per page kind, plus the filtered lists.
  add("payload home", payloadOf("/", "", buildId));
  for (const search of cveViews.slice(0, 4)) add("payload cve list", payloadOf("/cve-radar", search, buildId));
  for (const id of cveIds.slice(0, 2)) add("payload cve details", payloadOf(`/cve-radar/${id}`, "", buildId));
  for (const search of iocViews.slice(0, 4)) add("payload ioc list", payloadOf("/ioc-radar", search, buildId));
  for (const ioc of iocPaths) add("payload ioc details", payloadOf(ioc.page, "", buildId));

  for (const search of cveViews) add("api cve list", withQuery("/api/v1/cves", search));
  for (const search of cveViews.slice(0, 4)) add("api cve stats", withQuery("/api/v1/cves/stats", search));
  for (const id of cveIds) add("api cve details", `/api/v1/cves/${id}`);
  for (const search of iocViews) add("api ioc list", withQuery("/api/v1/iocs", search));
  for (const search of iocViews.slice(0, 4)) add("api ioc stats", withQuery("/api/v1/iocs/stats", search));
  for (const ioc of iocPaths) add("api ioc details", `/api/v1/iocs/${encodeURIComponent(ioc.value)}`);
  add("api sources", "/api/v1/sources");

  if (cveExport) {
    add("export cve csv", withQuery("/api/v1/cves/export.csv", cveExport));
    add("export cve json", withQuery("/api/v1/cves/export.json", cveExport));
    add("export cve atom", withQuery("/api/v1/cves/feed.atom", cveExport));
  }
  if (iocExport) {
    add("export ioc csv", withQuery("/api/v1/iocs/export.csv", iocExport.search));
    add("export ioc json", withQuery("/api/v1/iocs/export.json", iocExport.search));
    add("export ioc stix", withQuery("/api/v1/iocs/export.stix.json", iocExport.search));
    add("export ioc blocklist", withQuery("/api/v1/iocs/blocklist.txt", iocExport.blocklist));
    add("export ioc atom", withQuery("/api/v1/iocs/feed.atom", iocExport.search));
  }
  return mix;
}

/** How many URLs of each kind, in the mix's order. */
export function mixSummary(mix: readonly MixUrl[]): Array<{ kind: RouteKind; urls: number }> {
  const counts = new Map<RouteKind, number>();
  for (const url of mix) counts.set(url.kind, (counts.get(url.kind) ?? 0) + 1);
  return [...counts].map(([kind, urls]) => ({ kind, urls }));
}

/** The mix of a SQLite file, read through a read-only connection of its own. */
export async function readSqliteUrlMix(databasePath: string, buildId: string): Promise<MixUrl[]> {
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SQLite(databasePath, { readonly: true }) }) });
  try {
    return await buildUrlMix(db, buildId);
  } finally {
    await db.destroy();
  }
}
