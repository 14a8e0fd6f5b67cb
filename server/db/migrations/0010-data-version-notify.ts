import { sql, type Kysely } from "kysely";
import { dialectOf } from "../dialect";

/**
 * PostgreSQL only: every write to a data table notifies `threat_radar_data`
 * (server/db/postgres/data-version.ts), so the web processes' caches see a
 * commit as SQLite's `data_version` does. Statement-level triggers cost one
 * call per statement, not per row, and PostgreSQL delivers a transaction's
 * identical notifications once, at commit. The import lock's heartbeats are
 * not data: they would empty the caches every 20 seconds. A table added by a
 * later migration gets its trigger there.
 */
const NOT_DATA = new Set(["import_lock"]);

export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== "postgres") return;
  await sql`
    create function threat_radar_notify_data() returns trigger language plpgsql as $$
    begin
      perform pg_notify('threat_radar_data', '');
      return null;
    end $$`.execute(db);
  const tables = await sql<{ name: string }>`
    select tablename as name from pg_tables
    where schemaname = current_schema() and tablename not like 'kysely\\_%'`.execute(db);
  for (const { name } of tables.rows) {
    if (NOT_DATA.has(name)) continue;
    await sql`
      create trigger threat_radar_data_changed after insert or update or delete or truncate on ${sql.table(name)}
      for each statement execute function threat_radar_notify_data()`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== "postgres") return;
  await sql`drop function if exists threat_radar_notify_data() cascade`.execute(db);
}
