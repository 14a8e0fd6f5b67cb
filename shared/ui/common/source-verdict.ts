import type { SourceStatus } from "../../types/source-status";

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
