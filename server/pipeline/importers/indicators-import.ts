import { hash } from "node:crypto";
import { sql, type Kysely, type RawBuilder } from "kysely";
import { hostOf, registrableDomain } from "../../../shared/ioc/host";
import type { IocSighting } from "../../feeds/ioc/sighting";
import { createIocIndexes, createIocTables, IOC_TABLES } from "../../db/ioc-tables";
import type { Database } from "../../db/schema";
import { addToIndicatorSourceStats, addToIndicatorStats, INDICATOR_SOURCE_STATS_KEY, INDICATOR_STATS_KEY, refreshIndicatorStats } from "../../ioc/stats-table";
import type { Importer, MergeContext } from "../engine/importer";
import type { StagingOut, StagingTable } from "../engine/staging";

/**
 * Changed sightings above which a SQLite merge rebuilds the IOC tables
 * instead of changing them in one transaction (docs/decisions/0005): a
 * first import of maltrail changes 1.8 M, an hourly feed a few thousand.
 */
export const REBUILD_ROWS = 150_000;

const STAGING: readonly StagingTable[] = [
  {
    name: "sightings",
    columns: [
      ["type", "text"],
      ["value", "text"],
      ["host", "text"],
      ["domain", "text"],
      ["variant", "integer"],
      ["port", "integer"],
      ["raw_value", "text"],
      ["first_seen", "text"],
      ["last_seen", "text"],
      ["threat_type", "text"],
      ["malware_family", "text"],
      ["tags", "text"],
      ["confidence", "integer"],
      ["reporter", "text"],
      ["reference", "text"],
    ],
  },
  {
    name: "sighting_tags",
    columns: [
      ["type", "text"],
      ["value", "text"],
      ["tag", "text"],
    ],
  },
  {
    name: "sighting_cves",
    columns: [
      ["type", "text"],
      ["value", "text"],
      ["cve", "text"],
    ],
  },
  {
    name: "aliases",
    columns: [
      ["family_key", "text"],
      ["alias", "text"],
    ],
  },
];

/**
 * What makes one statement of a feed distinct from another about the same
 * value: a second reporter, another family, port, reference or tag set is a
 * sighting of its own. 48 bits of a hash: exact in a JS number, and a
 * collision within one value's statements of one feed is not a concern.
 */
export function sightingVariant(record: IocSighting): number {
  const key = JSON.stringify([record.port ?? null, record.reporter, record.malwareFamily, record.reference, [...record.tags].sort()]);
  let variant = recentVariants.get(key);
  if (variant === undefined) {
    variant = hash("sha1", key, "buffer").readUIntBE(0, 6);
    if (recentVariants.size >= VARIANT_CACHE_SIZE) recentVariants.clear();
    recentVariants.set(key, variant);
  }
  return variant;
}

/**
 * Variants hashed lately, by key: a feed repeats a key on many records (all of
 * a maltrail file's trails but their ports), and SHA-1 was most of the
 * variant's cost (3.7 of maltrail's 66 CPU s). Emptied when full, so bounded.
 */
const recentVariants = new Map<string, number>();
const VARIANT_CACHE_SIZE = 10_000;

/** The relation keys of an indicator (server/db/ioc-tables.ts). */
function relationKeys(record: IocSighting): { host: string | null; domain: string | null } {
  const { indicator } = record;
  const host = indicator.type === "url" || indicator.type === "email" || indicator.type === "ip:port" ? hostOf(indicator) : null;
  const domain = registrableDomain(indicator);
  return { host, domain: domain === indicator.value ? null : domain };
}

/**
 * A family's aliases staged so far in a run: maltrail repeats them on each
 * of a family's trails (7.9 M rows for 1.8 M trails if staged as given).
 * `last`: the list and family staged last; maltrail hands the same list to
 * each trail of a file, which then costs one comparison instead of a key
 * per alias (2 of maltrail's 66 CPU s).
 */
const stagedAliases = new WeakMap<StagingOut, { seen: Set<string>; last?: { family: string; aliases: readonly string[] } }>();

