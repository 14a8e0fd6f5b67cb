import { sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresPool, postgresKysely } from "../../../server/db/postgres/pool";
import type { Database } from "../../../server/db/schema";
import { openPostgresImportStore, type ImportStore } from "../../../server/pipeline/engine/store";
import { createPostgresDatabase, startPostgresCluster, type PostgresCluster, type TestPostgresDatabase } from "../../helpers/postgres-cluster";

let cluster: PostgresCluster;
let database: TestPostgresDatabase;
let store: ImportStore;
let web: Kysely<Database>;

beforeAll(async () => {
  cluster = await startPostgresCluster();
  database = await createPostgresDatabase(cluster.url);
  store = openPostgresImportStore(database.url);
  web = postgresKysely(createPostgresPool({ url: database.url, size: 1, readOnly: true, applicationName: "web node" }));
  await sql`create table wide as select n, md5(n::text) as digest from generate_series(1, 20000) n`.execute(store.db);
  await sql`analyze wide`.execute(store.db);
});

afterAll(async () => {
  await web?.destroy();
  await store?.close();
  await database?.drop();
  await cluster?.stop();
});

/** The plan of a scan PostgreSQL would split across workers whenever it may (parallel made free). */
async function planOfFreeParallelScan(db: Kysely<Database>): Promise<string> {
  return db.connection().execute(async (connection) => {
    for (const setting of ["parallel_setup_cost", "parallel_tuple_cost", "min_parallel_table_scan_size"])
      await sql`select set_config(${setting}, '0', false)`.execute(connection);
    const { rows } = await sql<{ "QUERY PLAN": string }>`explain select count(*) from wide where digest like '%ab%'`.execute(connection);
    return rows.map((row) => row["QUERY PLAN"]).join("\n");
  });
}

describe("an import's PostgreSQL session", () => {
  it("is marked as the import's and plans no parallel workers, while a web node's session still may", async () => {
    const setting = async (db: Kysely<Database>, name: string) =>
      (await sql<{ value: string }>`select current_setting(${name}) as value`.execute(db)).rows[0]?.value;
    expect(await setting(store.db, "threat_radar.writer")).toBe("import");
    expect(await setting(store.db, "max_parallel_workers_per_gather")).toBe("0");
    expect(await setting(store.db, "max_parallel_maintenance_workers")).toBe("0");

    expect(await planOfFreeParallelScan(web)).toMatch(/Gather/);
    const importPlan = await planOfFreeParallelScan(store.db);
    expect(importPlan).toMatch(/Seq Scan on wide/);
    expect(importPlan).not.toMatch(/Gather|Parallel/);
  });
});
