import { sql, type Kysely } from "kysely";

/**
 * The indicator statistics table (server/ioc/stats-table.ts), filled from the
 * indicators already imported: one aggregate over them, a few seconds on the
 * full snapshot import, once. Imports keep it current from then on
 * (refreshIndicatorStats). The fill is written out here rather than calling
 * that function: a migration must do tomorrow what it did today.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table indicator_stats (
      type text not null,
      threat_type text,
      malware_family text,
      day text not null,
      count integer not null
    )`.execute(db);
  await sql`
    insert into indicator_stats (type, threat_type, malware_family, day, count)
    select type, threat_type, malware_family, coalesce(substr(last_seen, 1, 10), ''), count(*)
    from indicators group by type, threat_type, malware_family, coalesce(substr(last_seen, 1, 10), '')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists indicator_stats`.execute(db);
}
