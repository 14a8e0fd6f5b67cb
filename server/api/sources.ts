import { Router } from "express";
import type { Kysely } from "kysely";
import type { Database } from "../db/schema";
import type { PipelineConfig } from "../pipeline/config";
import { currentImport } from "../pipeline/engine/lock";
import { querySourceStatuses } from "../sources/status";

export interface SourcesRouterOptions {
  db: Kysely<Database>;
  now: () => Date;
  /** When given, each source also reports whether it is enabled, its interval and its next attempt. */
  config?: PipelineConfig;
}

/**
 * `GET /sources`, mounted under /api/v1: every known source with its last
 * run, last error (every cause, and a hint), counts, data freshness and next
 * attempt, and the import running now, if any.
 */
export function createSourcesRouter({ db, now, config }: SourcesRouterOptions): Router {
  const router = Router();
  router.get("/sources", async (_req, res, next) => {
    try {
      const clock = now();
      const [sources, running] = await Promise.all([querySourceStatuses(db, clock, config), currentImport(db, clock)]);
      res.set("Cache-Control", "no-store").json({ generatedAt: clock.toISOString(), running, sources });
    } catch (error) {
      next(error);
    }
  });
  return router;
}
