import { sql, type Kysely } from "kysely";
import type { Database } from "../server/db/schema";

/**
 * Synthetic indicators in schema 2, shaped like what the real feeds give
 * (measured on the snapshot imports; bench/generate.ts step 3):
 *
 * - types: about a third URLs, a fifth domains, then IPv4 addresses, hashes
 *   and a few ip:port pairs;
 * - 1 to 3 sightings per indicator, each from a different feed that lists
 *   that type. Maltrail, signature-base and MalwareBazaar's hash list give
 *   no dates, so about a quarter of the indicators are undated (last_seen
 *   null); the dated ones are skewed towards recent weeks, over two years;
 * - relation keys as the importer sets them: a URL's host and registrable
 *   domain, a subdomain's registrable domain, an ip:port's address. Hosts and
 *   domains are drawn with a skew, so a few domains carry thousands of URLs
 *   (as duckdns.org or a bulletproof host do) and most carry a handful;
 *   addresses cluster in a few thousand /24s;
 * - malware families and tags drawn with a skew from pools of a few hundred
 *   (tags through `tags`/`indicator_tags` by tag_id); threat types per type;
 *   confidence only where ThreatFox saw it; a few CVE links.
 *
 * Random, not reproducible: runs differ in values, not in shape.
 */

/** Feeds that list each type, first the one most likely to be the first sighting. */
const PROFILES: Array<{ type: string; share: number; sources: string[] }> = [
  { type: "url", share: 35, sources: ["urlhaus", "threatfox", "tweetfeed"] },
  { type: "domain", share: 20, sources: ["maltrail", "threatfox", "tweetfeed"] },
  { type: "ipv4", share: 15, sources: ["feodotracker", "threatfox", "maltrail", "tweetfeed"] },
  { type: "ip:port", share: 5, sources: ["threatfox", "feodotracker"] },
  { type: "sha256", share: 12, sources: ["malwarebazaar", "threatfox", "tweetfeed", "signature-base"] },
  { type: "md5", share: 9, sources: ["malwarebazaar", "signature-base", "tweetfeed"] },
  { type: "sha1", share: 4, sources: ["signature-base", "threatfox"] },
];
const UNDATED_SOURCES = ["maltrail", "signature-base", "malwarebazaar"];
/** Feeds that list everything each time, so a sighting can be delisted. */
const COMPLETE_LISTS = ["feodotracker", "maltrail", "urlhaus"];
const FAMILIES = [
  "Emotet",
  "QakBot",
  "IcedID",
  "Pikabot",
  "AgentTesla",
  "AsyncRAT",
  "Remcos",
  "njRAT",
  "RedLineStealer",
  "LummaStealer",
  "CobaltStrike",
  "Mirai",
  "Gafgyt",
  "SmokeLoader",
  "Formbook",
  "DarkGate",
  "Vidar",
  "Raccoon",
  "NanoCore",
  "XWorm",
];
const WORDS = ["cdn", "login", "secure", "update", "mail", "cloud", "pay", "app", "files", "docs", "portal", "verify", "shop", "drive", "static", "api"];
const TLDS = ["com", "net", "org", "xyz", "top", "ru", "info", "online", "site", "duckdns.org"];
const DOMAIN_POOL = 50_000;
const SLASH24_POOL = 5_000;
const FAMILY_POOL = 400;
const TAG_POOL = 600;
const DAY = 1;
const HISTORY_DAYS = 730;
/** How long this (imagined) instance has been importing. */
const INSTANCE_DAYS = 400;

const list = (items: readonly string[]) => items.map((item) => `'${item.replaceAll("'", "''")}'`).join(", ");
/** The item of a SQL list at a position. */
const pick = (items: readonly string[], position: string) =>
  `(case ${position} % ${items.length} ${items.map((item, i) => `when ${i} then '${item}'`).join(" ")} end)`;
/** 0 ≤ value < size, most often small: the product of two uniform draws. */
const skewed = (a: string, b: string, size: number) => `((${a} % ${size}) * (${b} % ${size}) / ${size})`;
const iso = (julianDay: string) => `strftime('%Y-%m-%dT%H:%M:%S.000Z', ${julianDay})`;

