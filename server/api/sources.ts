import { Router } from "express";
import type { Kysely, Selectable } from "kysely";
import type { Database, SourcesTable } from "../db/schema";
import type { SourceStatusRows } from "../db/web-database";
import type { PipelineConfig } from "../pipeline/config";
import { sendSmallJson } from "../http/small-json";
import { currentImport, runningImport, type LockHolder } from "../pipeline/engine/lock";
import { sourceStatuses } from "../sources/status";

export interface SourcesRouterOptions {
  db: Kysely<Database>;
  now: () => Date;
  /** When given, each source also reports whether it is enabled, its interval and its next attempt. */
  config?: PipelineConfig;
  /** The status rows without a query (SQLite's data version holds them); without it they are queried. */
  statusRows?: () => SourceStatusRows;
  /** zlib level of the answer (COMPRESSION_LEVEL); zlib's default without it. */
  compressionLevel?: number;
}

async function readStatus(
  db: Kysely<Database>,
  at: Date,
  statusRows: (() => SourceStatusRows) | undefined,
): Promise<{ sources: Selectable<SourcesTable>[]; running: LockHolder | null }> {
  if (statusRows) {
    const { sources, importLock } = statusRows();
    return { sources, running: runningImport(importLock, at) };
  }
  const [sources, running] = await Promise.all([db.selectFrom("sources").selectAll().execute(), currentImport(db, at)]);
  return { sources, running };
}

/**
 * `GET /sources`, mounted under /api/v1: every known source with its last
 * run, last error (every cause, and a hint), counts, data freshness and next
 * attempt, and the import running now, if any.
 */
export function createSourcesRouter({ db, now, config, statusRows, compressionLevel }: SourcesRouterOptions): Router {
  const router = Router();
  router.get("/sources", async (req, res, next) => {
    try {
      const clock = now();
      const { sources, running } = await readStatus(db, clock, statusRows);
      res.set("Cache-Control", "no-store");
      sendSmallJson(req, res, { generatedAt: clock.toISOString(), running, sources: sourceStatuses(sources, clock, config) }, compressionLevel);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
