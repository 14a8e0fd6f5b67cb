import SQLite from "better-sqlite3";
import { Kysely, sql, SqliteDialect } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { dialectOf } from "../../../server/db/dialect";
import { postgresDialect } from "../../../server/db/dialect/postgres";

let db: Kysely<unknown> | null = null;

afterEach(async () => {
  await db?.destroy();
  db = null;
});

describe("jsonArrayRows", () => {
  it("gives SQLite one row per element, text and doubles exactly as sent", async () => {
    db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new SQLite(":memory:") }) });
    const sent: Array<[string, number]> = [
      ["CVE-2024-0001", 0.1 + 0.2],
      ['it\'s "quoted"', 61.3],
      ["CVE-2024-0003", 0],
    ];
    const p = dialectOf(db).jsonArrayRows(JSON.stringify(sent), "p");
    const { rows } = await sql<{ id: string; score: number }>`
      select p.value ->> 0 as id, cast(p.value ->> 1 as double precision) as score from ${p}`.execute(db);
    expect(rows.map((row) => [row.id, row.score])).toEqual(sent);
  });

  it("names PostgreSQL's element column value, as json_each does", () => {
    // Compiled only: Kysely's placeholders are the SQLite driver's, the fragment is PostgreSQL's.
    db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new SQLite(":memory:") }) });
    const compiled = sql`select p.value from ${postgresDialect.jsonArrayRows("[]", "p")}`.compile(db);
    expect(compiled.sql).toBe('select p.value from json_array_elements(cast(? as json)) as "p"(value)');
    expect(compiled.parameters).toEqual(["[]"]);
  });
});
