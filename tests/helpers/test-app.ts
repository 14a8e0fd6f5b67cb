import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pino, { type Logger } from "pino";
import { inject } from "vitest";
import { createApp } from "../../server/app";
import { loadEnv, type Env } from "../../server/config/env";
import { openSqliteDatabase, type DatabaseHandle } from "../../server/db/connection";
import { migrateToLatest } from "../../server/db/migrate";
import { openSqliteWebDatabase } from "../../server/db/sqlite/web-database";
import { openWebDatabase } from "../../server/db/open-web-database";
import { databaseTarget, openDatabase } from "../../server/db/target";
import type { WebDatabase } from "../../server/db/web-database";
import { createExtractPool } from "../../server/ioc/extract-pool";
import { openImportStore, openSqliteImportStore, type ImportStore } from "../../server/pipeline/engine/store";
import { loadPageOnServer, rootLoaderOnServer } from "../../server/loaders/page-loaders";
import { readBuildInfo, readClientAssets } from "../../server/ssr/assets";
import { createSsrRenderer, type SsrRenderer } from "../../server/ssr/entry";
import type { RequestContext } from "../../server/http/request-context";
import type { PageCache } from "../../server/ssr/page-cache";
import { pageRoutes } from "../../shared/routes/page-routes";
import type { PageRoute } from "../../shared/routes/types";
import { DIST_DIR } from "./paths";
import { freshPostgresDatabase, testDatabaseKind } from "./test-database";

export { testDatabaseKind };

export interface TestApp {
  app: ReturnType<typeof createApp>;
  /** A connection of the test's own, for seeding: the app reads through its read pool. */
  database: DatabaseHandle;
  /** What the app reads through (closing it takes the database away from the app). */
  reads: WebDatabase;
  /** What imports into the app's database run on. */
  store: ImportStore;
  env: Env;
  buildId: string;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  pages?: readonly PageRoute[];
  /** An existing database file to serve instead of a fresh one. */
  databasePath?: string;
  now?: () => Date;
  logger?: Logger;
  pageCache?: PageCache | null;
  /** Wraps the real renderer (to watch or hold its work). */
  wrapRenderer?: (renderer: SsrRenderer<RequestContext>) => SsrRenderer<RequestContext>;
  /** The database kind, whatever the project runs on (the parity test opens one of each). */
  adapter?: "sqlite" | "postgres";
}

interface TestDatabase {
  database: DatabaseHandle;
  web: WebDatabase;
  store: ImportStore;
  cleanup(): Promise<void>;
}

async function openSqliteTestDatabase(options: TestAppOptions, env: Env): Promise<TestDatabase> {
  const dir = options.databasePath ? null : mkdtempSync(join(tmpdir(), "threat-radar-test-"));
  const path = options.databasePath ?? join(dir!, "test.sqlite");
  const database = openSqliteDatabase(path);
  await migrateToLatest(database.db);
  // As in production: reads on worker threads, extraction on another.
  const web = openSqliteWebDatabase({ path, threads: 2, queryTimeoutMs: env.QUERY_TIMEOUT_MS });
  const store = openSqliteImportStore(path);
  return {
    database,
    web,
    store,
    cleanup: async () => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * On PostgreSQL: a fresh database of the run's cluster, or, for the shared
 * snapshot database, its PostgreSQL twin (imported by the project's global
 * setup). Other SQLite files have no twin: such tests are SQLite-only.
 */
async function openPostgresTestDatabase(options: TestAppOptions, env: Env): Promise<TestDatabase> {
  let url: string;
  let drop: (() => Promise<void>) | null = null;
  if (options.databasePath === undefined) {
    const fresh = await freshPostgresDatabase();
    url = fresh.url;
    drop = fresh.drop;
  } else if (options.databasePath === inject("snapshotDatabase")) {
    url = inject("snapshotPostgres");
  } else {
    throw new Error(`no PostgreSQL twin of ${options.databasePath}: this test is SQLite-only`);
  }
  const target = databaseTarget({ DATABASE_PATH: "unused", DATABASE_URL: url, DATABASE_POOL_SIZE: 4 });
  const database = openDatabase(target);
  await migrateToLatest(database.db);
  const web = await openWebDatabase(target, { queryTimeoutMs: env.QUERY_TIMEOUT_MS });
  const store = openImportStore(target);
  return {
    database,
    web,
    store,
    cleanup: async () => {
      await drop?.();
    },
  };
}

/**
 * The real application on a real temporary database (SQLite, or PostgreSQL
 * in the integration-pg project), rendering with the real route table and
 * the client build's manifest (`npm run build`).
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const clientDir = resolve(DIST_DIR, "client");
  if (!existsSync(join(clientDir, ".vite/manifest.json"))) {
    throw new Error("No client build: run `npm run build` before the integration tests (npm test does).");
  }
  const env = loadEnv({ NODE_ENV: "test", LOG_LEVEL: "silent", ...options.env });
  const kind = options.adapter ?? testDatabaseKind();
  const { database, web, store, cleanup } = kind === "postgres" ? await openPostgresTestDatabase(options, env) : await openSqliteTestDatabase(options, env);
  // As in production, extraction runs on a worker thread.
  const extractPool = createExtractPool();
  const real = createSsrRenderer<RequestContext>({ loadPage: loadPageOnServer, rootLoader: rootLoaderOnServer, pages: options.pages });
  const renderer = options.wrapRenderer ? options.wrapRenderer(real) : real;
  const build = readBuildInfo(clientDir);
  const app = createApp({
    env,
    reads: web,
    extract: extractPool.extract,
    logger: options.logger ?? pino({ level: "silent" }),
    getRenderer: async () => renderer,
    routePatterns: renderer.routePatterns,
    assets: readClientAssets(clientDir, pageRoutes),
    build,
    clientDir,
    now: options.now,
    pageCache: options.pageCache,
  });
  return {
    app,
    database,
    reads: web,
    store,
    env,
    buildId: build.id,
    async close() {
      await Promise.all([web.close(), extractPool.close(), store.close()]);
      await database.close();
      await cleanup();
    },
  };
}
