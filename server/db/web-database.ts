import type { Kysely, Selectable } from "kysely";
import type { Database, ImportLockTable, SourcesTable } from "./schema";
import type { DataVersion } from "./versioned-cache";

/** The rows a source's status is computed from: every `sources` row and the import lock's, of one commit. */
export interface SourceStatusRows {
  sources: Selectable<SourcesTable>[];
  importLock: Selectable<ImportLockTable> | null;
}

/** What the web process reads through, whichever database is behind it. */
export interface WebDatabase {
  db: Kysely<Database>;
  dataVersion: DataVersion;
  /**
   * The status rows as of the last commit, without a query, where the data
   * version already holds them (SQLite); absent where they are queried.
   */
  sourceStatusRows?: () => SourceStatusRows;
  /**
   * Whether an import holds the lock now, without a query: from the lock's
   * row the data version reads anyway (SQLite), or from the lock holder's
   * notifications (PostgreSQL).
   */
  importRunning: () => boolean;
  /**
   * Where the status rows are queried (PostgreSQL): moves whenever they may
   * have changed, so that their last reading can be reused until it does.
   */
  statusVersion?: () => string;
  close(): Promise<void>;
}
