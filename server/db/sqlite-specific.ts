import type SQLite from "better-sqlite3";
import { sql, type Expression, type Kysely, type SqlBool } from "kysely";

/**
 * Everything that only SQLite understands lives in this module, so that a
 * PostgreSQL deployment swaps exactly one file's worth of behaviour.
 */
export function applySqlitePragmas(sqlite: SQLite.Database): void {
  // WAL lets the web server keep reading while an import writes.
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  // 64 MiB of page cache: the list pages walk large indexes.
  sqlite.pragma("cache_size = -65536");
  sqlite.pragma("temp_store = MEMORY");
}

const FTS_COLUMNS = "id, title, description, vendor, product";
const NEW_ROW = "new.seq, new.id, new.title, new.description, new.vendor, new.product";
const OLD_ROW = "old.seq, old.id, old.title, old.description, old.vendor, old.product";

/**
 * FTS5 index over the CVE id, title, description and primary vendor/product.
 * It is an external-content table on `cves` (no second copy of the text),
 * keyed by `cves.seq`, an INTEGER PRIMARY KEY that VACUUM never renumbers.
 * Triggers keep it in step; the update trigger fires only for the indexed
 * columns, so the frequent priority/EPSS updates cost nothing here.
 */
export async function createCveSearchIndex(db: Kysely<any>): Promise<void> {
  await sql
    .raw(
      `create virtual table cves_fts using fts5(${FTS_COLUMNS}, content='cves', content_rowid='seq', tokenize='unicode61 remove_diacritics 2', prefix='2 3')`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger cves_fts_insert after insert on cves begin
         insert into cves_fts(rowid, ${FTS_COLUMNS}) values (${NEW_ROW});
       end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger cves_fts_delete after delete on cves begin
         insert into cves_fts(cves_fts, rowid, ${FTS_COLUMNS}) values ('delete', ${OLD_ROW});
       end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger cves_fts_update after update of ${FTS_COLUMNS} on cves begin
         insert into cves_fts(cves_fts, rowid, ${FTS_COLUMNS}) values ('delete', ${OLD_ROW});
         insert into cves_fts(rowid, ${FTS_COLUMNS}) values (${NEW_ROW});
       end`,
    )
    .execute(db);
}

export async function dropCveSearchIndex(db: Kysely<any>): Promise<void> {
  for (const trigger of ["cves_fts_insert", "cves_fts_delete", "cves_fts_update"]) {
    await sql.raw(`drop trigger if exists ${trigger}`).execute(db);
  }
  await sql.raw("drop table if exists cves_fts").execute(db);
}

/**
 * Turns what a user typed into an FTS5 query: every word becomes a quoted
 * phrase (so "CVE-2024-3400" or "pan-os" match as written and FTS5 operators
 * in the input are inert), the last one a prefix. Null when nothing is left.
 */
export function toFtsQuery(text: string): string | null {
  const words = text
    .split(/\s+/)
    .map((word) => word.replace(/"/g, ""))
    .filter((word) => /[\p{L}\p{N}]/u.test(word));
  if (words.length === 0) return null;
  return words.map((word, i) => `"${word}"${i === words.length - 1 ? " *" : ""}`).join(" ");
}

/** A where-clause expression on `cves` matching the full-text query, or null for an empty query. */
export function cveFullTextMatch(text: string): Expression<SqlBool> | null {
  const query = toFtsQuery(text);
  if (query === null) return null;
  return sql<SqlBool>`cves.seq in (select rowid from cves_fts where cves_fts match ${query})`;
}

/** Page cache while an import runs: a large transaction's dirty pages then stay in memory instead of spilling to the WAL again and again. */
const IMPORT_CACHE_KIB = 512 * 1024;

/**
 * Runs `work` with a larger page cache (SQLite allocates it only as pages
 * are touched) and restores the previous size afterwards, which frees it.
 */
export async function withImportCache<T>(db: Kysely<any>, work: () => Promise<T>): Promise<T> {
  const [previous] = (await sql<{ cache_size: number }>`pragma cache_size`.execute(db)).rows;
  await sql.raw(`pragma cache_size = -${IMPORT_CACHE_KIB}`).execute(db);
  try {
    return await work();
  } finally {
    await sql.raw(`pragma cache_size = ${Number(previous?.cache_size ?? -65_536)}`).execute(db);
  }
}

/** Refreshes the planner's statistics after a large import (cheap when little changed). */
export async function optimizeAfterImport(db: Kysely<any>): Promise<void> {
  await sql`pragma optimize`.execute(db);
}

/**
 * Rebuilds the planner's statistics from scratch. Needed after a migration
 * adds indexes: without statistics SQLite may prefer a new equality index
 * over the sort indexes and sort the whole table for a page of 25 rows.
 */
export async function analyzeAll(db: Kysely<any>): Promise<void> {
  await sql`analyze`.execute(db);
}
