import { sql, type Kysely } from "kysely";
import { dialectOf } from "../dialect";

/**
 * PostgreSQL only: the data notifications (migration 0010) say who wrote and
 * what an import published, so that a web node can keep a data version per
 * radar as SQLite does (server/db/postgres/data-version.ts):
 *
 * - a write to a data table notifies `threat_radar_data` with `import` when
 *   the connection is an import's (`threat_radar.writer`, set by the import's
 *   pool), and with nothing otherwise;
 * - a write to a `sources` row also notifies it with `source <name>`, in the
 *   transaction that writes the row. An import publishes its data, or records
 *   its failure, by writing its source's row in that transaction.
 *
 * While an import runs, a node then moves only the publishing source's
 * radar's version: EPSS's import leaves the IOC radar's cached pages alone.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== "postgres") return;
  await sql`
    create or replace function threat_radar_notify_data() returns trigger language plpgsql as $$
    begin
      perform pg_notify('threat_radar_data',
        case when current_setting('threat_radar.writer', true) = 'import' then 'import' else '' end);
      return null;
    end $$`.execute(db);
  await sql`
    create function threat_radar_notify_source() returns trigger language plpgsql as $$
    begin
      -- NEW is null in a row trigger on delete.
      perform pg_notify('threat_radar_data', 'source ' || coalesce(new.name, old.name));
      return null;
    end $$`.execute(db);
  await sql`
    create trigger threat_radar_source_changed after insert or update or delete on sources
    for each row execute function threat_radar_notify_source()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== "postgres") return;
  await sql`drop function if exists threat_radar_notify_source() cascade`.execute(db);
  await sql`
    create or replace function threat_radar_notify_data() returns trigger language plpgsql as $$
    begin
      perform pg_notify('threat_radar_data', '');
      return null;
    end $$`.execute(db);
}
