import express, { type Express } from "express";
import type { Logger } from "pino";
import type { ViteDevServer } from "vite";
import type { BuildInfo } from "../shared/config/public-config";
import { toPublicConfig, trustProxySetting, type Env } from "./config/env";
import type { WebDatabase } from "./db/web-database";
import type { PipelineConfig } from "./pipeline/config";
import { cveRoutes } from "./api/cves";
import { iocRoutes } from "./api/iocs";
import { openApiRoutes } from "./api/openapi";
import { createSourcesRouter } from "./api/sources";
import { suggestRoutes } from "./api/suggest";
import { createCveService } from "./cve/service";
import { createVersionedCache } from "./db/versioned-cache";
import { queryHomeOverview } from "./home/overview";
import type { Extract } from "./ioc/extract-pool";
import { createIocService } from "./ioc/service";
import { accessLog } from "./http/access-log";
import { createAdmission } from "./http/admission";
import { cachedDocuments } from "./http/cached-documents";
import { responseCompression } from "./http/compression";
import { buildRoutes } from "./http/builds";
import { apiNotFound, errorHandler } from "./http/error-responses";
import { eventLoopSlices } from "./http/event-loop-slices";
import { HEALTH_PATHS, healthRoutes } from "./http/health";
import { createMetrics } from "./metrics/metrics";
import { pageHandler } from "./http/page-documents";
import { payloadHandler } from "./http/payload-handler";
import { apiRateLimit, pageRateLimit, type RateLimitStores } from "./http/rate-limit";
import type { RequestContext } from "./http/request-context";
import { requestScope } from "./http/request-scope-middleware";
import { shedHandler } from "./http/shed";
import { staticFiles } from "./http/static-files";
import { pageDomain } from "./http/page-domain";
import { assignNonce, securityHeaders } from "./security/csp";
import type { ClientAssets } from "./ssr/assets";
import type { SsrRenderer } from "./ssr/entry";
import { PageCache } from "./ssr/page-cache";

export interface AppDependencies {
  env: Env;
  /**
   * What the data is read through (server/db/web-database.ts): the read pool,
   * the data version every cache is keyed by, the sources' status rows and
   * whether an import is running.
   */
  reads: Omit<WebDatabase, "close">;
  /** Indicator extraction for bulk lookups, off the main thread in production. */
  extract: Extract;
  logger: Logger;
  /** The SSR half of the route table: the built bundle in production, Vite's module graph in development. */
  getRenderer: () => Promise<SsrRenderer<RequestContext>>;
  /** Route patterns for the build manifest (the renderer's, known at start-up). */
  routePatterns: string[];
  assets: ClientAssets;
  build: BuildInfo;
  /** Directory of the production client build, served as static files. */
  clientDir?: string;
  vite?: ViteDevServer;
  /** Lets `/api/v1/sources` report each source's schedule. */
  pipelineConfig?: PipelineConfig;
  now?: () => Date;
  /** The cache of rendered pages; by default one of PAGE_CACHE_MB (none in development or at 0). */
  pageCache?: PageCache | null;
  /** Set while the server shuts down: responses then close their connection. */
  isShuttingDown?: () => boolean;
  /**
   * Where rate-limit hits are counted: by default in this process's memory
   * (SQLite, one node); on PostgreSQL, a table every node shares, written
   * through a pool of its own (the read pool refuses writes).
   */
  rateLimitStores?: RateLimitStores;
}

/** Request work run per turn of the event loop before sockets (health checks) are read again. */
const EVENT_LOOP_SLICE_MS = 10;

