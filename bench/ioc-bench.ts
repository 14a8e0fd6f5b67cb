import { extractIndicators } from "../shared/ioc/extract";
import { sql, type Kysely } from "kysely";
import type { Database } from "../server/db/schema";
import type { Scan } from "../server/db/scan";
import { queryIocDetail } from "../server/ioc/detail";
import { countIndicators, INDICATOR_COLUMNS, orderedIndicators, queryIndicatorRows } from "../server/ioc/list";
import { createIocService } from "../server/ioc/service";
import { queryIocStats } from "../server/ioc/stats";
import { defang } from "../shared/ioc/defang";
import type { IndicatorType } from "../shared/ioc/types";
import { parseIndicator } from "../shared/ioc/detect";
import { IOC_PAGE_SIZE_DEFAULT, IOC_SORT_KEYS, iocListParamsSchema, type IocListParams } from "../shared/ioc-radar/list-params";
import { LOOKUP_MAX_INDICATORS } from "../shared/ioc-radar/lookup-types";
import { parseQuery } from "../shared/query/params";
import { latencyRow, measure, ms, printTable, timeOnce } from "./http-bench";
import { explainQueryPlan, openRecordingDatabase, planVerdict } from "./query-plan";

/**
 * The clock the IOC scenarios run with: a day after the newest publisher's
 * time (else the newest listing), so "seen within" windows hold data as on a
 * live site.
 */
export async function iocBenchClock(db: Kysely<Database>): Promise<Date> {
  const row = await db
    .selectFrom("indicators")
    .select((eb) => [eb.fn.max("last_seen").as("newest"), eb.fn.max("listed_since").as("listed")])
    .executeTakeFirst();
  const newestText = row?.newest ?? row?.listed;
  const newest = newestText ? new Date(newestText) : new Date();
  return new Date(newest.getTime() + 24 * 3600 * 1000);
}

async function mostCommon(db: Kysely<Database>, column: "malware_family" | "threat_type"): Promise<string> {
  const { rows } = await sql<{ value: string }>`
    select ${sql.ref(column)} as value from indicators where ${sql.ref(column)} is not null
    group by 1 order by count(*) desc limit 1`.execute(db);
  return rows[0]?.value ?? "";
}

async function topTag(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ tag: string }>`
    select min(t.name) as tag from indicator_tags it join tags t on t.id = it.tag_id group by it.tag_id order by count(*) desc limit 1`.execute(db);
  return rows[0]?.tag ?? "";
}

async function listViews(db: Kysely<Database>): Promise<Array<[string, string]>> {
  const family = await mostCommon(db, "malware_family");
  const tag = await topTag(db);
  const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
  return [
    ["default (last seen)", ""],
    ["seen within 7 d", "seen=7d"],
    ["type ipv4, by confidence", "type=ipv4&sort=confidence"],
    [`malware '${family}'`, q({ malware: family })],
    [`tag '${tag}', seen 30 d`, q({ tag, seen: "30d" })],
    ["source feodotracker", "source=feodotracker"],
    ["free text 'emotet'", "q=emotet"],
    ["sha256 by first seen asc, page 20", "type=sha256&sort=first_seen&dir=asc&page=20"],
  ];
}

/** One known value of each common type, plus a public resolver that no feed reports but a warninglist flags. */
async function detailValues(db: Kysely<Database>): Promise<string[]> {
  const values: string[] = [];
  for (const type of ["ipv4", "domain", "url", "sha256"] satisfies IndicatorType[]) {
    const row = await db.selectFrom("indicators").select("value").where("type", "=", type).orderBy("source_count", "desc").limit(1).executeTakeFirst();
    if (row) values.push(row.value);
  }
  return [...values, "8.8.8.8"];
}

/**
 * 10,000 indicators as an analyst pastes them: real values of every type
 * from the database, every other one defanged, with one in five made up (not
 * in any feed), one per line with some prose around them.
 */
export async function lookupText(db: Kysely<Database>): Promise<string> {
  const known = Math.round(LOOKUP_MAX_INDICATORS * 0.8);
  const rows = await db
    .selectFrom("indicators")
    .select(["type", "value"])
    .where("type", "in", ["ipv4", "domain", "url", "md5", "sha1", "sha256"])
    .orderBy(sql`(id * 2654435761) % 4294967296`)
    .limit(known)
    .execute();
  const lines = rows.map((row, i) => (i % 2 === 0 ? defang({ type: row.type as IndicatorType, value: row.value }) : row.value));
  for (let i = lines.length; i < LOOKUP_MAX_INDICATORS; i++) {
    lines.push(i % 2 === 0 ? `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` : `unseen-${i}.example[.]net`);
  }
  return `Indicators from the incident ticket:\n${lines.map((line) => `- ${line}`).join("\n")}\n`;
}

