import { PostgresAdapter, type Kysely } from "kysely";

/**
 * Whether a Kysely instance talks to PostgreSQL: what the parts that work
 * differently across nodes (the import lock, the rate-limit counters) ask,
 * whatever connection or pool they were handed.
 */
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
