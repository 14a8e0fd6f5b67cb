import { PostgresAdapter, SqliteAdapter, type Kysely } from "kysely";
import { postgresDialect } from "./postgres";
import { sqliteDialect } from "./sqlite";
import type { SqlDialect } from "./types";

export type { DialectName, SqlDialect } from "./types";
export { VALUE_SEARCH_MIN_LENGTH } from "./types";

/** The dialect of the database behind a Kysely instance (its read pool's, its transaction's…). */
export function dialectOf(db: Kysely<any>): SqlDialect {
  const adapter = db.getExecutor().adapter;
  if (adapter instanceof SqliteAdapter) return sqliteDialect;
  if (adapter instanceof PostgresAdapter) return postgresDialect;
  throw new Error(`no SQL dialect for ${adapter.constructor.name}`);
}