/**
 * Every page query of the list: the default order, each sort key both ways,
 * and each filter in the default order, with values common in the database.
 */
async function pageQueryViews(db: Kysely<Database>): Promise<Array<[string, string]>> {
  const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
  const views: Array<[string, string]> = [["default (last seen)", ""]];
  for (const sort of IOC_SORT_KEYS) for (const dir of ["desc", "asc"]) views.push([`sort ${sort} ${dir}`, q({ sort, dir })]);
  const common = async (column: "type" | "threat_type" | "malware_family" | "host" | "domain") => {
    const { rows } = await sql<{ value: string }>`
      select ${sql.ref(column)} as value from indicators where ${sql.ref(column)} is not null group by 1 order by count(*) desc limit 1`.execute(db);
    return rows[0]?.value ?? "";
  };
  const source = await sql<{ source: string }>`select source from indicator_sightings group by source order by count(*) desc limit 1`.execute(db);
  const filters: Record<string, string> = {
    type: await common("type"),
    threat_type: await common("threat_type"),
    malware: await common("malware_family"),
    tag: await topTag(db),
    source: source.rows[0]?.source ?? "",
    host: await common("host"),
    domain: await common("domain"),
    seen: "30d",
    q: "login",
  };
  for (const [key, value] of Object.entries(filters)) if (value) views.push([`${key} '${value.slice(0, 30)}'`, q({ [key]: value })]);
  // The largest source's most common type: read along the type's index, each row probed for the source (probesSource).
  if (filters.source && filters.type) views.push([`source '${filters.source}', type '${filters.type}'`, q({ source: filters.source, type: filters.type })]);
  const value = await db.selectFrom("indicators").select("value").where("type", "=", "ipv4").limit(1).executeTakeFirst();
  if (value) views.push([`q = an address`, q({ q: value.value })]);
  return views;
}

/**
 * Where the IOC list's time goes, as for the CVE list (bench/cve-bench.ts),
 * for every page query: a page of rows by each plan, the plan the service
 * picks, whether each plan walks an index in order (bench/query-plan.ts:
 * "TEMP B-TREE" when it sorts the matches, "SCAN indicators" when it reads
 * the table whole), then count, statistics and the whole service.
 */
export async function iocQueryBreakdown(db: Kysely<Database>, now: Date): Promise<void> {
  const breakdown = [];
  for (const [name, query] of await pageQueryViews(db)) {
    const { params } = parseQuery(iocListParamsSchema, new URLSearchParams(query));
    const p = params as IocListParams;
    const service = createIocService(
      db,
      () => "bench",
      async (text, limit) => extractIndicators(text, limit),
    );
    const context = await service.filterContext(p);
    const plan = async (scan: Scan) => {
      const perPage = p.per_page ?? IOC_PAGE_SIZE_DEFAULT;
      const page = orderedIndicators(db, p, now, context, scan)
        .select(INDICATOR_COLUMNS)
        .limit(perPage)
        .offset(((p.page ?? 1) - 1) * perPage);
      return planVerdict(await explainQueryPlan(db, page.compile()));
    };
    let total = 0;
    const countMs = await timeOnce(async () => {
      total = await countIndicators(db, p, now, context);
    });
    const rowsGather = ms(await timeOnce(() => queryIndicatorRows(db, p, now, context, "gather")));
    const rowsWalk = ms(await timeOnce(() => queryIndicatorRows(db, p, now, context, "walk")));
    const [planGather, planWalk] = [await plan("gather"), await plan("walk")];
    const statsCold = ms(await timeOnce(() => queryIocStats(db, p, now, context)));
    const serviceCold = ms(await timeOnce(() => Promise.all([service.list(p, now), service.stats(p, now)])));
    const serviceCached = ms(await timeOnce(() => Promise.all([service.list(p, now), service.stats(p, now)])));
    breakdown.push({
      view: name,
      matches: total,
      "rows ms (gather)": rowsGather,
      "rows ms (walk)": rowsWalk,
      // Asked after the timings: the answer comes from what the list call above cached.
      "service uses": await service.scanFor(p, now),
      "plan (gather)": planGather,
      "plan (walk)": planWalk,
      "count ms (cold)": ms(countMs),
      "stats ms (cold)": statsCold,
      "service ms (cold)": serviceCold,
      "service ms (cached)": serviceCached,
    });
  }
  printTable("Where the IOC list's time goes (one call each; plan: 'index' = walks an index in order)", breakdown);
}

