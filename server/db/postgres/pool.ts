import { Kysely, PostgresDialect, type PostgresPool } from "kysely";
import pg from "pg";
import Cursor from "pg-cursor";
import type { Database } from "../schema";

export interface PostgresPoolOptions {
  url: string;
  /** Connections the pool opens at most. */
  size: number;
  /** A statement still running after this long is cancelled by the server. */
  statementTimeoutMs?: number;
  /** Refuse writes on every connection (the web process's reads). */
  readOnly?: boolean;
  /**
   * Marks every connection as an import's, so its writes notify the web
   * nodes as an import's (migration 0018, ./data-version.ts).
   */
  importer?: boolean;
  applicationName: string;
}

/** The setting migration 0018's trigger reads to tell an import's writes from anyone else's. */
const WRITER_SETTING = "threat_radar.writer";

/**
 * An import's statements run in one backend, at the database server's normal
 * priority: the import process's SCHED_IDLE does not reach it. Parallel
 * workers would let one import statement take every core beside it (EPSS's
 * priority walk, maltrail's grouping, each index build), and the web nodes'
 * reads wait behind them.
 */
const IMPORT_SETTINGS = ["max_parallel_workers_per_gather=0", "max_parallel_maintenance_workers=0"];

/**
 * Integer and numeric results as JS numbers, as better-sqlite3 returns them:
 * pg returns bigint (count(*), every integer column here) and numeric (sum,
 * avg) as strings so as not to lose precision, but nothing here goes beyond
 * 2^53 (ids, counts, 48-bit hashes).
 */
const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === pg.types.builtins.INT8 || oid === pg.types.builtins.NUMERIC) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export function createPostgresPool(options: PostgresPoolOptions): pg.Pool {
  const settings = [
    ...(options.readOnly ? ["default_transaction_read_only=on"] : []),
    ...(options.importer ? [`${WRITER_SETTING}=import`, ...IMPORT_SETTINGS] : []),
  ]
    .map((setting) => `-c ${setting}`)
    .join(" ");
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.size,
    types,
    application_name: options.applicationName,
    ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
    ...(settings ? { options: settings } : {}),
  });
  // An idle connection the server ended (restart, failover, a dropped database) is an 'error' event:
  // unheard, it would end the process. The pool opens a new connection for the next query.
  pool.on("error", () => undefined);
  return pool;
}

/** Kysely on a pg pool; `.stream()` reads through a server-side cursor. */
export function postgresKysely<Tables = Database>(pool: pg.Pool | PostgresPool): Kysely<Tables> {
  return new Kysely<Tables>({ dialect: new PostgresDialect({ pool, cursor: Cursor }) });
}
