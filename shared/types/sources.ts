/** What `/api/v1/sources` and the home page say about each feed. */
export interface SourceStatus {
  name: string;
  title: string;
  /** never-run | ok | not-modified | failed */
  status: string;
  enabled: boolean | null;
  intervalMinutes: number | null;
  lastRunAt: string | null;
  lastSuccessAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  durationMs: number | null;
  /** Counts of the last successful import. */
  counts: { added: number; updated: number; unchanged: number; rejected: number; removed: number };
  records: number | null;
  freshness: {
    /** Date of the newest record the source delivered (null for feeds without dates). */
    newestRecordAt: string | null;
    /** What staleness is judged by: the newest record, else the last successful import. */
    basis: "newest-record" | "last-success" | "never-imported";
    staleAfterHours: number;
    stale: boolean;
  };
}
