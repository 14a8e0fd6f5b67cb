import { Kysely } from "kysely";
import type { Database } from "../schema";
import type { DataVersion } from "../versioned-cache";
import { SqliteDataVersion } from "./data-version";
import { readPoolDialect, SqliteReadPool, type ReadPoolOptions } from "./read-pool";

/** What the web process reads through. */
export interface WebDatabase {
  /** Queries run on the read pool's worker threads, never on the main thread. */
  db: Kysely<Database>;
  dataVersion: DataVersion;
  readPool: SqliteReadPool;
  close(): Promise<void>;
}

/** The read side of an existing, migrated SQLite database. */
export function openSqliteWebDatabase(options: ReadPoolOptions): WebDatabase {
  const readPool = new SqliteReadPool(options);
  const version = new SqliteDataVersion(options.path);
  const db = new Kysely<Database>({ dialect: readPoolDialect(readPool) });
  return {
    db,
    dataVersion: () => version.current(),
    readPool,
    async close() {
      // Kysely's destroy() does nothing for a driver that never ran a query: close the pool itself.
      await Promise.all([db.destroy(), readPool.close()]);
      version.close();
    },
  };
}
