import type { Logger } from "pino";
import { openPostgresWebDatabase } from "./postgres/web-database";
import { openSqliteWebDatabase } from "./sqlite/web-database";
import type { DatabaseTarget } from "./target";
import type { WebDatabase } from "./web-database";

// Apart from target.ts, which the import process loads too: it never reads through a web database.
export interface WebDatabaseOptions {
  queryTimeoutMs: number;
  /** SQLite: worker threads of the read pool (one per core by default). */
  readThreads?: number;
  logger?: Logger;
}

/** What the web process reads through. */
export async function openWebDatabase(target: DatabaseTarget, options: WebDatabaseOptions): Promise<WebDatabase> {
  if (target.kind === "sqlite") return openSqliteWebDatabase({ path: target.path, threads: options.readThreads, queryTimeoutMs: options.queryTimeoutMs });
  return openPostgresWebDatabase({ url: target.url, poolSize: target.poolSize, queryTimeoutMs: options.queryTimeoutMs, logger: options.logger });
}
