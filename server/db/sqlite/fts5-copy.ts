import SQLite from "better-sqlite3";

/** The tables in which FTS5 stores a full-text index (https://sqlite.org/fts5.html#fts5_shadow_tables). */
const SHADOW_TABLES = ["data", "idx", "docsize", "config"] as const;

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A virtual table's definition without its name: what follows `using`. */
function definitionOf(sqlite: SQLite.Database, table: string): string | undefined {
  const statement = sqlite.prepare<[string], string>("select sql from sqlite_schema where type = 'table' and name = ?").pluck().get(table);
  const using = statement?.toLowerCase().indexOf(" using ") ?? -1;
  return using < 0 ? undefined : statement!.slice(using).toLowerCase();
}

/**
 * Copies FTS5 table `from`'s index into `to`, an empty FTS5 table of the
 * same definition, row for row through their shadow tables: the index is
 * the same bytes either way, and the copy takes under a second where
 * tokenising the full import's 1.7 M indicator values again took seconds
 * of CPU on every large IOC import (docs/performance.md).
 *
 * FTS5 caches a table's segment structure in each connection and reloads it
 * only after another connection commits, so the copy runs on a connection of
 * its own; and SQL may write shadow tables only with SQLite's defensive mode
 * off (better-sqlite3's unsafe mode), which that connection alone has.
 *
 * Returns false, copying nothing, when the two are not defined alike (a file
 * whose index was made with other options): the caller then fills `to` by
 * tokenising.
 */
export function copyFts5Index(path: string, from: string, to: string): boolean {
  const sqlite = new SQLite(path, { fileMustExist: true });
  try {
    sqlite.pragma("busy_timeout = 5000");
    sqlite.pragma("synchronous = NORMAL");
    // Each page is written once, in key order: a small cache keeps the import's memory as it was (64 MB more peak RSS with the writers' cache).
    sqlite.pragma("cache_size = -2048");
    const definition = definitionOf(sqlite, from);
    if (definition === undefined || !definition.includes("fts5(") || definition !== definitionOf(sqlite, to)) return false;
    sqlite.unsafeMode(true);
    sqlite.transaction(() => {
      for (const shadow of SHADOW_TABLES) {
        sqlite.prepare(`delete from ${quoted(`${to}_${shadow}`)}`).run();
        sqlite.prepare(`insert into ${quoted(`${to}_${shadow}`)} select * from ${quoted(`${from}_${shadow}`)}`).run();
      }
    })();
    return true;
  } finally {
    sqlite.close();
  }
}
