import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { applySqlitePragmas } from "./sqlite-specific";
import type { Database } from "./schema";

export interface DatabaseHandle {
  db: Kysely<Database>;
  /** Resolves once every pending query has finished and the file is closed. */
  close(): Promise<void>;
}

/** Opens (creating if needed) the embedded SQLite database at `path`. */
export function openSqliteDatabase(path: string): DatabaseHandle {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  applySqlitePragmas(sqlite);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, close: () => db.destroy() };
}
