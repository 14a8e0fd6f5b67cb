import { Router } from "express";
import type { Kysely, Selectable } from "kysely";
import type { Database, SourcesTable } from "../db/schema";
import type { SourceStatusRows } from "../db/web-database";
import type { PipelineConfig } from "../pipeline/config";
import { createVersionedCache } from "../db/versioned-cache";
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
  /** Where they are queried: a version that moves whenever they may have changed, to reuse a reading until it does. */
  statusVersion?: () => string;
  /** zlib level of the answer (COMPRESSION_LEVEL); zlib's default without it. */
  compressionLevel?: number;
}

interface StatusReading {
  sources: Selectable<SourcesTable>[];
  running: LockHolder | null;
}

async function queryStatus(db: Kysely<Database>, at: Date): Promise<StatusReading> {
  const [sources, running] = await Promise.all([db.selectFrom("sources").selectAll().execute(), currentImport(db, at)]);
  return { sources, running };
}

/**
 * How the status is read: from the rows the data version holds (SQLite),
 * from the last reading while the status version stays (PostgreSQL: two
 * queries per request were most of the answer's time beside an import), or
 * queried for each request.
 */
function statusReader(
  db: Kysely<Database>,
  statusRows: (() => SourceStatusRows) | undefined,
  statusVersion: (() => string) | undefined,
): (at: Date) => Promise<StatusReading> {
  if (statusRows) {
    return async (at) => {
      const { sources, importLock } = statusRows();
      return { sources, running: runningImport(importLock, at) };
    };
  }
  if (statusVersion) {
    const cached = createVersionedCache(statusVersion, 1);
    return (at) => cached("status", () => queryStatus(db, at));
  }
  return (at) => queryStatus(db, at);
}

/**
 * `GET /sources`, mounted under /api/v1: every known source with its last
 * run, last error (every cause, and a hint), counts, data freshness and next
 * attempt, and the import running now, if any.
 */
export function createSourcesRouter({ db, now, config, statusRows, statusVersion, compressionLevel }: SourcesRouterOptions): Router {
  const router = Router();
  const readStatus = statusReader(db, statusRows, statusVersion);
  router.get("/sources", async (req, res, next) => {
    try {
      const clock = now();
      const { sources, running } = await readStatus(clock);
      res.set("Cache-Control", "no-store");
      sendSmallJson(req, res, { generatedAt: clock.toISOString(), running, sources: sourceStatuses(sources, clock, config) }, compressionLevel);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
