import { Kysely } from "kysely";
import type { Database } from "../schema";
import type { WebDatabase } from "../web-database";
import { SqliteDataVersion } from "./data-version";
import { readPoolDialect, SqliteReadPool, type ReadPoolOptions } from "./read-pool";

export type { WebDatabase } from "../web-database";

/** SQLite's read side: queries run on the read pool's worker threads, never on the main thread. */
export interface SqliteWebDatabase extends WebDatabase {
  readPool: SqliteReadPool;
}

/** The read side of an existing, migrated SQLite database. */
export function openSqliteWebDatabase(options: ReadPoolOptions): SqliteWebDatabase {
  const readPool = new SqliteReadPool(options);
  const version = new SqliteDataVersion(options.path);
  const db = new Kysely<Database>({ dialect: readPoolDialect(readPool) });
  return {
    db,
    dataVersion: (domain) => version.current(domain),
    sourceStatusRows: () => version.statusRows(),
    importRunning: () => version.importRunning(),
    readPool,
    async close() {
      // Kysely's destroy() does nothing for a driver that never ran a query: close the pool itself.
      await Promise.all([db.destroy(), readPool.close()]);
      version.close();
    },
  };
}
