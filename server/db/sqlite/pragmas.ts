import type SQLite from "better-sqlite3";

/** `PRAGMA auto_vacuum`'s value for INCREMENTAL. */
export const AUTO_VACUUM_INCREMENTAL = 2;

/** Settings of a connection that writes: migrations and imports. */
export function applyWritePragmas(sqlite: SQLite.Database): void {
  // Lets an import hand back the pages a switched-out generation of tables
  // leaves free (docs/decisions/0005). It takes effect only while the file
  // has no tables yet: an older database keeps its mode until a VACUUM.
  // Set again on a file already in that mode, it rewrites the header: a
  // commit, which moved the web process's data version (emptying its caches)
  // whenever an import started.
  if (sqlite.pragma("auto_vacuum", { simple: true }) !== AUTO_VACUUM_INCREMENTAL) sqlite.pragma("auto_vacuum = INCREMENTAL");
  // WAL lets readers (the web process's read pool) keep reading while an import writes.
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("cache_size = -65536");
  sqlite.pragma("temp_store = MEMORY");
}

/**
 * Settings of a read-only connection of the read pool. Each worker has its
 * own small page cache; the file itself stays in the operating system's
 * page cache, shared by every worker. It is read, not memory-mapped: mapped
 * pages count in the process's resident memory (about 1 GB after a few page
 * views on the full import), which hides the server's real footprint from
 * the operator and from a container's memory limit.
 */
export function applyReadPragmas(sqlite: SQLite.Database, cacheKib: number): void {
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma(`cache_size = -${Math.max(1024, Math.round(cacheKib))}`);
  sqlite.pragma("mmap_size = 0");
  sqlite.pragma("temp_store = MEMORY");
}
