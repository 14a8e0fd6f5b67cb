import type { CveChartStats, CveListRow } from "../cve/list-types";
import type { SourceStatus } from "./source-status";

export interface HomeData {
  /** The server's clock for the figures; relative windows count back from it. */
  generatedAt: string;
  figures: {
    cvesTracked: number;
    published24h: number;
    published7d: number;
    newestPublished: string | null;
    kevEntries: number;
    kevAdded30d: number;
    indicatorsTracked: number;
    indicatorsSeen24h: number;
    newestIndicatorSeen: string | null;
  };
  topCves: CveListRow[];
  newestKev: Array<{ id: string; name: string; vendor: string; product: string; dateAdded: string; dueDate: string }>;
  /** `display` is the value defanged on the server, so the page need not load the normaliser. */
  /** Newest by the publishers' last-seen time (undated listings are never "newest"). */
  newestIndicators: Array<{ type: string; value: string; display: string; seenAt: string; malwareFamily: string | null; threatType: string | null }>;
  cveChart: CveChartStats["perDay"];
  indicatorChart: { days: string[]; byType: Record<string, number[]> };
  sources: SourceStatus[];
}
