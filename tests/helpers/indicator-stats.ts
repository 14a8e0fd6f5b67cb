import { sql, type Kysely } from "kysely";
import { expect } from "vitest";
import type { Database } from "../../server/db/schema";

type Row = Record<string, unknown>;

const withNumericCounts = (rows: Row[]) => rows.map((row) => ({ ...row, count: Number(row.count) }));

/**
 * Expects `indicator_stats` and `indicator_source_stats` to hold what a
 * recount over the indicators and their sightings gives, as an import must
 * leave them; returns how many rows each has, so a caller can check that
 * something was compared.
 */
export async function expectIndicatorStatsAgree(db: Kysely<Database>): Promise<{ rows: number; sourceRows: number }> {
  const { rows: expected } = await sql<Row>`
    select coalesce(substr(last_seen, 1, 10), '') as day, type, coalesce(threat_type, '') as threat_type,
      coalesce(malware_family, '') as malware_family, count(*) as count
    from indicators group by 1, 2, 3, 4 order by 1, 2, 3, 4`.execute(db);
  const { rows: stored } = await sql<Row>`
    select day, type, threat_type, malware_family, count from indicator_stats order by 1, 2, 3, 4`.execute(db);
  expect(withNumericCounts(stored)).toEqual(withNumericCounts(expected));

  const { rows: expectedBySource } = await sql<Row>`
    select m.source, coalesce(substr(i.last_seen, 1, 10), '') as day, i.type, coalesce(i.threat_type, '') as threat_type,
      coalesce(i.malware_family, '') as malware_family, count(*) as count
    from (select distinct indicator_id, source from indicator_sightings) m join indicators i on i.id = m.indicator_id
    group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5`.execute(db);
  const { rows: storedBySource } = await sql<Row>`
    select source, day, type, threat_type, malware_family, count from indicator_source_stats order by 1, 2, 3, 4, 5`.execute(db);
  expect(withNumericCounts(storedBySource)).toEqual(withNumericCounts(expectedBySource));
  return { rows: expected.length, sourceRows: expectedBySource.length };
}
