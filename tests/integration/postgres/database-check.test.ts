import { randomBytes } from "node:crypto";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../../server/db/migrate";
import { startPostgresCluster, type PostgresCluster, testPool } from "../../helpers/postgres-cluster";

/**
 * A database the schema cannot live in is refused before the first
 * migration, with a reason naming DATABASE_URL, instead of failing half-way
 * (an SQL_ASCII database, which a container's initdb without a locale
 * makes, stopped at the CVE search index's ICU collation).
 */

let cluster: PostgresCluster;
let admin: pg.Pool;
const databases: string[] = [];

async function createDatabase(options: string): Promise<Kysely<any>> {
  const name = `check_${randomBytes(6).toString("hex")}`;
  await admin.query(`create database ${pg.escapeIdentifier(name)} ${options}`);
  databases.push(name);
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  return new Kysely<any>({ dialect: new PostgresDialect({ pool: testPool(url.toString(), 2) }) });
}

beforeAll(async () => {
  cluster = await startPostgresCluster();
  admin = testPool(cluster.url, 1);
});

afterAll(async () => {
  for (const name of databases) await admin.query(`drop database if exists ${pg.escapeIdentifier(name)} with (force)`);
  await admin?.end();
  await cluster?.stop();
});

describe("migrating a PostgreSQL database", () => {
  it("refuses an SQL_ASCII database by name and reason, and creates nothing in it", async () => {
    const db = await createDatabase("encoding 'SQL_ASCII' locale_provider libc lc_collate 'C' lc_ctype 'C' template template0");
    try {
      await expect(migrateToLatest(db)).rejects.toThrow(
        /^DATABASE_URL names a database Threat Radar cannot use: its encoding is SQL_ASCII, not UTF8 \(create it with: create database … encoding 'UTF8' template template0\)$/,
      );
      const { rows } = await sql<{ tables: number }>`select count(*)::int as tables from pg_tables where schemaname = 'public'`.execute(db);
      expect(rows[0]!.tables).toBe(0);
    } finally {
      await db.destroy();
    }
  });

  it("migrates a UTF8 database", async () => {
    const db = await createDatabase("encoding 'UTF8' template template0");
    try {
      const applied = await migrateToLatest(db);
      expect(applied[0]).toBe("0001-sources");
      expect(applied.length).toBeGreaterThan(10);
    } finally {
      await db.destroy();
    }
  });
});
