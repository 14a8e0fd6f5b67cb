import type { Kysely, Selectable } from "kysely";
import type { SourceStatus } from "../../shared/types/source-status";
import type { Database, SourcesTable } from "../db/schema";
import type { PipelineConfig } from "../pipeline/config";
import type { FailureDetail } from "../pipeline/engine/failure";
import { SOURCES } from "../pipeline/source-catalogue";

const HOUR_MS = 3_600_000;

function parseDetail(text: string | null): FailureDetail | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as Partial<FailureDetail>;
    return { causes: Array.isArray(value.causes) ? value.causes.map(String) : [], hint: typeof value.hint === "string" ? value.hint : null };
  } catch {
    return null;
  }
}

/**
 * Every known source with its last run, the whole cause of its last failure
 * with a hint, its counts, its data's freshness at `now`, and (given the
 * configuration) whether and when it is imported next.
 */
export async function querySourceStatuses(db: Kysely<Database>, now: Date, config?: PipelineConfig): Promise<SourceStatus[]> {
  return sourceStatuses(await db.selectFrom("sources").selectAll().execute(), now, config);
}

/** querySourceStatuses from `sources` rows already read. */
export function sourceStatuses(sourceRows: readonly Selectable<SourcesTable>[], now: Date, config?: PipelineConfig): SourceStatus[] {
  const rows = new Map(sourceRows.map((row) => [row.name, row]));
  const clock = now.getTime();
  return SOURCES.map((source) => {
    const row = rows.get(source.name);
    const newest = row?.newest_record_at ?? null;
    const published = row?.published_at ?? null;
    // The records' own dates first; a list whose records have none is as old as the publisher says it is.
    const basisDate = newest ?? published ?? row?.last_success_at ?? null;
    const basis = newest ? "newest-record" : published ? "published" : row?.last_success_at ? "last-success" : "never-imported";
    const ageMs = basisDate ? clock - Date.parse(basisDate) : Number.POSITIVE_INFINITY;
    const detail = parseDetail(row?.last_error_detail ?? null);
    const sourceConfig = config?.sources[source.name];
    const scheduled = config ? config.syncEnabled && sourceConfig!.enabled : null;
    const nextAttemptAt = !scheduled
      ? null
      : row?.status === "failed" && row.next_attempt_at
        ? row.next_attempt_at
        : row?.last_run_at
          ? new Date(Date.parse(row.last_run_at) + sourceConfig!.intervalMinutes * 60_000).toISOString()
          : now.toISOString();
    return {
      name: source.name,
      title: source.title,
      status: row?.status ?? "never-run",
      enabled: sourceConfig ? sourceConfig.enabled : null,
      intervalMinutes: sourceConfig ? sourceConfig.intervalMinutes : null,
      lastRunAt: row?.last_run_at ?? null,
      lastSuccessAt: row?.last_success_at ?? null,
      lastError: row?.last_error ?? null,
      lastErrorCauses: detail?.causes ?? (row?.last_error ? [row.last_error] : []),
      lastErrorHint: detail?.hint ?? null,
      lastErrorAt: row?.last_error_at ?? null,
      consecutiveFailures: row?.consecutive_failures ?? 0,
      nextAttemptAt,
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
        publishedAt: published,
        basis,
        staleAfterHours: source.staleAfterHours,
        stale: ageMs > source.staleAfterHours * HOUR_MS,
      },
    };
  });
}
