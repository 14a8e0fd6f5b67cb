import SQLite from "better-sqlite3";

/**
 * Puts one CVE record into the server's (already migrated) database, so that
 * its detail page has something to show whether the detail loader reads the
 * database or only echoes the id. Only the columns without defaults are set.
 */
export function seedCve(databasePath: string, id: string): void {
  const sqlite = new SQLite(databasePath);
  try {
    const table = sqlite.prepare("select name from sqlite_master where type = 'table' and name = 'cves'").get();
    if (!table) return;
    sqlite.prepare("insert or ignore into cves (id, state, record_source, title) values (?, 'PUBLISHED', 'e2e-seed', ?)").run(id, `${id} (e2e seed)`);
  } finally {
    sqlite.close();
  }
}