/** Builds the Express application. It never listens: server/index.ts does, and tests use it directly. */
export function createApp(deps: AppDependencies): Express {
  const { env, logger, reads } = deps;
  const { dataVersion } = reads;
  const metrics = createMetrics({ db: reads.db, pagePatterns: deps.routePatterns, access: { token: env.METRICS_TOKEN, allow: env.METRICS_ALLOW } });
  const db = reads.db.withPlugin(metrics.queryTimer);
  const publicConfig = toPublicConfig(env);
  const boot = { config: publicConfig, build: deps.build };
  const now = deps.now ?? (() => new Date());
  const cves = createCveService(db, dataVersion);
  const iocs = createIocService(db, dataVersion, deps.extract);
  const homeCache = createVersionedCache(dataVersion, 50);
  const overview = (at: Date) => queryHomeOverview({ db, cves, cached: homeCache, pipelineConfig: deps.pipelineConfig }, at);
  const requestContext = (res: express.Response): RequestContext => ({ db, now, cves, iocs, overview, forcedError: res.locals.forcedError });
  const limits = { windowMs: env.RATE_LIMIT_WINDOW_MS };
  const limitStores = deps.rateLimitStores;
  // Development renders from changing sources: nothing is kept.
  const pageCache =
    deps.pageCache !== undefined
      ? deps.pageCache
      : env.PAGE_CACHE_MB > 0 && !deps.vite
        ? new PageCache({ maxBytes: env.PAGE_CACHE_MB * 1024 * 1024, level: 9 })
        : null;
  // A page that shows one radar alone is keyed by that radar's data version (server/db/data-domains.ts).
  const cacheScope = (pathname: string | null) => ({
    build: deps.build.id,
    data: dataVersion((pathname === null ? null : pageDomain(pathname)) ?? undefined),
    hour: now().toISOString().slice(0, 13),
  });

  const responseCache = pageCache ? { store: pageCache, scope: cacheScope, importRunning: reads.importRunning } : undefined;

  const pages = pageHandler({
    getRenderer: deps.getRenderer,
    assets: deps.assets,
    boot,
    requestContext,
    abortAfterMs: env.SSR_ABORT_MS,
    logger,
    cache: responseCache,
    observeRender: metrics.observeRender,
    devHead: deps.vite ? viteDevHead(deps.vite) : undefined,
  });
  const payloads = payloadHandler({
    getRenderer: deps.getRenderer,
    build: deps.build,
    requestContext,
    logger,
    cache: responseCache,
  });
  const shed = shedHandler({ pages, payloads, logger });
  const admission = createAdmission({
    concurrency: env.SERVE_CONCURRENCY,
    queueBudgetMs: env.SERVE_QUEUE_MS,
    maxQueue: env.SERVE_QUEUE_MAX,
    shed,
  });

  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", trustProxySetting(env.TRUST_PROXY));
  app.use(metrics.middleware);
  app.use(accessLog(logger));
  app.use(requestScope);
  if (deps.isShuttingDown) {
    const shuttingDown = deps.isShuttingDown;
    // A keep-alive client would otherwise keep sending requests to a server that is leaving.
    app.use((_req, res, next) => {
      if (shuttingDown()) res.set("Connection", "close");
      next();
    });
  }
  app.use(assignNonce);
  app.use(securityHeaders({ config: publicConfig, dev: Boolean(deps.vite) }));
  app.use(responseCompression(env.COMPRESSION_LEVEL));
  app.use(
    eventLoopSlices({
      sliceMs: EVENT_LOOP_SLICE_MS,
      maxWaitMs: env.SERVE_QUEUE_MS,
      bypass: (req) => HEALTH_PATHS.has(req.path),
      shed: (req, res) => shed(req, res, "wait-too-long"),
    }),
  );

  // Health, build information and static files answer at once: they never wait in line for the database.
  app.use(healthRoutes(db, { logger }));
  app.use(metrics.router);
  app.use(buildRoutes({ build: deps.build, routePatterns: deps.routePatterns }));
  if (deps.vite) {
    app.use(deps.vite.middlewares);
  } else if (deps.clientDir) {
    app.use(staticFiles(deps.clientDir));
  }

  const api = express.Router();
  api.use(apiRateLimit({ ...limits, limit: env.RATE_LIMIT_API_MAX, store: limitStores?.("api") }));
  api.use(admission.middleware);
  api.use(express.json({ limit: "1mb" }));
  api.use("/v1", cveRoutes({ db, cves, now, logger, siteUrl: env.SITE_URL }));
  api.use(
    "/v1",
    iocRoutes({
      db,
      iocs,
      now,
      logger,
      siteUrl: env.SITE_URL,
      botCheck: env.RECAPTCHA_SITE_KEY
        ? { secret: env.RECAPTCHA_SECRET_KEY ?? "", verifyUrl: env.RECAPTCHA_VERIFY_URL, minScore: env.RECAPTCHA_MIN_SCORE }
        : undefined,
      rateLimit: { windowMs: env.RATE_LIMIT_WINDOW_MS, lookupMax: env.RATE_LIMIT_LOOKUP_MAX, store: limitStores?.("lookup") },
    }),
  );
  api.use(
    "/v1",
    createSourcesRouter({
      db,
      now,
      config: deps.pipelineConfig,
      statusRows: reads.sourceStatusRows,
      statusVersion: reads.statusVersion,
      compressionLevel: env.COMPRESSION_LEVEL,
    }),
  );
  api.use("/v1", suggestRoutes(db, homeCache));
  api.use("/v1", openApiRoutes());
  api.use(apiNotFound);
  app.use("/api", api);

  // Pages match their paths themselves (React Router), so Express never decodes a path here:
  // an undecodable one reaches the router and gets the error screen like any unknown page.
  const pageRoute = express.Router();
  pageRoute.use(pageRateLimit({ ...limits, limit: env.RATE_LIMIT_PAGES_MAX, store: limitStores?.("pages") }));
  if (responseCache) pageRoute.use(cachedDocuments(responseCache));
  pageRoute.use(admission.middleware);
  pageRoute.use((req, res, next) => (req.method === "GET" || req.method === "HEAD" ? payloads(req, res, next) : next()));
  pageRoute.use((req, res, next) => (req.method === "GET" || req.method === "HEAD" ? pages(req, res, next) : next()));
  app.use(pageRoute);
  app.use(errorHandler({ logger, pages, payloads }));
  return app;
}

/** Vite's client and React-refresh preamble, with this request's nonce on every inline script. */
function viteDevHead(vite: ViteDevServer) {
  return async (url: string, nonce: string) => {
    const html = await vite.transformIndexHtml(url, "<html><head></head><body></body></html>");
    const start = html.indexOf("<head>");
    const end = html.lastIndexOf("</head>");
    const head = start >= 0 && end > start ? html.slice(start + "<head>".length, end) : "";
    return head.replace(/<script/g, `<script nonce="${nonce}"`);
  };
}
