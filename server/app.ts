import express, { type Express } from "express";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { ViteDevServer } from "vite";
import type { BuildInfo } from "../shared/config/public-config";
import { RATE_LIMIT_STATUS } from "../shared/constants";
import { toPublicConfig, trustProxySetting, type Env } from "./config/env";
import type { Database } from "./db/schema";
import type { PipelineConfig } from "./pipeline/config";
import { cveRoutes } from "./api/cves";
import { iocRoutes } from "./api/iocs";
import { openApiRoutes } from "./api/openapi";
import { createSourcesRouter } from "./api/sources";
import { suggestRoutes } from "./api/suggest";
import { createCveService } from "./cve/service";
import { createVersionedCache } from "./db/versioned-cache";
import { queryHomeOverview } from "./home/overview";
import { createIocService } from "./ioc/service";
import { accessLog } from "./http/access-log";
import { responseCompression } from "./http/compression";
import { buildRoutes } from "./http/builds";
import { apiNotFound, errorHandler } from "./http/errors";
import { healthRoutes } from "./http/health";
import { pageHandler } from "./http/pages";
import { payloadHandler } from "./http/payload";
import { apiRateLimit, pageRateLimit } from "./http/rate-limit";
import type { RequestContext } from "./http/request-context";
import { assignNonce, securityHeaders } from "./security/csp";
import type { ClientAssets } from "./ssr/assets";
import type { SsrRenderer } from "./ssr/entry";

export interface AppDependencies {
  env: Env;
  db: Kysely<Database>;
  logger: Logger;
  /** The SSR half of the route table: the built bundle in production, Vite's module graph in development. */
  getRenderer: () => Promise<SsrRenderer>;
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
}

/** Builds the Express application. It never listens: server/index.ts does, and tests use it directly. */
export function createApp(deps: AppDependencies): Express {
  const { env, db, logger } = deps;
  const publicConfig = toPublicConfig(env);
  const boot = { config: publicConfig, build: deps.build };
  const now = deps.now ?? (() => new Date());
  const cves = createCveService(db);
  const iocs = createIocService(db);
  const homeCache = createVersionedCache(db, 50);
  const overview = (at: Date) => queryHomeOverview({ db, cves, cached: homeCache, pipelineConfig: deps.pipelineConfig }, at);
  const requestContext = (res: express.Response): RequestContext => ({
    db,
    now,
    cves,
    iocs,
    overview,
    forcedError: res.locals.rateLimited
      ? { status: RATE_LIMIT_STATUS, message: "Too many requests" }
      : undefined,
  });
  const limits = { windowMs: env.RATE_LIMIT_WINDOW_MS };

  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", trustProxySetting(env.TRUST_PROXY));
  app.use(accessLog(logger));
  app.use(assignNonce);
  app.use(securityHeaders({ config: publicConfig, dev: Boolean(deps.vite) }));
  app.use(responseCompression());

  app.use(healthRoutes(db));
  app.use(buildRoutes({ build: deps.build, routePatterns: deps.routePatterns }));

  if (deps.vite) {
    app.use(deps.vite.middlewares);
  } else if (deps.clientDir) {
    app.use("/assets", express.static(`${deps.clientDir}/assets`, { immutable: true, maxAge: "1y", index: false }));
    app.use(express.static(deps.clientDir, { index: false, maxAge: "1d", dotfiles: "ignore" }));
  }

  const api = express.Router();
  api.use(apiRateLimit({ ...limits, limit: env.RATE_LIMIT_API_MAX }));
  api.use(express.json({ limit: "1mb" }));
  api.use("/v1", cveRoutes({ db, cves, now, siteUrl: env.SITE_URL }));
  api.use(
    "/v1",
    iocRoutes({
      db,
      iocs,
      now,
      siteUrl: env.SITE_URL,
      botCheck: env.RECAPTCHA_SITE_KEY
        ? { secret: env.RECAPTCHA_SECRET_KEY ?? "", verifyUrl: env.RECAPTCHA_VERIFY_URL, minScore: env.RECAPTCHA_MIN_SCORE }
        : undefined,
      rateLimit: { windowMs: env.RATE_LIMIT_WINDOW_MS, lookupMax: env.RATE_LIMIT_LOOKUP_MAX },
    }),
  );
  api.use("/v1", createSourcesRouter({ db, now, config: deps.pipelineConfig }));
  api.use("/v1", suggestRoutes(db, homeCache));
  api.use("/v1", openApiRoutes());
  api.use(apiNotFound);
  app.use("/api", api);

  app.use(pageRateLimit({ ...limits, limit: env.RATE_LIMIT_PAGES_MAX }));
  app.get("/{*path}", payloadHandler({ getRenderer: deps.getRenderer, build: deps.build, requestContext, logger }));
  app.get(
    "/{*path}",
    pageHandler({
      getRenderer: deps.getRenderer,
      assets: deps.assets,
      boot,
      requestContext,
      abortAfterMs: env.SSR_ABORT_MS,
      logger,
      devHead: deps.vite ? viteDevHead(deps.vite) : undefined,
    }),
  );
  app.use(errorHandler(logger));
  return app;
}

/** Vite's client and React-refresh preamble, with this request's nonce on every inline script. */
function viteDevHead(vite: ViteDevServer) {
  return async (url: string, nonce: string) => {
    const html = await vite.transformIndexHtml(url, "<html><head></head><body></body></html>");
    const head = /<head>([\s\S]*)<\/head>/.exec(html)?.[1] ?? "";
    return head.replace(/<script/g, `<script nonce="${nonce}"`);
  };
}
