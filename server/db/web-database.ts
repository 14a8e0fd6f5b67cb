import type { Kysely } from "kysely";
import type { Database } from "./schema";
import type { DataVersion } from "./versioned-cache";

/** What the web process reads through, whichever database is behind it. */
export interface WebDatabase {
  db: Kysely<Database>;
  dataVersion: DataVersion;
  close(): Promise<void>;
}
