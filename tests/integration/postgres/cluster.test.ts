import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresDatabase, startPostgresCluster, type PostgresCluster } from "../../helpers/postgres-cluster";

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe("the throw-away PostgreSQL cluster of the tests", () => {
  let cluster: PostgresCluster;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it("listens on loopback and runs without durability", async () => {
    expect(new URL(cluster.url).hostname).toBe("127.0.0.1");
    const [row] = await query<{ fsync: string; version: string }>(
      cluster.url,
      "select current_setting('fsync') as fsync, current_setting('server_version_num') as version",
    );
    expect(row).toMatchObject({ fsync: "off" });
    expect(Number(row!.version)).toBeGreaterThanOrEqual(150000);
  });

  it("gives each caller a database of its own", async () => {
    const first = await createPostgresDatabase(cluster.url);
    const second = await createPostgresDatabase(cluster.url);
    try {
      expect(first.url).not.toBe(second.url);
      await query(first.url, "create table marker (id int)");
      const tables = await query<{ name: string }>(second.url, "select tablename as name from pg_tables where schemaname = 'public'");
      expect(tables).toEqual([]);
    } finally {
      await first.drop();
      await second.drop();
    }
    const names = await query<{ datname: string }>(cluster.url, "select datname from pg_database");
    expect(names.map((row) => row.datname)).not.toContain(new URL(first.url).pathname.slice(1));
  });
});
