import { sql, type Kysely } from "kysely";

/**
 * The IOC statistics tables keyed by plain values, and indexed on their
 * whole key. A merge adds its signed counts (server/db/signed-counts.ts) by
 * finding each changed key in the table. `indicator_stats` had no index and
 * `indicator_source_stats` one on `source` alone, so SQLite tested every new
 * key against the whole table, or against all of a source's rows: on the
 * full snapshot import, 5,000 new keys took 9.5 s and 13.1 s; with these
 * indexes, 20–60 ms. A threat type or family that no sighting names
 * becomes '' instead of null, as an undated day already was: the keys are
 * then compared with `=`, which PostgreSQL hashes (matched with
 * `is not distinct from`, the same merge took 0.5–10.6 s there). The count
 * at the end makes each index cover what a list's counts and charts read.
 */
const INDEXES = {
  indicator_stats_key_idx: sql`indicator_stats (type, threat_type, malware_family, day, count)`,
  indicator_source_stats_key_idx: sql`indicator_source_stats (source, type, threat_type, malware_family, day, count)`,
};
const TABLES = { indicator_stats: sql``, indicator_source_stats: sql`source, ` };

export async function up(db: Kysely<any>): Promise<void> {
  // Regrouped rather than updated: a key stored under null and under '' becomes one row.
  for (const [name, source] of Object.entries(TABLES)) {
    const table = sql.table(name);
    await sql`
      create table regrouped as
      select ${source}type, coalesce(threat_type, '') as threat_type, coalesce(malware_family, '') as malware_family, day, sum(count) as count
      from ${table} group by ${source}type, coalesce(threat_type, ''), coalesce(malware_family, ''), day`.execute(db);
    await sql`delete from ${table}`.execute(db);
    await sql`insert into ${table} (${source}type, threat_type, malware_family, day, count) select * from regrouped`.execute(db);
    await sql`drop table regrouped`.execute(db);
  }
  for (const [name, definition] of Object.entries(INDEXES)) await sql`create index ${sql.id(name)} on ${definition}`.execute(db);
  // The new index starts with the source: a source's rows are a range of it.
  await sql`drop index indicator_source_stats_source_idx`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create index indicator_source_stats_source_idx on indicator_source_stats (source)`.execute(db);
  for (const name of Object.keys(INDEXES)) await sql`drop index if exists ${sql.id(name)}`.execute(db);
  for (const name of Object.keys(TABLES)) {
    await sql`update ${sql.table(name)} set threat_type = nullif(threat_type, ''), malware_family = nullif(malware_family, '')`.execute(db);
  }
}