export async function addSyntheticIndicators(db: Kysely<Database>, missing: number, now: Date, step: (message: string) => void): Promise<void> {
  if (missing <= 0) return;
  const nowJd = `julianday('${now.toISOString()}')`;
  const run = (text: string) => sql.raw(text).execute(db);

  // Draws: five random numbers per new indicator (non-negative, 62 bits).
  await run(`create temp table gen_draws (n integer primary key, r1 integer, r2 integer, r3 integer, r4 integer, r5 integer)`);
  await run(`with recursive k(n) as (select 1 union all select n + 1 from k where n < ${Math.ceil(missing * 1.01)})
    insert into gen_draws select n, random() & 4611686018427387903, random() & 4611686018427387903, random() & 4611686018427387903,
      random() & 4611686018427387903, random() & 4611686018427387903 from k`);
  await run(`create temp table gen_domains (k integer primary key, name text not null)`);
  await run(`with recursive k(i) as (select 0 union all select i + 1 from k where i + 1 < ${DOMAIN_POOL})
    insert into gen_domains select i, ${pick(WORDS, "(i / 7)")} || '-' || (i * 7919 % 100003) || '.' || ${pick(TLDS, "i")} from k`);
  await run(`create temp table gen_slash24 (k integer primary key, prefix text not null)`);
  await run(`with recursive k(i) as (select 0 union all select i + 1 from k where i + 1 < ${SLASH24_POOL})
    insert into gen_slash24 select i, (1 + abs(random()) % 223) || '.' || (abs(random()) % 256) || '.' || (abs(random()) % 256) || '.' from k`);

  // One row per new indicator: its type, value, relation keys and profile.
  const bucket = "(d.r1 % 100)";
  let lower = 0;
  const typeCase = PROFILES.map((profile) => {
    const clause = `when ${bucket} < ${lower + profile.share} then '${profile.type}'`;
    lower += profile.share;
    return clause;
  }).join(" ");
  await run(
    `create temp table gen_ind (gid integer primary key, n integer not null, type text not null, value text not null, host text, domain text, unique (value, type))`,
  );
  await run(`create temp table gen_typed as select d.*, case ${typeCase} end as type,
      (select name from gen_domains where k = ${skewed("d.r2", "d.r3", DOMAIN_POOL)}) as dom,
      case when d.r4 % 10 < 4 then (select prefix from gen_slash24 where k = d.r5 % ${SLASH24_POOL}) || (d.r2 % 256)
           else (1 + d.r2 % 223) || '.' || (d.r3 % 256) || '.' || (d.r4 / 7 % 256) || '.' || (d.r5 / 11 % 256) end as ip
    from gen_draws d`);
  await run(`create index gen_typed_n on gen_typed (n)`);
  await run(`insert or ignore into gen_ind (n, type, value, host, domain)
    select n, type,
      case type
        when 'url' then (case when r4 % 10 = 0 then 'http://' || ip || '/' || ${pick(WORDS, "(r5 / 13)")} || '.bin'
                              else (case when r5 % 3 = 0 then 'https://' else 'http://' end)
                                   || (case when r4 % 2 = 0 then dom else ${pick(WORDS, "(r4 / 3)")} || (r4 / 5 % 40) || '.' || dom end)
                                   || '/' || ${pick(WORDS, "(r5 / 7)")} || '/' || lower(hex(randomblob(4))) || '.php' end)
        when 'domain' then (case when r4 % 2 = 0 then ${pick(WORDS, "(r4 / 3)")} || (r4 / 5 % 500) || '.' || dom
                                 else ${pick(WORDS, "(r5 / 3)")} || '-' || n || '.' || ${pick(TLDS, "r5")} end)
        when 'ipv4' then ip
        when 'ip:port' then ip || ':' || ${pick(["443", "8080", "80", "2222", "4444", "8443", "1337", "3389"], "r5")}
        when 'sha256' then lower(hex(randomblob(32)))
        when 'md5' then lower(hex(randomblob(16)))
        else lower(hex(randomblob(20)))
      end,
      null, null
    from gen_typed order by n limit ${missing}`);
  // Relation keys as server/pipeline's importer sets them (server/db/ioc-tables.ts).
  await run(`update gen_ind set
      host = case type when 'url' then substr(value, instr(value, '://') + 3, instr(substr(value, instr(value, '://') + 3), '/') - 1)
                       when 'ip:port' then substr(value, 1, instr(value, ':') - 1) end`);
  await run(`update gen_ind set domain = case
      when type = 'url' and host glob '*[a-z]*' then (select dom from gen_typed t where t.n = gen_ind.n)
      when type = 'domain' and value != (select dom from gen_typed t where t.n = gen_ind.n) and value like '%.' || (select dom from gen_typed t where t.n = gen_ind.n)
        then (select dom from gen_typed t where t.n = gen_ind.n) end`);
  await run(`delete from gen_ind where exists (select 1 from indicators i where i.value = gen_ind.value and i.type = gen_ind.type)`);
  const seedMax = Number((await sql<{ m: number | null }>`select max(id) as m from indicators`.execute(db)).rows[0]?.m ?? 0);
  step(`indicators: ${missing} to add after id ${seedMax}`);

  // Sightings: 40 % one, 35 % two, 25 % three, from different feeds of the type.
  await run(`create temp table gen_k (k integer primary key)`);
  await run(`insert into gen_k values (0), (1), (2)`);
  const sourcesCase = (position: string) => `case i.type ${PROFILES.map((p) => `when '${p.type}' then ${pick(p.sources, position)}`).join(" ")} end`;
  const poolSize = `case i.type ${PROFILES.map((p) => `when '${p.type}' then ${p.sources.length}`).join(" ")} end`;
  const instanceStart = `${nowJd} - ${INSTANCE_DAYS * DAY}`;
  await run(`create temp table gen_sight as
    select i.gid, k.k, ${sourcesCase("(t.r2 / 17 + k.k)")} as source, t.r1, t.r2, t.r3, t.r4, t.r5,
      -- days before now of the newest sighting: most recent, some up to two years old
      ${skewed("t.r3 / 3", "t.r4 / 3", HISTORY_DAYS)} + k.k * (t.r5 % 20) + (t.r5 % 1000) / 1000.0 as age
    from gen_ind i join gen_typed t on t.n = i.n join gen_k k
      on k.k < min(${poolSize}, case when t.r3 % 100 < 40 then 1 when t.r3 % 100 < 75 then 2 else 3 end)`);
  await run(`update gen_sight set age = null where source in (${list(UNDATED_SOURCES)})`);

  const familyOf = `case when r5 % 10 < 4 then null when ${skewed("r4 / 5", "r5 / 5", FAMILY_POOL)} < ${FAMILIES.length}
      then ${pick(FAMILIES, skewed("r4 / 5", "r5 / 5", FAMILY_POOL))} else 'fam' || ${skewed("r4 / 5", "r5 / 5", FAMILY_POOL)} end`;
  await run(`insert into indicator_sightings (indicator_id, source, variant, port, raw_value, first_seen, last_seen, listed_since, delisted_at,
      threat_type, malware_family, tags, confidence, reporter, reference_id)
    select ${seedMax} + s.gid, s.source, s.k, null, null,
      case when s.age is null then null else ${iso(`${nowJd} - s.age - (s.r2 % 60)`)} end,
      case when s.age is null then null else ${iso(`${nowJd} - s.age`)} end,
      ${iso(`min(${nowJd}, max(${instanceStart}, ${nowJd} - coalesce(s.age, (s.r4 % ${INSTANCE_DAYS}))) + 0.1)`)},
      case when s.source in (${list(COMPLETE_LISTS)}) and s.r1 % 20 = 0 then ${iso(`${nowJd} - coalesce(s.age, 0) / 2`)} end,
      case i.type when 'url' then (case when s.r2 % 4 = 0 then 'phishing' when s.r2 % 4 = 3 then null else 'malware_download' end)
                  when 'domain' then (case when s.r2 % 3 = 0 then null else 'botnet_cc' end)
                  when 'ipv4' then 'botnet_cc' when 'ip:port' then 'botnet_cc' else 'payload' end,
      ${familyOf.replaceAll("r4", "s.r4").replaceAll("r5", "s.r5")},
      null,
      case when s.source = 'threatfox' then ${pick(["50", "75", "100"], "s.r3")} end,
      case when s.source = 'tweetfeed' then 'reporter' || (s.r4 % 500) end,
      null
    from gen_sight s join gen_ind i on i.gid = s.gid`);
  step("indicators: sightings written");

  // The indicator row aggregates its sightings, as the merge does.
  await run(`insert into indicators (id, type, value, host, domain, first_seen, last_seen, listed_since, threat_type, malware_family, confidence, source_count)
    select ${seedMax} + i.gid, i.type, i.value, i.host, i.domain, min(s.first_seen), max(s.last_seen), min(s.listed_since),
      max(s.threat_type), max(s.malware_family), max(s.confidence), count(distinct s.source)
    from gen_ind i join indicator_sightings s on s.indicator_id = ${seedMax} + i.gid
    group by i.gid`);
  await run(`insert into indicators_fts (rowid, value) select ${seedMax} + gid, value from gen_ind`);
  step("indicators: rows and value search index written");

  // Tags: 60 % of the indicators carry one or two, drawn with a skew from the pool.
  await run(`insert or ignore into tags (name) select 'tag-' || k from gen_domains where k < ${TAG_POOL}`);
  await run(`create temp table gen_tag_pool (k integer primary key, id integer not null, name text not null)`);
  await run(`insert into gen_tag_pool select row_number() over (order by id) - 1, id, name from tags`);
  const tagCount = Number((await sql<{ n: number }>`select count(*) as n from gen_tag_pool`.execute(db)).rows[0]?.n ?? 0);
  await run(`create temp table gen_tagged as
    select distinct i.gid, p.id as tag_id, p.name from gen_ind i join gen_typed t on t.n = i.n join gen_k k on k.k < 1 + t.r5 % 2
      join gen_tag_pool p on p.k = ${skewed("(t.r1 / 101 + k.k * 7919)", "(t.r4 / 103 + k.k * 104729)", tagCount)}
    where t.r1 / 7 % 10 < 6`);
  await run(`create index gen_tagged_gid on gen_tagged (gid)`);
  await run(`insert or ignore into indicator_tags (tag_id, indicator_id) select tag_id, ${seedMax} + gid from gen_tagged`);
  await run(`update indicator_sightings set tags = (select json_group_array(name) from gen_tagged g where g.gid = indicator_sightings.indicator_id - ${seedMax})
    where indicator_id > ${seedMax} and variant = 0 and indicator_id - ${seedMax} in (select gid from gen_tagged)`);
  step("indicators: tags written");

  // One in two hundred links a CVE that has a record.
  await run(`insert or ignore into indicator_cves (cve_id, indicator_id, source)
    select c.id, ${seedMax} + i.gid, 'threatfox' from gen_ind i join gen_typed t on t.n = i.n
      join cves c on c.seq = 1 + t.r2 / 3 % (select max(seq) from cves)
    where t.r2 % 200 = 0 and c.has_record = 1`);

  // The feeds the list's source filter and freshness show.
  const sources = [...new Set(PROFILES.flatMap((p) => p.sources))];
  for (const source of sources) {
    await run(`insert into sources (name, status, last_run_at, last_success_at, complete_list) values ('${source}', 'ok', '${now.toISOString()}', '${now.toISOString()}', ${COMPLETE_LISTS.includes(source) ? 1 : 0})
      on conflict (name) do nothing`);
  }
  await run(`update sources set record_count = (select count(distinct indicator_id) from indicator_sightings s where s.source = sources.name)
    where name in (${list(sources)})`);
  for (const table of ["gen_draws", "gen_domains", "gen_slash24", "gen_typed", "gen_ind", "gen_k", "gen_sight", "gen_tag_pool", "gen_tagged"])
    await run(`drop table ${table}`);
}
