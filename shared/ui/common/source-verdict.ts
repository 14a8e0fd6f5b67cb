import type { SourceStatus } from "../../types/source-status";
import { formatDay } from "../../util/format";

export type SourceTone = "ok" | "warn" | "bad" | "idle";

/** One word for a feed's state, and the tone it is shown in. */
export function sourceVerdict(source: SourceStatus): { label: string; tone: SourceTone } {
  if (source.status === "failed") return { label: "failing", tone: "bad" };
  if (source.status === "never-run") return { label: source.enabled === false ? "disabled" : "not imported yet", tone: "idle" };
  if (source.freshness.stale) return { label: "stale", tone: "warn" };
  return { label: "fresh", tone: "ok" };
}

/** Feeds whose data a reader should not take as current: failing, or imported once and stale since. */
export function staleOrFailing(sources: readonly SourceStatus[]): SourceStatus[] {
  return sources.filter((source) => source.status === "failed" || (source.status !== "never-run" && source.freshness.stale));
}

/**
 * What dates a feed's data: its newest record, else (for lists whose records
 * carry no date) the day the publisher last updated the list; an imported
 * feed with neither is undated, and judged by its last import. Null before
 * the first import.
 */
export function dataDate({ freshness, lastSuccessAt }: SourceStatus): { label: string; day: string | null } | null {
  if (freshness.newestRecordAt) return { label: "newest record", day: formatDay(freshness.newestRecordAt) };
  if (freshness.publishedAt) return { label: "undated records, list of", day: formatDay(freshness.publishedAt) };
  return lastSuccessAt ? { label: "undated records", day: null } : null;
}
