import { sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dialectOf } from "../../../server/db/dialect";
import { migrateToLatest } from "../../../server/db/migrate";
import { startPostgresDatabase, type TestPostgres } from "../../helpers/postgres-cluster";

/**
 * After an import commits, PostgreSQL analyzes only the tables its writes
 * moved past autovacuum's threshold (50 rows and 10 % of the table), as
 * SQLite's `pragma optimize` does, instead of the whole database.
 */

let postgres: TestPostgres;
let db: Kysely<any>;

beforeAll(async () => {
  postgres = await startPostgresDatabase();
  db = postgres.db;
  await migrateToLatest(db);
  await db.connection().execute(async (connection) => {
    await sql`insert into cves (id, state) select 'CVE-2024-' || n, 'PUBLISHED' from generate_series(10000, 10999) as n`.execute(connection);
    // The insert's counts reach the statistics when the backend is next idle: before the ANALYZE below.
    await sql`select pg_stat_force_next_flush()`.execute(connection);
    await sql`analyze`.execute(connection);
  });
});

afterAll(() => postgres?.stop());

async function lastAnalyzed(table: string): Promise<Date | null> {
  const { rows } = await sql<{ at: Date | null }>`select last_analyze as at from pg_stat_user_tables where relname = ${table}`.execute(db);
  return rows[0]!.at;
}

describe("the statistics an import leaves stale (PostgreSQL)", () => {
  it("are the tables whose writes pass 50 rows and 10 %, counted inside the transaction", async () => {
    const dialect = dialectOf(db);
    const stale = await db.transaction().execute(async (trx) => {
      await sql`create schema if not exists staging`.execute(trx);
      await sql`create table staging.scratch as select n from generate_series(1, 500) as n`.execute(trx);
      // 300 of 1,000 CVEs: past 50 + 10 %.
      await sql`update cves set priority_score = 50 where id < 'CVE-2024-10300'`.execute(trx);
      // 60 rows into an empty table: past 50.
      await sql`
        insert into epss_scores (cve_id, score_date, epss, percentile, model_version)
        select 'CVE-2024-' || n, '2026-11-01', 0.5, 0.5, 'v4' from generate_series(10000, 10059) as n`.execute(trx);
      // 3 rows: under 50.
      await sql`insert into cve_cwes (cve_id, origin, source, cwe_id) values ('CVE-2024-10000', 'cve-json5', 'cna', 'CWE-79'), ('CVE-2024-10001', 'cve-json5', 'cna', 'CWE-79'), ('CVE-2024-10002', 'cve-json5', 'cna', 'CWE-89')`.execute(
        trx,
      );
      return dialect.staleTables(trx);
    });
    expect(stale).toEqual(["cves", "epss_scores"]);

    const before = { cves: await lastAnalyzed("cves"), cwes: await lastAnalyzed("cve_cwes") };
    await dialect.analyzeStale(db, stale);
    expect((await lastAnalyzed("cves"))!.getTime()).toBeGreaterThan(before.cves!.getTime());
    expect(await lastAnalyzed("epss_scores")).not.toBeNull();
    expect(await lastAnalyzed("cve_cwes")).toEqual(before.cwes);
  });

  it("are none when a transaction wrote a few rows of a large table", async () => {
    const stale = await db.transaction().execute(async (trx) => {
      await sql`update cves set priority_score = 10 where id in ('CVE-2024-10500', 'CVE-2024-10501')`.execute(trx);
      return dialectOf(db).staleTables(trx);
    });
    expect(stale).toEqual([]);
  });
});
