import SQLite from "better-sqlite3";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { Kysely, sql, SqliteDialect } from "kysely";
import { dialectOf, type SqlDialect } from "../../db/dialect";
import type { Database } from "../../db/schema";
import { copyFts5Index } from "../../db/sqlite/fts5-copy";
import { applyWritePragmas, AUTO_VACUUM_INCREMENTAL } from "../../db/sqlite/pragmas";
import { createPostgresPool, postgresKysely } from "../../db/postgres/pool";
import type { DatabaseTarget } from "../../db/target";
import { openPostgresStaging, STAGING_SCHEMA } from "./postgres-staging";
import { openSqliteStaging, type StagingArea } from "./staging";

/** The database as an import sees it: a connection of its own, a staging area, and how it merges big changes. */
export interface ImportStore {
  db: Kysely<Database>;
  dialect: SqlDialect;
  /** A fresh staging area for one source's run. */
  openStaging(source: string): StagingArea;
  /**
   * Removes the staging a killed run left (a run that ends disposes of its
   * own), returning what it removed. Only under the import lock, before a
   * run opens its staging.
   */
  removeStagingLeftovers(): Promise<string[]>;
  /**
   * Whether a large merge is built into next-generation tables and switched
   * in (SQLite: keeps the WAL bounded) rather than done in one transaction.
   */
  readonly rebuildsLargeMerges: boolean;
  /** Lets the WAL be reused between the statements of a large merge. */
  checkpoint(): Promise<void>;
  /**
   * Fills a large merge's next-generation value search index (`to`, empty)
   * with a copy of the served one (`from`); false when it cannot copy, and
   * the merge then indexes every value again. Only where rebuildsLargeMerges.
   */
  copyValueSearchIndex(from: string, to: string): Promise<boolean>;
  /**
   * Gives the file's free pages back to the file system, in bounded steps
   * (the WAL checkpointed between them), after a large merge dropped the
   * tables it replaced. Nothing to do on PostgreSQL, or on a SQLite file
   * created before incremental auto-vacuum (README: upgrading).
   */
  reclaimFreePages(): Promise<void>;
  /**
   * An index on a staging table (the dialects name it differently). `notNull`:
   * a column whose null rows it leaves out (a partial index); a lookup by
   * equality on that column still uses it.
   */
  indexStaging(db: Kysely<Database>, table: string, columns: readonly string[], notNull?: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Page cache of an import's connection. 32 MB imports CVE records and maltrail
 * as fast as 128 MB did, and keeps their peak RSS at 360 and 343 MB instead
 * of 615 and 706 MB.
 */
export const IMPORT_CACHE_KIB = 32 * 1024;

/** Pages freed per transaction when a file shrinks: 32 MB of 4 KiB pages moved at most, so the WAL stays small. */
const RECLAIM_PAGES_PER_STEP = 8_192;

/** A SQLite staging file is the database file's name, this, and the source's name. */
const STAGING_SUFFIX = ".staging-";

export function openSqliteImportStore(path: string): ImportStore {
  mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  applyWritePragmas(sqlite);
  sqlite.pragma(`cache_size = -${IMPORT_CACHE_KIB}`);
  // Grouping and sorting a million staged rows must not happen in memory.
  sqlite.pragma("temp_store = FILE");
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
  return {
    db,
    dialect: dialectOf(db),
    openStaging: (source) => openSqliteStaging(sqlite, `${path}${STAGING_SUFFIX}${source}`),
    async removeStagingLeftovers() {
      const dir = dirname(path);
      const prefix = `${basename(path)}${STAGING_SUFFIX}`;
      const leftovers = readdirSync(dir)
        .filter((name) => name.startsWith(prefix))
        .map((name) => join(dir, name));
      for (const file of leftovers) rmSync(file, { force: true });
      return leftovers;
    },
    rebuildsLargeMerges: true,
    async checkpoint() {
      await sql`pragma wal_checkpoint(passive)`.execute(db);
    },
    copyValueSearchIndex: async (from, to) => copyFts5Index(path, from, to),
    async reclaimFreePages() {
      if (sqlite.pragma("auto_vacuum", { simple: true }) !== AUTO_VACUUM_INCREMENTAL) return;
      while (Number(sqlite.pragma("freelist_count", { simple: true })) > 0) {
        sqlite.pragma(`incremental_vacuum(${RECLAIM_PAGES_PER_STEP})`);
        sqlite.pragma("wal_checkpoint(passive)");
      }
    },
    async indexStaging(on, table, columns, notNull) {
      await sql`create index ${sql.id("staging", `${table}_${columns.join("_")}`)} on ${sql.id(table)} (${sql.join(columns.map((c) => sql.id(c)))})${partial(notNull)}`.execute(
        on,
      );
    },
    close: () => db.destroy(),
  };
}

/**
 * Connections of an import on PostgreSQL: the staging writes overlap with
 * parsing on two, a merge holds one for its transaction.
 */
const IMPORT_POOL_SIZE = 3;

/**
 * PostgreSQL's import store: staging in UNLOGGED tables of the `staging`
 * schema, and every merge in one transaction however large (PostgreSQL's
 * MVCC keeps readers on the old rows until the commit, and its WAL needs no
 * checkpoint between statements).
 */
export function openPostgresImportStore(url: string): ImportStore {
  const pool = createPostgresPool({ url, size: IMPORT_POOL_SIZE, importer: true, applicationName: "threat-radar import" });
  const db = postgresKysely(pool);
  return {
    db,
    dialect: dialectOf(db),
    openStaging: () => openPostgresStaging(pool),
    async removeStagingLeftovers() {
      const { rowCount } = await pool.query("select 1 from pg_namespace where nspname = $1", [STAGING_SCHEMA]);
      if (!rowCount) return [];
      await pool.query(`drop schema "${STAGING_SCHEMA}" cascade`);
      return [`schema ${STAGING_SCHEMA}`];
    },
    rebuildsLargeMerges: false,
    async checkpoint() {},
    // Never asked: PostgreSQL merges in place, and its value search index is an index of the table.
    copyValueSearchIndex: async () => false,
    // Autovacuum gives dead rows' space back to the tables on its own schedule.
    async reclaimFreePages() {},
    async indexStaging(on, table, columns, notNull) {
      await sql`create index on ${sql.table(`${STAGING_SCHEMA}.${table}`)} (${sql.join(columns.map((c) => sql.id(c)))})${partial(notNull)}`.execute(on);
      // A table filled moments ago has no statistics yet: without them the merge may be planned for a handful of rows.
      await sql`analyze ${sql.table(`${STAGING_SCHEMA}.${table}`)}`.execute(on);
    },
    close: () => db.destroy(),
  };
}

/** The where clause of a staging index that leaves out rows whose `column` is null. */
function partial(column: string | undefined) {
  return column === undefined ? sql`` : sql` where ${sql.id(column)} is not null`;
}

/** The import store of the database the target names. */
export function openImportStore(target: DatabaseTarget): ImportStore {
  return target.kind === "sqlite" ? openSqliteImportStore(target.path) : openPostgresImportStore(target.url);
}