function stageAliases(family: string, aliases: readonly string[], out: StagingOut): void {
  let staged = stagedAliases.get(out);
  if (!staged) stagedAliases.set(out, (staged = { seen: new Set() }));
  if (staged.last?.aliases === aliases && staged.last.family === family) return;
  staged.last = { family, aliases };
  const { seen } = staged;
  for (const alias of aliases) {
    const key = `${family}\n${alias}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.row("aliases", [family, alias]);
  }
}

function stage(record: IocSighting, out: StagingOut): void {
  const { type, value } = record.indicator;
  const { host, domain } = relationKeys(record);
  out.row("sightings", [
    type,
    value,
    host,
    domain,
    sightingVariant(record),
    record.port ?? null,
    record.rawValue === value ? null : record.rawValue,
    record.firstSeen,
    record.lastSeen ?? record.firstSeen,
    record.threatType,
    record.malwareFamily,
    record.tags.length > 0 ? JSON.stringify(record.tags) : null,
    record.confidence,
    record.reporter,
    record.reference,
  ]);
  for (const tag of record.tags) out.row("sighting_tags", [type, value, tag]);
  for (const cve of record.cves ?? []) out.row("sighting_cves", [type, value, cve]);
  if (record.malwareFamily && record.aliases?.length) stageAliases(record.malwareFamily.toLowerCase(), record.aliases, out);
}

/** The served IOC tables, or their next generation during a rebuild. */
interface Target {
  suffix: string;
  indicators: RawBuilder<unknown>;
  sightings: RawBuilder<unknown>;
  tags: RawBuilder<unknown>;
  cves: RawBuilder<unknown>;
  fts: RawBuilder<unknown>;
}

function target(suffix: string): Target {
  return {
    suffix,
    indicators: sql.table(`indicators${suffix}`),
    sightings: sql.table(`indicator_sightings${suffix}`),
    tags: sql.table(`indicator_tags${suffix}`),
    cves: sql.table(`indicator_cves${suffix}`),
    fts: sql.table(`indicators${suffix}_fts`),
  };
}

const SERVED = target("");
const NEXT_SUFFIX = "_next";

const s = (name: string) => sql.table(`staging.${name}`);
const scratchTable = (ctx: MergeContext) => sql.raw(ctx.store.dialect.scratchTable);

/**
 * Marks the source's sightings that staging's `delisted` lists (indicator_id,
 * variant) as delisted at `stamp`. Driven from those rows, each found by the
 * sightings' key: tested row by row instead, every sighting of the source
 * scanned the unindexed list (maltrail's 1.75 M sightings against 222,896
 * delisted ran for over 18 minutes without an end).
 */
export function markDelisted(sightings: RawBuilder<unknown>, source: string, stamp: string): RawBuilder<unknown> {
  return sql`
    update ${sightings} set delisted_at = ${stamp}
    where delisted_at is null and (indicator_id, source, variant) in (select d.indicator_id, ${source}, d.variant from ${s("delisted")} d)`;
}

/** Null-ignoring least and greatest, written the same for both dialects. */
const least = (a: RawBuilder<unknown>, b: RawBuilder<unknown>) =>
  sql`case when ${a} is null then ${b} when ${b} is null then ${a} when ${a} < ${b} then ${a} else ${b} end`;
const greatest = (a: RawBuilder<unknown>, b: RawBuilder<unknown>) =>
  sql`case when ${a} is null then ${b} when ${b} is null then ${a} when ${a} > ${b} then ${a} else ${b} end`;

/**
 * Staged rows to distinct sightings, the dictionary entries they need, and
 * which of them are new or changed compared with the served tables.
 */
async function classify(db: Kysely<Database>, ctx: MergeContext): Promise<void> {
  const run = (query: RawBuilder<unknown>) => query.execute(db);
  await run(
    sql`insert into sighting_references (url) select distinct reference from ${s("sightings")} where reference is not null on conflict (url) do nothing`,
  );
  await run(sql`insert into tags (name) select distinct tag from ${s("sighting_tags")} where true on conflict (name) do nothing`);
  await run(sql`drop table if exists ${s("mapped")}`);
  // Within one variant only the times, the threat type and the raw spelling can differ. Grouped and mapped in one
  // statement: the groups are read as they are formed, not written to a table of their own first. Grouped by value
  // first: the rows come out in the order new indicators get their ids in (apply()), which a rebuild writes them in.
  await run(sql`
    create ${scratchTable(ctx)} ${s("mapped")} as
    select i.id as indicator_id, m.*, r.id as reference_id
    from (
      select type, value, max(host) as host, max(domain) as domain, variant, max(port) as port, max(raw_value) as raw_value,
        min(first_seen) as first_seen, max(last_seen) as last_seen, max(threat_type) as threat_type,
        max(malware_family) as malware_family, max(tags) as tags, max(confidence) as confidence, max(reporter) as reporter,
        max(reference) as reference
      from ${s("sightings")} group by value, type, variant
    ) m
    left join indicators i on i.value = m.value and i.type = m.type
    left join sighting_references r on r.url = m.reference`);
  // Only the stored indicators' rows are looked up (what a complete list restated); a first import has none of them.
  await ctx.store.indexStaging(db, "mapped", ["indicator_id", "variant"], "indicator_id");
  await run(sql`drop table if exists ${s("changed")}`);
  // What each sighting becomes; kept only where that differs from what is served (or is new).
  await run(sql`
    create ${scratchTable(ctx)} ${s("changed")} as
    select * from (
      select mp.indicator_id, mp.type, mp.value, mp.host, mp.domain, mp.variant, mp.port, mp.malware_family, mp.tags, mp.reporter,
        mp.reference_id, case when st.indicator_id is null then 1 else 0 end as is_new,
        coalesce(mp.raw_value, st.raw_value) as raw_value,
        ${least(sql`st.first_seen`, sql`mp.first_seen`)} as first_seen,
        ${greatest(sql`st.last_seen`, sql`mp.last_seen`)} as last_seen,
        coalesce(mp.threat_type, st.threat_type) as threat_type,
        coalesce(mp.confidence, st.confidence) as confidence,
        st.indicator_id as stored, st.first_seen as stored_first, st.last_seen as stored_last, st.threat_type as stored_threat,
        st.confidence as stored_confidence, st.raw_value as stored_raw, st.delisted_at as stored_delisted
      from ${s("mapped")} mp
      left join indicator_sightings st on st.indicator_id = mp.indicator_id and st.source = ${ctx.source} and st.variant = mp.variant
    ) c
    where stored is null or stored_delisted is not null or first_seen is distinct from stored_first or last_seen is distinct from stored_last
      or threat_type is distinct from stored_threat or confidence is distinct from stored_confidence or raw_value is distinct from stored_raw`);
  const count = async (query: RawBuilder<{ n: number | string | bigint }>) => Number((await query.execute(db)).rows[0]?.n ?? 0);
  const distinct = await count(sql<{ n: number }>`select count(*) as n from ${s("mapped")}`);
  ctx.counts.added = await count(sql<{ n: number }>`select count(*) as n from ${s("changed")} where is_new = 1`);
  ctx.counts.updated = await count(sql<{ n: number }>`select count(*) as n from ${s("changed")} where is_new = 0`);
  ctx.counts.unchanged = distinct - ctx.counts.added - ctx.counts.updated;
}

/**
 * The merge's writes, against `t` (the served tables, or their next
 * generation): new indicators, changed sightings, what a complete list no
 * longer lists, and the aggregates of every indicator that any of it touched.
 * `countStats`: also moves the touched indicators' counts in
 * `indicator_stats` and `indicator_source_stats` (a merge in place; a
 * rebuild counts its generation whole).
 */
async function apply(db: Kysely<Database>, ctx: MergeContext, t: Target, complete: boolean, between: () => Promise<void>, countStats = false): Promise<void> {
  const run = async (query: RawBuilder<unknown>) => {
    await query.execute(db);
    await between();
  };
  const maxId = Number((await sql<{ id: number | null }>`select max(id) as id from ${t.indicators}`.execute(db)).rows[0]?.id ?? 0);
  // In value order: the rowids follow, so the table and its unique index both grow at their ends. Grouped in that
  // order too, so that SQLite sorts the rows once, not a second time for the order. Ids above
  // maxId are this run's new indicators, whose sightings are all in `changed`: their aggregates are computed
  // here, and only those with several sightings (which one names the threat type and family) are recomputed
  // below. On maltrail's first import that update otherwise regrouped 1.7 M sightings to write 1.6 M rows again.
  await run(sql`
    insert into ${t.indicators} (type, value, host, domain, listed_since, first_seen, last_seen, confidence, source_count, threat_type, malware_family)
    select type, value, max(host), max(domain), ${ctx.stamp}, min(first_seen), max(last_seen), max(confidence), 1,
      case when count(*) = 1 then max(threat_type) end, case when count(*) = 1 then max(malware_family) end
    from ${s("changed")} where indicator_id is null
    group by value, type order by value, type
    on conflict (value, type) do nothing`);
  await ctx.store.dialect.analyzeTable(db, `indicators${t.suffix}`);
  await run(sql`
    update ${s("changed")} set indicator_id = i.id from ${t.indicators} i
    where ${s("changed")}.indicator_id is null and i.value = ${s("changed")}.value and i.type = ${s("changed")}.type`);
  if (countStats) {
    // The stored indicators this run gives their first sighting from this source: under it in
    // `indicator_source_stats` from now on, not before.
    await run(sql`drop table if exists ${s("gained")}`);
    await run(sql`
      create ${scratchTable(ctx)} ${s("gained")} as select distinct c.indicator_id from ${s("changed")} c
      where c.indicator_id <= ${maxId}
        and not exists (select 1 from ${t.sightings} st where st.indicator_id = c.indicator_id and st.source = ${ctx.source})`);
  }
  // In key order, so the table grows page by page: in place, the changed rows are mostly stored indicators', whose ids
  // are scattered. A rebuild's are mostly new indicators', already in id order (classify() groups them by value, and
  // the ids follow the values): sorting them again cost 0.5 s of maltrail's first import.
  await run(sql`
    insert into ${t.sightings} (indicator_id, source, variant, port, raw_value, first_seen, last_seen, listed_since, delisted_at,
      threat_type, malware_family, tags, confidence, reporter, reference_id)
    select indicator_id, ${ctx.source}, variant, port, raw_value, first_seen, last_seen, ${ctx.stamp}, null,
      threat_type, malware_family, tags, confidence, reporter, reference_id
    from ${s("changed")} where true ${t === SERVED ? sql`order by indicator_id, variant` : sql``}
    on conflict (indicator_id, source, variant) do update set
      raw_value = excluded.raw_value, first_seen = excluded.first_seen, last_seen = excluded.last_seen, delisted_at = null,
      threat_type = excluded.threat_type, confidence = excluded.confidence`);
  await ctx.store.dialect.analyzeTable(db, `indicator_sightings${t.suffix}`);

  await run(sql`drop table if exists ${s("delisted")}`);
  const integer = sql.raw(ctx.store.dialect.integerType);
  await run(sql`create ${scratchTable(ctx)} ${s("delisted")} (indicator_id ${integer}, variant ${integer})`);
  if (complete) {
    // What this run did not restate: stored sightings it did not map. A sighting of an indicator created by this
    // run (id above maxId) was itself created by it.
    await run(sql`
      insert into ${s("delisted")} select st.indicator_id, st.variant from ${t.sightings} st
      where st.source = ${ctx.source} and st.delisted_at is null and st.indicator_id <= ${maxId}
        and not exists (select 1 from ${s("mapped")} m where m.indicator_id = st.indicator_id and m.variant = st.variant)`);
    await run(markDelisted(t.sightings, ctx.source, ctx.stamp));
    ctx.counts.removed = Number((await sql<{ n: number }>`select count(*) as n from ${s("delisted")}`.execute(db)).rows[0]?.n ?? 0);
  }

  await run(sql`drop table if exists ${s("touched")}`);
  await run(sql`create ${scratchTable(ctx)} ${s("touched")} (id ${integer} primary key)`);
  await run(sql`insert into ${s("touched")} (id) select distinct indicator_id from ${s("changed")} where indicator_id <= ${maxId} on conflict do nothing`);
  await run(sql`
    insert into ${s("touched")} (id) select indicator_id from ${s("changed")} where indicator_id > ${maxId}
    group by indicator_id having count(*) > 1 on conflict do nothing`);
  await run(sql`insert into ${s("touched")} (id) select distinct indicator_id from ${s("delisted")} where true on conflict do nothing`);
  if (countStats) {
    // The touched indicators as the statistics table counts them now; the ones this run created are not in it yet.
    await run(sql`drop table if exists ${s("stats_delta")}`);
    await run(sql`
      create ${scratchTable(ctx)} ${s("stats_delta")} as select ${INDICATOR_STATS_KEY}, -count(*) as n
      from ${t.indicators} i join ${s("touched")} tt on tt.id = i.id where i.id <= ${maxId}
      group by type, threat_type, malware_family, day`);
    await run(sql`drop table if exists ${s("source_stats_delta")}`);
    await run(sql`
      create ${scratchTable(ctx)} ${s("source_stats_delta")} as select ${INDICATOR_SOURCE_STATS_KEY}, -count(*) as n
      from ${touchedMemberships(t, maxId)} m join ${t.indicators} i on i.id = m.indicator_id
      where not (m.source = ${ctx.source} and m.indicator_id in (select indicator_id from ${s("gained")}))
      group by source, type, threat_type, malware_family, day`);
  }
  // Each touched indicator's aggregates over all its sightings; its threat type and family from the newest sighting that
  // names one. Sightings of one run without dates tie (maltrail lists an address in several families' files): the first
  // name in byte order breaks the tie, so the same data gives the same family on every import and on both dialects.
  await run(sql`
    update ${t.indicators} set
      first_seen = a.first_seen, last_seen = a.last_seen, listed_since = a.listed_since, confidence = a.confidence,
      source_count = a.source_count, threat_type = a.threat_type, malware_family = a.malware_family
    from (
      select indicator_id, min(first_seen) as first_seen, max(last_seen) as last_seen, min(listed_since) as listed_since,
        max(confidence) as confidence, count(distinct source) as source_count, max(threat_pick) as threat_type, max(family_pick) as malware_family
      from (
        select st.indicator_id, st.first_seen, st.last_seen, st.listed_since, st.confidence, st.source,
          first_value(st.threat_type) over (partition by st.indicator_id
            order by case when st.threat_type is null then 1 else 0 end, st.last_seen desc nulls last, st.listed_since desc, st.threat_type) as threat_pick,
          first_value(st.malware_family) over (partition by st.indicator_id
            order by case when st.malware_family is null then 1 else 0 end, st.last_seen desc nulls last, st.listed_since desc, st.malware_family) as family_pick
        -- From the touched keys to their sightings (SQLite keeps a cross join's order): the planner otherwise scanned
        -- every sighting to read them in key order, 0.7 s for 5,000 touched indicators of 1.7 M.
        from ${s("touched")} tt cross join ${t.sightings} st where st.indicator_id = tt.id
      ) ranked group by indicator_id
    ) a
    where ${t.indicators}.id = a.indicator_id`);
  if (countStats) {
    await run(sql`
      insert into ${s("stats_delta")} select ${INDICATOR_STATS_KEY}, count(*) as n
      from ${t.indicators} i join ${s("touched")} tt on tt.id = i.id where i.id <= ${maxId}
      group by type, threat_type, malware_family, day`);
    await run(sql`
      insert into ${s("stats_delta")} select ${INDICATOR_STATS_KEY}, count(*) as n
      from ${t.indicators} i where i.id > ${maxId}
      group by type, threat_type, malware_family, day`);
    await addToIndicatorStats(db, s("stats_delta"));
    await run(sql`
      insert into ${s("source_stats_delta")} select ${INDICATOR_SOURCE_STATS_KEY}, count(*) as n
      from ${touchedMemberships(t, maxId)} m join ${t.indicators} i on i.id = m.indicator_id
      group by source, type, threat_type, malware_family, day`);
    // Every sighting of an indicator this run created is this source's.
    await run(sql`
      insert into ${s("source_stats_delta")} select ${INDICATOR_SOURCE_STATS_KEY}, count(*) as n
      from (select cast(${ctx.source} as text) as source, type, threat_type, malware_family, last_seen from ${t.indicators} where id > ${maxId}) i
      group by source, type, threat_type, malware_family, day`);
    await addToIndicatorSourceStats(db, s("source_stats_delta"));
  }

  await run(sql`
    insert into ${t.tags} (tag_id, indicator_id)
    select distinct g.id, i.id from ${s("sighting_tags")} st
    join ${t.indicators} i on i.value = st.value and i.type = st.type
    join tags g on g.name = st.tag
    where true on conflict do nothing`);
  await run(sql`
    insert into ${t.cves} (cve_id, indicator_id, source)
    select distinct sc.cve, i.id, ${ctx.source} from ${s("sighting_cves")} sc
    join ${t.indicators} i on i.value = sc.value and i.type = sc.type
    where true on conflict do nothing`);
  await ctx.store.dialect.addToValueSearchIndex(db, `indicators${t.suffix}`, maxId);
  await between();
}

/** The stored indicators a merge touched (ids up to `maxId`, the largest before it), once per source with a sighting of them. */
function touchedMemberships(t: Target, maxId: number): RawBuilder<unknown> {
  return sql`(
    select distinct st.indicator_id, st.source from ${s("touched")} tt cross join ${t.sightings} st
    where tt.id <= ${maxId} and st.indicator_id = tt.id
  )`;
}

/** The family aliases a feed states replace the ones it stated before. */
async function replaceAliases(trx: Kysely<Database>, ctx: MergeContext): Promise<void> {
  await trx.deleteFrom("family_aliases").where("source", "=", ctx.source).execute();
  await sql`
    insert into family_aliases (alias, family_key, source)
    select distinct alias, family_key, ${ctx.source} from ${s("aliases")} where true on conflict do nothing`.execute(trx);
}

/**
 * A large merge on SQLite: next-generation copies of the IOC tables are
 * filled and indexed statement by statement (each its own transaction, the
 * WAL checkpointed between them), then switched in by renaming, in one
 * short transaction; the old generation is dropped after it.
 */
async function rebuild(ctx: MergeContext, complete: boolean): Promise<void> {
  const { db } = ctx.store;
  const next = target(NEXT_SUFFIX);
  const generation = `_g${ctx.now.getTime().toString(36)}`;
  const between = () => ctx.store.checkpoint();
  await dropGeneration(db, NEXT_SUFFIX);
  await createIocTables(db, NEXT_SUFFIX, generation);
  for (const table of IOC_TABLES) {
    await sql`insert into ${sql.table(`${table}${NEXT_SUFFIX}`)} select * from ${sql.table(table)}`.execute(db);
    await between();
  }
  // Indicators are never deleted, so the served index is the next one's start.
  if (!(await ctx.store.copyValueSearchIndex("indicators_fts", `indicators${NEXT_SUFFIX}_fts`)))
    await sql`insert into ${next.fts} (rowid, value) select id, value from indicators`.execute(db);
  await between();
  await apply(db, ctx, next, complete, between);
  await createIocIndexes(db, NEXT_SUFFIX, generation);
  await between();
  await ctx.commit(async (trx) => {
    for (const table of [...IOC_TABLES, "indicators_fts"]) {
      await sql`alter table ${sql.table(table)} rename to ${sql.table(`${table}_old`)}`.execute(trx);
    }
    for (const table of IOC_TABLES) await sql`alter table ${sql.table(`${table}${NEXT_SUFFIX}`)} rename to ${sql.table(table)}`.execute(trx);
    await sql`alter table ${next.fts} rename to ${sql.table("indicators_fts")}`.execute(trx);
    await replaceAliases(trx, ctx);
    await refreshIndicatorStats(trx);
  });
  await dropGeneration(db, "_old");
  await between();
  // The replaced generation's pages would otherwise stay in the file as free pages until the next rebuild.
  await ctx.store.reclaimFreePages();
}

/** Tables of a generation that is not served: leftovers of a killed rebuild, or the one just replaced. */
async function dropGeneration(db: Kysely<Database>, suffix: string): Promise<void> {
  for (const table of IOC_TABLES) await sql`drop table if exists ${sql.table(`${table}${suffix}`)}`.execute(db);
  const fts = suffix === "_old" ? "indicators_fts_old" : `indicators${suffix}_fts`;
  await sql`drop table if exists ${sql.table(fts)}`.execute(db);
}

/**
 * Stores IOC sightings (server/feeds/ioc/sighting.ts) from any IOC feed. `complete`:
 * the feed lists everything it knows on every run (maltrail, signature-base,
 * Feodo Tracker's blocklist), so a sighting it no longer lists is marked
 * delisted; incremental feeds (TweetFeed's daily files, abuse.ch's "recent"
 * exports) only ever add.
 */
export function indicatorImporter(options: { complete: boolean }): Importer<IocSighting> {
  return {
    staging: STAGING,
    completeList: options.complete,
    stage,
    async merge(ctx) {
      const { db } = ctx.store;
      // A complete list with more unreadable records than usual may not have restated what it still lists.
      const complete = options.complete && ctx.absenceMeansWithdrawn;
      if (options.complete && !ctx.absenceMeansWithdrawn)
        ctx.logger.warn("more records than usual were rejected: nothing this feed no longer lists is marked delisted this time");
      await dropGeneration(db, NEXT_SUFFIX);
      await dropGeneration(db, "_old");
      await classify(db, ctx);
      if (ctx.store.rebuildsLargeMerges && ctx.counts.added + ctx.counts.updated > REBUILD_ROWS) {
        ctx.logger.info({ changed: ctx.counts.added + ctx.counts.updated }, "large change: rebuilding the indicator tables and switching them in");
        await rebuild(ctx, complete);
        return;
      }
      await ctx.commit(async (trx) => {
        // The statistics move in the same transaction: a reader never sees indicators and their statistics disagree.
        await apply(trx, ctx, SERVED, complete, async () => {}, true);
        await replaceAliases(trx, ctx);
      });
    },
    async countRecords(db, source) {
      const row = await db
        .selectFrom("indicator_sightings")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("source", "=", source)
        .where("delisted_at", "is", null)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}