/**
 * The detail page's queries (related by host, domain, family, /24) for a
 * URL on a subdomain, a registrable domain and an address: time of the whole
 * page's data, then each query's plan. Needs the database file: it reads
 * through a connection that records the statements it runs.
 */
export async function iocDetailBreakdown(db: Kysely<Database>, path: string, now: Date): Promise<void> {
  const picks = await Promise.all([
    db
      .selectFrom("indicators")
      .select("value")
      .where("type", "=", "url")
      .where(sql<boolean>`host != domain`)
      .orderBy("source_count", "desc")
      .limit(1)
      .executeTakeFirst(),
    db
      .selectFrom("indicators")
      .select("value")
      .where("type", "=", "domain")
      .where("domain", "is", null)
      .orderBy("source_count", "desc")
      .limit(1)
      .executeTakeFirst(),
    db.selectFrom("indicators").select("value").where("type", "=", "ipv4").orderBy("source_count", "desc").limit(1).executeTakeFirst(),
  ]);
  const recording = openRecordingDatabase(path);
  const service = createIocService(
    recording.db,
    () => "bench",
    async (text, limit) => extractIndicators(text, limit),
  );
  const matcher = await service.matcher();
  const completeLists = await service.completeLists();
  const rows = [];
  for (const pick of picks) {
    const read = pick && parseIndicator(pick.value);
    if (!read) continue;
    recording.take();
    const pageMs = await timeOnce(() => queryIocDetail(recording.db, read, matcher, completeLists, now));
    for (const query of recording.take().filter((q) => /from "indicators"/.test(q.sql))) {
      const started = performance.now();
      await recording.db.executeQuery(query);
      rows.push({
        indicator: pick.value.slice(0, 50),
        "page data ms": ms(pageMs),
        query: query.sql.replace(/^select .*? from "indicators"/, "…").slice(0, 70),
        ms: ms(performance.now() - started),
        plan: planVerdict(await explainQueryPlan(recording.db, query)),
      });
    }
  }
  await recording.close();
  printTable("IOC detail page: the queries on indicators (one call each, warm)", rows);
}

/** Server render of the IOC pages, latency of the IOC API and of a 10,000-indicator bulk lookup, over loopback. */
export async function iocHttp(db: Kysely<Database>, base: string, runs: number): Promise<void> {
  const views = await listViews(db);
  const details = await detailValues(db);
  const path = (value: string) => encodeURIComponent(value);

  const ssr = [];
  for (const [name, query] of views) ssr.push(await measure(`/ioc-radar ${name}`, `${base}/ioc-radar${query ? `?${query}` : ""}`, runs));
  for (const value of details) ssr.push(await measure(`/ioc-radar/${value.slice(0, 40)}`, `${base}/ioc-radar/${path(value)}`, runs));
  printTable(
    "IOC radar: server render, whole HTML response (ms)",
    ssr.map((r) => ({ ...latencyRow("page")(r), "HTML bytes": r.bytes })),
  );

  const api = [];
  for (const [name, query] of views) api.push(await measure(`/api/v1/iocs ${name}`, `${base}/api/v1/iocs${query ? `?${query}` : ""}`, runs));
  for (const [name, query] of views.slice(0, 3))
    api.push(await measure(`/api/v1/iocs/stats ${name}`, `${base}/api/v1/iocs/stats${query ? `?${query}` : ""}`, runs));
  for (const value of details) api.push(await measure(`/api/v1/iocs/${value.slice(0, 40)}`, `${base}/api/v1/iocs/${path(value)}`, runs));
  printTable("IOC API latency (ms)", api.map(latencyRow("endpoint")));

  const text = await lookupText(db);
  const init = { method: "POST", headers: { "content-type": "text/plain; charset=utf-8" }, body: text };
  const answer = (await (await fetch(`${base}/api/v1/iocs/lookup`, init)).json()) as { results: unknown[]; summary: unknown };
  const lookup = await measure("POST /api/v1/iocs/lookup", `${base}/api/v1/iocs/lookup`, Math.max(5, Math.round(runs / 20)), init, 1);
  printTable(`Bulk lookup of ${answer.results.length.toLocaleString("en-US")} indicators (${(text.length / 1024).toFixed(0)} KiB of text), ms`, [
    { ...latencyRow("request")(lookup), "response bytes": lookup.bytes },
  ]);
  console.log("Verdicts:", JSON.stringify(answer.summary));
}
