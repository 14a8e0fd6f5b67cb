import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from "kysely";

/**
 * Everything that only SQLite understands lives in this module, so that a
 * PostgreSQL deployment swaps exactly one file's worth of behaviour.
 */
interface ExternalContentSearchIndex {
  /** Name of the FTS5 table; its triggers are named after it. */
  name: string;
  /** The table whose rows it indexes, and that table's INTEGER PRIMARY KEY. */
  content: string;
  rowid: string;
  columns: readonly string[];
  /** FTS5 options after the columns: tokenizer, prefix indexes. */
  options: string;
}

/**
 * An FTS5 index that is an external-content table (no second copy of the
 * text), keyed by an INTEGER PRIMARY KEY that VACUUM never renumbers, kept in
 * step by triggers. The update trigger fires only for the indexed columns, so
 * frequent updates of other columns (priorities, EPSS, seen dates) cost
 * nothing here. Rows already in the table are indexed at once.
 */
async function createSearchIndex(db: Kysely<any>, index: ExternalContentSearchIndex): Promise<void> {
  const { name, content, rowid, columns, options } = index;
  const list = columns.join(", ");
  const row = (prefix: "new" | "old") => [rowid, ...columns].map((column) => `${prefix}.${column}`).join(", ");
  await sql
    .raw(`create virtual table ${name} using fts5(${list}, content='${content}', content_rowid='${rowid}', ${options})`)
    .execute(db);
  await sql
    .raw(`create trigger ${name}_insert after insert on ${content} begin insert into ${name}(rowid, ${list}) values (${row("new")}); end`)
    .execute(db);
  await sql
    .raw(
      `create trigger ${name}_delete after delete on ${content} begin
         insert into ${name}(${name}, rowid, ${list}) values ('delete', ${row("old")});
       end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger ${name}_update after update of ${list} on ${content} begin
         insert into ${name}(${name}, rowid, ${list}) values ('delete', ${row("old")});
         insert into ${name}(rowid, ${list}) values (${row("new")});
       end`,
    )
    .execute(db);
  await sql.raw(`insert into ${name}(${name}) values ('rebuild')`).execute(db);
}

async function dropSearchIndex(db: Kysely<any>, name: string): Promise<void> {
  for (const trigger of ["insert", "delete", "update"]) await sql.raw(`drop trigger if exists ${name}_${trigger}`).execute(db);
  await sql.raw(`drop table if exists ${name}`).execute(db);
}

/** Words of the CVE id, title, description and primary vendor/product, keyed by `cves.seq`. */
export async function createCveSearchIndex(db: Kysely<any>): Promise<void> {
  await createSearchIndex(db, {
    name: "cves_fts",
    content: "cves",
    rowid: "seq",
    columns: ["id", "title", "description", "vendor", "product"],
    options: "tokenize='unicode61 remove_diacritics 2', prefix='2 3'",
  });
}

export async function dropCveSearchIndex(db: Kysely<any>): Promise<void> {
  await dropSearchIndex(db, "cves_fts");
}

/**
 * Substrings of an indicator's value, malware family and threat type:
 * trigram tokens answer "contains" for three characters or more (and
 * case-insensitively) from the index, where LIKE '%…%' reads a million rows.
 */
export async function createIndicatorSearchIndex(db: Kysely<any>): Promise<void> {
  await createSearchIndex(db, {
    name: "indicators_fts",
    content: "indicators",
    rowid: "id",
    columns: ["value", "malware_family", "threat_type"],
    options: "tokenize='trigram'",
  });
}

export async function dropIndicatorSearchIndex(db: Kysely<any>): Promise<void> {
  await dropSearchIndex(db, "indicators_fts");
}

/** Shortest text the trigram index can answer; shorter text falls back to scanning. */
export const INDICATOR_SEARCH_MIN_LENGTH = 3;

/**
 * A where-clause expression on `indicators` for values, families or threat
 * types containing the text (≥ 3 characters); `id` as for `cveFullTextMatch`.
 */
export function indicatorTextMatch(text: string, id: Expression<unknown> = sql.ref("indicators.id")): Expression<SqlBool> {
  const phrase = `"${withoutControlCharacters(text).replaceAll('"', '""')}"`;
  return sql<SqlBool>`${id} in (select rowid from indicators_fts where indicators_fts match ${phrase})`;
}

/** FTS5 reads a NUL as the end of its query string: such text never reaches it. */
function withoutControlCharacters(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]/g, " ");
}

/**
 * Turns what a user typed into an FTS5 query: every word becomes a quoted
 * phrase (so "CVE-2024-3400" or "pan-os" match as written and FTS5 operators
 * in the input are inert), the last one a prefix. Null when nothing is left.
 */
export function toFtsQuery(text: string): string | null {
  const words = withoutControlCharacters(text)
    .split(/\s+/)
    .map((word) => word.replace(/"/g, ""))
    .filter((word) => /[\p{L}\p{N}]/u.test(word));
  if (words.length === 0) return null;
  return words.map((word, i) => `"${word}"${i === words.length - 1 ? " *" : ""}`).join(" ");
}

/**
 * A where-clause expression on `cves` matching the full-text query, or null
 * for an empty query. `seq` is the column to test: a walk of another index
 * passes it through `withoutIndex`, and SQLite then reads the matches once
 * into a set that each row of the walk is checked against.
 */
export function cveFullTextMatch(text: string, seq: Expression<unknown> = sql.ref("cves.seq")): Expression<SqlBool> | null {
  const query = toFtsQuery(text);
  if (query === null) return null;
  return sql<SqlBool>`${seq} in (select rowid from cves_fts where cves_fts match ${query})`;
}

/**
 * A column reference the planner may not use an index for: SQLite's unary
 * "+" (https://sqlite.org/optoverview.html#disqualifying_where_clause_terms_using_unary_).
 * It makes a filtered, sorted page walk the sort column's index and stop at
 * the page's last row instead of gathering every match through a filter's
 * own index and sorting them all.
 */
export function withoutIndex(column: string): RawBuilder<unknown> {
  return sql`+${sql.ref(column)}`;
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
