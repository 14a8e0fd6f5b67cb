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
  /** The last failure's whole cause chain, outermost first. */
  lastError: string | null;
  lastErrorCauses: string[];
  /** What usually fixes that failure (no network: a mirror or a proxy; DNS; TLS; an HTTP status). */
  lastErrorHint: string | null;
  lastErrorAt: string | null;
  /** Failures since the last success: retries back off from minutes to an hour. */
  consecutiveFailures: number;
  /** When the scheduler tries again (after a failure: sooner than its interval); null when not scheduled. */
  nextAttemptAt: string | null;
  durationMs: number | null;
  /** Counts of the last successful import. */
  counts: { added: number; updated: number; unchanged: number; rejected: number; removed: number };
  records: number | null;
  freshness: {
    /** Date of the newest record the source delivered (null for feeds without dates). */
    newestRecordAt: string | null;
    /**
     * When the publisher last updated what was imported, as its files say
     * (abuse.ch's "Last updated" line, the files' time in a GitHub archive,
     * the CWE catalogue's date); null where they do not.
     */
    publishedAt: string | null;
    /** What staleness is judged by: the newest record, else the publisher's date, else the last successful import. */
    basis: "newest-record" | "published" | "last-success" | "never-imported";
    staleAfterHours: number;
    stale: boolean;
  };
}
