import { Router } from "express";
import type { Kysely } from "kysely";
import type { Database } from "../db/schema";
import type { PipelineConfig } from "../pipeline/config";
import { SOURCES } from "../pipeline/sources";
import type { SourceStatus } from "../../shared/types/sources";

export type { SourceStatus };

export interface SourcesRouterOptions {
  db: Kysely<Database>;
  now: () => Date;
  /** When given, each source also reports whether it is enabled and its interval. */
  config?: PipelineConfig;
}

const HOUR_MS = 3_600_000;

/** Every known source with its last run, last error, counts and data freshness at `now`. */
export async function querySourceStatuses(db: Kysely<Database>, now: Date, config?: PipelineConfig): Promise<SourceStatus[]> {
  const rows = new Map((await db.selectFrom("sources").selectAll().execute()).map((row) => [row.name, row]));
  const clock = now.getTime();
  return SOURCES.map((source) => {
    const row = rows.get(source.name);
    const newest = row?.newest_record_at ?? null;
    const basisDate = newest ?? row?.last_success_at ?? null;
    const basis = newest ? "newest-record" : row?.last_success_at ? "last-success" : "never-imported";
    const ageMs = basisDate ? clock - Date.parse(basisDate) : Number.POSITIVE_INFINITY;
    return {
      name: source.name,
      title: source.title,
      status: row?.status ?? "never-run",
      enabled: config ? config.sources[source.name].enabled : null,
      intervalMinutes: config ? config.sources[source.name].intervalMinutes : null,
      lastRunAt: row?.last_run_at ?? null,
      lastSuccessAt: row?.last_success_at ?? null,
      lastError: row?.last_error ?? null,
      lastErrorAt: row?.last_error_at ?? null,
      durationMs: row?.duration_ms ?? null,
      counts: {
        added: row?.added ?? 0,
        updated: row?.updated ?? 0,
        unchanged: row?.unchanged ?? 0,
        rejected: row?.rejected ?? 0,
        removed: row?.removed ?? 0,
      },
      records: row?.record_count ?? null,
      freshness: {
        newestRecordAt: newest,
        basis,
        staleAfterHours: source.staleAfterHours,
        stale: ageMs > source.staleAfterHours * HOUR_MS,
      },
    };
  });
}

/**
 * `GET /sources`, mounted under /api/v1: every known source with its last
 * run, last error, counts and data freshness.
 */
export function createSourcesRouter({ db, now, config }: SourcesRouterOptions): Router {
  const router = Router();
  router.get("/sources", async (_req, res, next) => {
    try {
      const clock = now();
      const sources = await querySourceStatuses(db, clock, config);
      res.set("Cache-Control", "no-store").json({ generatedAt: clock.toISOString(), sources });
    } catch (error) {
      next(error);
    }
  });
  return router;
}
