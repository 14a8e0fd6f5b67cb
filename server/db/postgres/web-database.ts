import type { Logger } from "pino";
import type { WebDatabase } from "../web-database";
import { PostgresDataVersion } from "./data-version";
import { cancelOnClientLeave } from "./cancel-on-leave";
import { createPostgresPool, postgresKysely } from "./pool";

export interface PostgresWebDatabaseOptions {
  url: string;
  /** Connections of the pool (DATABASE_POOL_SIZE). */
  poolSize: number;
  /** The server cancels a read that runs longer (QUERY_TIMEOUT_MS); the page answers 503. */
  queryTimeoutMs: number;
  logger?: Logger;
}

/**
 * The read side of a migrated PostgreSQL database: a pg pool whose
 * connections refuse writes (as SQLite's read-only workers do) and cancel
 * statements past the time limit on the server, plus the data version the
 * caches key on. Unlike SQLite's read pool, queries do not block the event
 * loop, so they run on the main thread. A read whose client left is not sent,
 * or is cancelled if it runs (./cancel-on-leave.ts).
 */
export async function openPostgresWebDatabase(options: PostgresWebDatabaseOptions): Promise<WebDatabase> {
  const pool = createPostgresPool({
    url: options.url,
    size: options.poolSize,
    statementTimeoutMs: options.queryTimeoutMs,
    readOnly: true,
    applicationName: "threat-radar web",
  });
  pool.on("error", (error) => options.logger?.warn({ err: error }, "an idle database connection failed"));
  const version = new PostgresDataVersion(options.url, options.logger);
  try {
    await version.start();
  } catch (error) {
    await pool.end();
    throw error;
  }
  // One connection to cancel reads with: the web pool may be full of the very reads to cancel.
  const canceller = createPostgresPool({ url: options.url, size: 1, applicationName: "threat-radar web cancel" });
  const db = postgresKysely(cancelOnClientLeave(pool, canceller));
  return {
    db,
    dataVersion: (domain) => version.current(domain),
    importRunning: () => version.importRunning(),
    statusVersion: () => version.statusVersion(),
    async close() {
      await version.close();
      await db.destroy();
      // Kysely's destroy() ends the pools (reads and the canceller) only if a query ever ran: a web database
      // closed unused would keep serving.
      if (!pool.ending) await pool.end();
      if (!canceller.ending) await canceller.end();
    },
  };
}
