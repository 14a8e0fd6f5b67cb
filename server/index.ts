import { resolve } from "node:path";
import type { Server } from "node:http";
import type { Express } from "express";
import { createApp, type AppDependencies } from "./app";
import { ConfigError, loadEnv } from "./config/env";
import { migrateToLatest } from "./db/migrate";
import { createPostgresPool, postgresKysely } from "./db/postgres/pool";
import { openWebDatabase } from "./db/open-web-database";
import { databaseTarget, openDatabase } from "./db/target";
import { createExtractPool } from "./ioc/extract-pool";
import { listen, ListenError } from "./http/listen";
import { postgresRateLimitStores, type RateLimitTables } from "./http/postgres-rate-limit-store";
import { createWorkerApp } from "./http/worker-app";
import { createLogger } from "./logger";
import { loadPipelineConfig, PipelineConfigError } from "./pipeline/config";
import { recordCrashedImport } from "./pipeline/run";
import { runsImports, servesSite } from "./runtime/role";
import { childProcessRunner } from "./pipeline/runner";
import { startScheduler } from "./pipeline/scheduler";
import { loadPageOnServer, rootLoaderOnServer } from "./loaders/page-loaders";
import { devClientAssets, readBuildInfo, readClientAssets } from "./ssr/assets";
import { devRendererSource, loadBuiltRenderer } from "./ssr/load-renderer";
import { pageRoutes } from "../shared/routes/page-routes";

// From the sources this file is server/index.ts; built, it is dist/server/index.js.
const DIST = resolve(import.meta.dirname, /\.tsx?$/.test(import.meta.filename) ? "../dist" : "..");
const rendererOptions = { loadPage: loadPageOnServer, rootLoader: rootLoaderOnServer };

async function main(): Promise<void> {
  const env = loadEnv();
  const pipelineConfig = loadPipelineConfig();
  const dev = process.argv.includes("--dev");
  const logger = createLogger(env.LOG_LEVEL, env.LOG_FORMAT);

  const target = databaseTarget(env);
  const migrations = openDatabase(target);
  try {
    const applied = await migrateToLatest(migrations.db);
    if (applied.length > 0) logger.info({ migrations: applied }, "database migrated");
  } finally {
    await migrations.close();
  }
  const role = env.SERVER_ROLE;
  // A worker reads only for /readyz and its schedule: one read thread is plenty.
  const readThreads = env.DATABASE_READ_THREADS ?? (servesSite(role) ? undefined : 1);
  const web = await openWebDatabase(target, { readThreads, queryTimeoutMs: env.QUERY_TIMEOUT_MS, logger });
  const extractPool = servesSite(role) ? createExtractPool() : null;
  // On PostgreSQL every web node counts rate-limit hits in one table; the read pool refuses writes, so it gets a pool of its own.
  const limitCounters = servesSite(role) && target.kind === "postgres" ? openRateLimitDatabase(target.url) : null;
  let shuttingDown = false;
  const app = extractPool
    ? await createSiteApp(
        {
          env,
          reads: web,
          extract: extractPool.extract,
          logger,
          pipelineConfig,
          isShuttingDown: () => shuttingDown,
          rateLimitStores: limitCounters ? postgresRateLimitStores(limitCounters) : undefined,
        },
        dev,
      )
    : createWorkerApp(web.db, logger);

  const server: Server = await listen(app, env.PORT, env.HOST);
  logger.info({ port: env.PORT, host: env.HOST, dev, role }, `listening on http://${env.HOST}:${env.PORT}`);
  // Imports run in a process of their own; the scheduler only reads the sources' state (and records a crash).
  // Started once the server listens: a server that cannot start must not leave an import running.
  if (!runsImports(role)) logger.info({ role }, "no import schedule here: SERVER_ROLE=web leaves imports to a worker");
  const scheduler = runsImports(role)
    ? startScheduler({
        db: web.db,
        config: pipelineConfig,
        logger,
        runner: childProcessRunner({ databasePath: target.kind === "sqlite" ? target.path : null, env: process.env, logger }),
        recordCrash: async (source, message, at) => {
          const writer = openDatabase(target);
          try {
            await recordCrashedImport(writer.db, source, message, at);
          } finally {
            await writer.close();
          }
        },
      })
    : null;

  const shutdown = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, "shutting down: no new connections, finishing in-flight requests");
    const force = setTimeout(() => server.closeAllConnections(), env.SHUTDOWN_GRACE_MS);
    force.unref();
    // Responses now say "Connection: close"; idle keep-alive connections are closed as soon as they are idle.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    sweep.unref();
    server.close(async () => {
      clearInterval(sweep);
      await scheduler?.stop();
      await Promise.all([web.close(), extractPool?.close(), limitCounters?.destroy()]);
      logger.info("stopped");
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
}

type SiteDependencies = Pick<AppDependencies, "env" | "reads" | "extract" | "logger" | "pipelineConfig" | "isShuttingDown" | "rateLimitStores">;

/** Connections for the shared rate-limit counters: one short upsert per request each. */
const RATE_LIMIT_POOL_SIZE = 4;

function openRateLimitDatabase(url: string) {
  const pool = createPostgresPool({ url, size: RATE_LIMIT_POOL_SIZE, applicationName: "threat-radar rate limits" });
  return postgresKysely<RateLimitTables>(pool);
}

/** The site (pages, API, static files): rendered by Vite's module graph in development, the built bundle otherwise. */
async function createSiteApp(common: SiteDependencies, dev: boolean): Promise<Express> {
  const routePatterns = pageRoutes.map((page) => page.path);
  if (dev) {
    const { createServer } = await import("vite");
    const vite = await createServer({ server: { middlewareMode: true }, appType: "custom" });
    // Builds the route table now: a route naming unknown middleware stops the start, not the first request.
    const getRenderer = await devRendererSource(vite, rendererOptions);
    return createApp({
      ...common,
      vite,
      getRenderer,
      routePatterns,
      assets: devClientAssets,
      build: { id: "development", timestamp: Date.now() },
    });
  }
  const clientDir = resolve(DIST, "client");
  const renderer = await loadBuiltRenderer(resolve(DIST, "server"), rendererOptions);
  return createApp({
    ...common,
    getRenderer: async () => renderer,
    routePatterns: renderer.routePatterns,
    assets: readClientAssets(clientDir, pageRoutes),
    build: readBuildInfo(clientDir),
    clientDir,
  });
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof PipelineConfigError || error instanceof ListenError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`Threat Radar failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});
