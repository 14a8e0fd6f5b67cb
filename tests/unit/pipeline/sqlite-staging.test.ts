import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteStaging, type StagingArea } from "../../../server/pipeline/engine/staging";

let dir: string;
let sqlite: SQLite.Database;
let staging: StagingArea;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "threat-radar-staging-"));
  sqlite = new SQLite(join(dir, "served.sqlite"));
  staging = openSqliteStaging(sqlite, join(dir, "staging.sqlite"));
  await staging.create([
    {
      name: "rows",
      columns: [
        ["n", "integer"],
        ["label", "text"],
        ["score", "real"],
      ],
    },
  ]);
});

afterEach(async () => {
  await staging.dispose();
  sqlite.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("SQLite staging area", () => {
  it("writes every row as given, across chunks, many-row inserts and the rows left over", async () => {
    // 4,567 rows: two full chunks of 2,000 and a flush of 567, which is 11 inserts of 50 rows and 17 of one.
    const rows = Array.from({ length: 4_567 }, (_, n) => [n, n % 7 === 0 ? null : `row ${n}`, n / 8]);
    for (const row of rows) staging.row("rows", row);
    await staging.flush();

    expect(staging.written.get("rows")).toBe(rows.length);
    const stored = sqlite.prepare("select n, label, score from staging.rows order by rowid").raw().all();
    expect(stored).toEqual(rows);
  });

  it("refuses a row with too few values instead of writing another row's values in their place", async () => {
    for (let n = 0; n < 49; n += 1) staging.row("rows", [n, `row ${n}`, 0]);
    staging.row("rows", [49, "short"]);
    await expect(staging.flush()).rejects.toThrow("staging.rows: 2 values for 3 columns");
  });
});
