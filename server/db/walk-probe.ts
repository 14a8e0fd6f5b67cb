import { sql, type Kysely, type SelectQueryBuilder, type SqlBool } from "kysely";
import type { Database } from "./schema";

/**
 * The walk probe's count (scan.ts, chooseScanProbed): how many rows at the
 * front of a walk along the sort index (`front`, capped, each row with its
 * filter's verdict as `hit`) match the filter, counting no further than
 * `enough`: a probe whose page fills early stops there, instead of walking
 * the whole cap.
 */
export async function countFrontHits<TB extends keyof Database>(
  db: Kysely<Database>,
  front: SelectQueryBuilder<Database, TB, { hit: SqlBool }>,
  enough: number,
): Promise<number> {
  const hits = db
    .selectFrom(front.as("front"))
    .where(sql<SqlBool>`front.hit`)
    .select(sql<number>`1`.as("one"))
    .limit(enough);
  const { found } = await db
    .selectFrom(hits.as("hits"))
    .select((eb) => eb.fn.countAll<number>().as("found"))
    .executeTakeFirstOrThrow();
  return Number(found);
}
