import { sql } from "kysely";
import { refreshCveStats } from "../../../server/cve/stats-table";
import { openSqliteDatabase } from "../../../server/db/connection";

/**
 * Puts one CVE record into the server's (already migrated) database, so that
 * its detail page has something to show whether the detail loader reads the
 * database or only echoes the id. Only the columns without defaults are set.
 * The CVE statistics table is refreshed with it, as an import does: the
 * list's count and charts are read from that table.
 */
export async function seedCve(databasePath: string, id: string): Promise<void> {
  const { db, close } = openSqliteDatabase(databasePath);
  try {
    const { rows } = await sql`select name from sqlite_master where type = 'table' and name = 'cves'`.execute(db);
    if (rows.length === 0) return;
    await db.transaction().execute(async (trx) => {
      await sql`insert or ignore into cves (id, state, record_source, title) values (${id}, 'PUBLISHED', 'e2e-seed', ${`${id} (e2e seed)`})`.execute(trx);
      await refreshCveStats(trx);
    });
  } finally {
    await close();
  }
}
