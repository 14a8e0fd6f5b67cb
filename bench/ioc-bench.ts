import { extractIndicators } from "../shared/ioc/extract";
import { sql, type Kysely } from "kysely";
import type { Database } from "../server/db/schema";
import { countIndicators, queryIndicatorRows } from "../server/ioc/list";
import { createIocService } from "../server/ioc/service";
import { queryIocStats } from "../server/ioc/stats";
import { defang } from "../shared/ioc/defang";
import type { IndicatorType } from "../shared/ioc/types";
import { iocListParamsSchema, type IocListParams } from "../shared/ioc-radar/list-params";
import { LOOKUP_MAX_INDICATORS } from "../shared/ioc-radar/lookup-types";
import { parseQuery } from "../shared/query/params";
import { latencyRow, measure, ms, printTable, timeOnce } from "./http-bench";

/** The clock the IOC scenarios run with: a day after the newest sighting, so "seen within" windows hold data as on a live site. */
export async function iocBenchClock(db: Kysely<Database>): Promise<Date> {
  const row = await db.selectFrom("indicators").select((eb) => eb.fn.max("seen_at").as("newest")).executeTakeFirst();
  const newest = row?.newest ? new Date(row.newest) : new Date();
  return new Date(newest.getTime() + 24 * 3600 * 1000);
}

async function mostCommon(db: Kysely<Database>, column: "malware_family" | "threat_type"): Promise<string> {
  const { rows } = await sql<{ value: string }>`
    select ${sql.ref(column)} as value from indicators where ${sql.ref(column)} is not null
    group by 1 order by count(*) desc limit 1`.execute(db);
  return rows[0]?.value ?? "";
}

async function topTag(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ tag: string }>`select tag from indicator_tags group by tag order by count(*) desc limit 1`.execute(db);
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
async function lookupText(db: Kysely<Database>): Promise<string> {
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

/** Where the IOC list's time goes, as for the CVE list (bench/cve-bench.ts). */
export async function iocQueryBreakdown(db: Kysely<Database>, now: Date): Promise<void> {
  const breakdown = [];
  for (const [name, query] of await listViews(db)) {
    const { params } = parseQuery(iocListParamsSchema, new URLSearchParams(query));
    const p = params as IocListParams;
    const service = createIocService(db, () => "bench", async (text, limit) => extractIndicators(text, limit));
    breakdown.push({
      view: name,
      "rows ms (gather)": ms(await timeOnce(() => queryIndicatorRows(db, p, now, "gather"))),
      "rows ms (walk)": ms(await timeOnce(() => queryIndicatorRows(db, p, now, "walk"))),
      "count ms (cold)": ms(await timeOnce(() => countIndicators(db, p, now))),
      "stats ms (cold)": ms(await timeOnce(() => queryIocStats(db, p, now))),
      "service ms (cold)": ms(await timeOnce(() => Promise.all([service.list(p, now), service.stats(p, now)]))),
      "service ms (cached)": ms(await timeOnce(() => Promise.all([service.list(p, now), service.stats(p, now)]))),
    });
  }
  printTable("Where the IOC list's time goes (one call each)", breakdown);
}

/** Server render of the IOC pages, latency of the IOC API and of a 10,000-indicator bulk lookup, over loopback. */
export async function iocHttp(db: Kysely<Database>, base: string, runs: number): Promise<void> {
  const views = await listViews(db);
  const details = await detailValues(db);
  const path = (value: string) => encodeURIComponent(value);

  const ssr = [];
  for (const [name, query] of views) ssr.push(await measure(`/ioc-radar ${name}`, `${base}/ioc-radar${query ? `?${query}` : ""}`, runs));
  for (const value of details) ssr.push(await measure(`/ioc-radar/${value.slice(0, 40)}`, `${base}/ioc-radar/${path(value)}`, runs));
  printTable("IOC radar: server render, whole HTML response (ms)", ssr.map((r) => ({ ...latencyRow("page")(r), "HTML bytes": r.bytes })));

  const api = [];
  for (const [name, query] of views) api.push(await measure(`/api/v1/iocs ${name}`, `${base}/api/v1/iocs${query ? `?${query}` : ""}`, runs));
  for (const [name, query] of views.slice(0, 3)) api.push(await measure(`/api/v1/iocs/stats ${name}`, `${base}/api/v1/iocs/stats${query ? `?${query}` : ""}`, runs));
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
