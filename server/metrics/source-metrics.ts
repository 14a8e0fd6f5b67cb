import type { Kysely } from "kysely";
import { Gauge, type Registry } from "prom-client";
import type { Database } from "../db/schema";

/**
 * Per-source import state, read from the sources table when Prometheus
 * scrapes: imports run in a process of their own, and the table is what they
 * leave behind for every process to read.
 */
export function registerSourceMetrics(registry: Registry, db: Kysely<Database>): void {
  // prom-client collects every metric of a scrape at once: they share one query, whichever asks first.
  let pending: Promise<void> | null = null;
  const collect = () => (pending ??= refresh().finally(() => (pending = null)));
  const gauge = (name: string, help: string) => new Gauge({ name, help, labelNames: ["source"], registers: [registry], collect });
  const lastSuccess = gauge("threat_radar_source_last_success_timestamp_seconds", "When the source was last imported successfully (0: never).");
  const consecutiveFailures = gauge("threat_radar_source_consecutive_failures", "Failed imports of the source since its last success.");
  const failures = gauge("threat_radar_source_failures", "Failed imports of the source since it was first imported.");
  const runs = gauge("threat_radar_source_runs", "Imports of the source since it was first imported.");
  const records = gauge("threat_radar_source_records", "Rows the source holds after its last successful import.");
  const rejected = gauge("threat_radar_source_rejected_records", "Records the last successful import rejected.");
  const duration = gauge("threat_radar_source_last_duration_seconds", "How long the source's last import took.");

  async function refresh(): Promise<void> {
    const rows = await db
      .selectFrom("sources")
      .select(["name", "last_success_at", "consecutive_failures", "failures", "runs", "record_count", "rejected", "duration_ms"])
      .execute();
    for (const metric of [lastSuccess, consecutiveFailures, failures, runs, records, rejected, duration]) metric.reset();
    for (const row of rows) {
      const source = { source: row.name };
      lastSuccess.set(source, row.last_success_at ? Date.parse(row.last_success_at) / 1000 : 0);
      consecutiveFailures.set(source, row.consecutive_failures);
      failures.set(source, row.failures);
      runs.set(source, row.runs);
      if (row.record_count !== null) records.set(source, row.record_count);
      rejected.set(source, row.rejected);
      if (row.duration_ms !== null) duration.set(source, row.duration_ms / 1000);
    }
  }
}
