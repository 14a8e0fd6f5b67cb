import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../../server/db/migrate";
import { AUTO_VACUUM_INCREMENTAL } from "../../../server/db/sqlite/pragmas";
import { openSqliteImportStore } from "../../../server/pipeline/engine/store";

// SQLite only (README: SQLite-only, by nature): the file's auto-vacuum mode and its free pages.
const dir = mkdtempSync(join(tmpdir(), "threat-radar-file-space-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const autoVacuumOf = (path: string) => {
  const sqlite = new SQLite(path, { readonly: true });
  try {
    return sqlite.pragma("auto_vacuum", { simple: true });
  } finally {
    sqlite.close();
  }
};

describe("the SQLite file's space (docs/decisions/0005)", () => {
  it("creates a new file in incremental auto-vacuum mode, and keeps it on every later opening", async () => {
    const path = join(dir, "new.sqlite");
    const store = openSqliteImportStore(path);
    await migrateToLatest(store.db);
    await store.close();
    expect(autoVacuumOf(path)).toBe(AUTO_VACUUM_INCREMENTAL);
    const again = openSqliteImportStore(path);
    await again.close();
    expect(autoVacuumOf(path)).toBe(AUTO_VACUUM_INCREMENTAL);
  });

  it("leaves a file made before that mode as it is: it needs a VACUUM, which the README's upgrade notes give", async () => {
    const path = join(dir, "old.sqlite");
    const old = new SQLite(path);
    old.pragma("journal_mode = WAL");
    old.exec("create table made_before (x)");
    old.close();
    const store = openSqliteImportStore(path);
    await store.close();
    expect(autoVacuumOf(path)).toBe(0);
  });

  it("gives the pages a dropped table leaves free back to the file system", async () => {
    const path = join(dir, "reclaim.sqlite");
    const store = openSqliteImportStore(path);
    await sql`create table bulk (filler text)`.execute(store.db);
    await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < 20000) insert into bulk select printf('%0400d', i) from n`.execute(
      store.db,
    );
    await store.checkpoint();
    const filled = statSync(path).size;
    await sql`drop table bulk`.execute(store.db);
    const free = await sql<{ freelist_count: number }>`pragma freelist_count`.execute(store.db);
    expect(free.rows[0]!.freelist_count).toBeGreaterThan(1000);

    await store.reclaimFreePages();
    const after = await sql<{ freelist_count: number }>`pragma freelist_count`.execute(store.db);
    expect(after.rows[0]!.freelist_count).toBe(0);
    await store.close();
    // 20,000 rows of about 400 bytes: some 8 MB given back.
    expect(statSync(path).size).toBeLessThan(filled - 5_000_000);
  });
});
