import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { openPostgresStaging } from "../../../server/pipeline/engine/postgres-staging";
import { openPostgresImportStore } from "../../../server/pipeline/engine/store";
import { createPostgresDatabase, startPostgresCluster, testPool, type PostgresCluster, type TestPostgresDatabase } from "../../helpers/postgres-cluster";

let cluster: PostgresCluster;
let database: TestPostgresDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  cluster = await startPostgresCluster();
  database = await createPostgresDatabase(cluster.url);
  pool = testPool(database.url, 3);
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
  await cluster?.stop();
});

describe("PostgreSQL staging (COPY)", () => {
  it("stores every value as given: text with COPY's special characters, NULLs, 64-bit integers and doubles", async () => {
    const staging = openPostgresStaging(pool);
    await staging.create([
      {
        name: "rows",
        columns: [
          ["n", "integer"],
          ["t", "text"],
          ["r", "real"],
        ],
      },
    ]);
    const tricky = ["tab\there", "line\nbreak", "carriage\rreturn", "back\\slash", "\\N", "\\.", "", "ünïcødé ☃", "end\\"];
    const rows: Array<[number, string | null, number | null]> = [
      ...tricky.map((t, i): [number, string, number] => [i, t, i / 3]),
      [2 ** 48 + 7, null, null],
      [-1, "negative", 1e-7],
    ];
    // Past one chunk, so several COPYs are sent.
    for (let i = 0; i < 25_000; i++) rows.push([1_000 + i, `bulk ${i}`, 0.5]);
    for (const row of rows) staging.row("rows", row);
    await staging.flush();
    expect(staging.written.get("rows")).toBe(rows.length);

    const { rows: stored } = await pool.query<{ n: string; t: string | null; r: number | null }>('select n, t, r from staging."rows" order by n');
    expect(stored.map((row) => [Number(row.n), row.t, row.r])).toEqual([...rows].sort((a, b) => a[0] - b[0]));
    await staging.dispose();
  });

  it("reports a row the server refuses when the rows are flushed", async () => {
    const staging = openPostgresStaging(pool);
    await staging.create([{ name: "numbers", columns: [["n", "integer"]] }]);
    staging.row("numbers", ["not a number"]);
    await expect(staging.flush()).rejects.toThrow(/invalid input syntax/);
    await staging.dispose();
  });

  it("left by a killed run is dropped by the next run's sweep, and the sweep is quiet when there is none", async () => {
    // A run that never reached dispose(): its tables stay, as after kill -9.
    const killed = openPostgresStaging(pool);
    await killed.create([{ name: "trails", columns: [["value", "text"]] }]);
    killed.row("trails", ["evil.example"]);
    await killed.flush();

    const store = openPostgresImportStore(database.url);
    try {
      expect(await store.removeStagingLeftovers()).toEqual(["schema staging"]);
      const { rowCount } = await pool.query("select 1 from pg_namespace where nspname = 'staging'");
      expect(rowCount).toBe(0);
      expect(await store.removeStagingLeftovers()).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
