import { sql, type Kysely, type SelectQueryBuilder, type SqlBool } from "kysely";
import type { Database } from "./schema";

/**
 * The walk probe's count (scan.ts, chooseScanProbed): how many rows at the
 * front of a walk along the sort index (`front`, capped, each row with its
 * filter's verdict as `hit`) match the filter.
 */
export async function countFrontHits<TB extends keyof Database>(
  db: Kysely<Database>,
  front: SelectQueryBuilder<Database, TB, { hit: SqlBool }>,
): Promise<number> {
  const { hits } = await db
    .selectFrom(front.as("front"))
    .where(sql<SqlBool>`front.hit`)
    .select((eb) => eb.fn.countAll<number>().as("hits"))
    .executeTakeFirstOrThrow();
  return Number(hits);
}
