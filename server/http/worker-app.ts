import express, { type Express } from "express";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../db/schema";
import { healthRoutes } from "./health";

/**
 * The whole HTTP surface of a `worker` process: liveness and readiness for
 * the orchestrator, and a 404 for anything else, so a worker put behind the
 * load balancer by mistake serves no stale or partial site.
 */
export function createWorkerApp(db: Kysely<Database>, logger: Logger): Express {
  const app = express();
  app.disable("x-powered-by");
  app.use(healthRoutes(db, { logger }));
  app.use((_req, res) => {
    res.status(404).json({ error: { statusCode: 404, message: "This is an import worker (SERVER_ROLE=worker): it serves only /healthz and /readyz." } });
  });
  return app;
}
