import { sql, type Kysely } from "kysely";
import { refreshIndicatorStats } from "../../ioc/stats-table";

/**
 * The indicator statistics table (server/ioc/stats-table.ts), filled from the
 * indicators already imported: one aggregate over them, a few seconds on the
 * full snapshot import, once. Imports keep it current from then on.
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
  await refreshIndicatorStats(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table if exists indicator_stats`.execute(db);
}
