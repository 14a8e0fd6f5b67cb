import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { applyWritePragmas } from "./sqlite/pragmas";
import type { Database } from "./schema";

export interface DatabaseHandle {
  db: Kysely<Database>;
  /** Resolves once every pending query has finished and the file is closed. */
  close(): Promise<void>;
}

/**
 * Opens (creating if needed) the embedded SQLite database at `path` on this
 * thread: for migrations, imports and tests. The web process reads through
 * its read pool instead (server/db/sqlite/read-pool.ts).
 */
export function openSqliteDatabase(path: string): DatabaseHandle {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  applyWritePragmas(sqlite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, close: () => db.destroy() };
}
