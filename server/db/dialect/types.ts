import type { Expression, Kysely, RawBuilder, SqlBool } from "kysely";

export type DialectName = "sqlite" | "postgres";

/**
 * Everything the queries and migrations need that SQLite and PostgreSQL
 * spell differently. The rest of the code writes Kysely and asks this port
 * for the dialect's fragments (server/db/dialect/index.ts picks it from the
 * Kysely instance at hand).
 */
export interface SqlDialect {
  readonly name: DialectName;

  /** A where-clause on `cves` for words and a final prefix the user typed, or null when no word is left. */
  cveTextMatch(text: string, seq: Expression<unknown>): Expression<SqlBool> | null;
  /** Indicators whose value contains `text` (at least VALUE_SEARCH_MIN_LENGTH characters), case-insensitively. */
  valueContains(text: string, id: Expression<unknown>): Expression<SqlBool>;
  /**
   * The column, barred from index use where the dialect allows it: a list
   * page that walks its sort index must not switch to a filter's index
   * (SQLite's unary "+"). PostgreSQL plans by cost and gets the column itself.
   */
  withoutIndex(column: string): RawBuilder<unknown>;
  /**
   * A list's sort key that no index can serve, for a page the service chose
   * to gather (the matches found through the filters' own indexes, then
   * sorted). PostgreSQL plans a LIMIT as if the matches were spread evenly
   * along the sort index and walks it: `q=emotet`'s 7,993 matches sit at its
   * far end, so the walk stepped over 300,570 rows (700 ms on the full
   * import) for a page the counts had said to gather. SQLite did the same
   * given a LIMIT: `seen=30d` by first seen, with no match, walked the
   * first-seen index whole (0.5–0.7 s), and now takes the column behind a
   * unary "+" (under 1 ms).
   */
  unindexedSortKey(column: string, type: "text" | "integer"): string;
  /**
   * Whether a filter's key held in a small table (a tag's id by its name) is
   * read before the list query and sent as a value rather than as a scalar
   * subquery. PostgreSQL plans `tag_id = (select …)` with a generic estimate
   * (2,015 rows for `phishing`, which tags 147,378 on the full import) and so
   * started from the tag's rows; with the value, its statistics apply. SQLite
   * keeps the subquery its plans were measured with.
   */
  readonly resolvesKeysFirst: boolean;
  /**
   * The CVE key every CVE sort index holds, by which the few CVEs outside the
   * listed state are excluded: SQLite's rowid (`seq`, in every index), while
   * PostgreSQL's sort indexes are (column, id). Tested on it, a walk reads no
   * row to test the state.
   */
  readonly cveIndexKey: "seq" | "id";
  /**
   * Whether a walk that probes related rows (a CVE's CWEs or affected
   * products) first finds its page's keys on the sort index alone, then reads
   * those rows. PostgreSQL's index scan reads each row it steps over from the
   * table (CWE-79, page 20: 13,684 rows read for 25 kept) unless the index
   * holds everything the step tests; SQLite's walk reads only the rows it keeps.
   */
  readonly walksKeysFirst: boolean;
  /**
   * Ends a correlated `exists` subquery that should be probed row by row, for
   * the few rows that reach it, never hashed whole. PostgreSQL turns such a
   * subquery into a hash of the whole table when it expects many calls, even
   * behind an `or` that rarely reaches it: the KEV stand-in test of a CWE
   * filter hashed all 103,000 `cve_cwes` rows (17 ms of CWE-79's 36 ms page)
   * to answer it for a dozen KEV rows. `offset 0` keeps the subquery as
   * written (PostgreSQL's documented optimisation fence); SQLite probes it
   * per row anyway and needs nothing (nor allows an offset without a limit).
   */
  readonly probedSubqueryEnd: string;
  /** `column collated byte by byte`: prefix ranges and ISO dates compare as SQLite compares them. */
  binary(column: string): RawBuilder<unknown>;

  /** Index columns for a sort key whose missing values go last in either direction. */
  sortColumn(column: string, direction: "asc" | "desc"): string;
  /** `without rowid` for tables whose primary key is their whole point (SQLite); nothing elsewhere. */
  readonly compactTableSuffix: string;
  /**
   * What `create … staging.<name>` creates: an import's scratch tables, dropped at every run's start
   * and end. PostgreSQL's are unlogged: with its default `wal_level = replica` a logged table's rows
   * are written to the WAL as well (and shipped to every standby), for data a crash may lose.
   * SQLite's staging file has no journal at all.
   */
  readonly scratchTable: string;
  /**
   * The type of text columns. PostgreSQL's is collated "C": SQLite orders and
   * compares text byte by byte, and so must every sort, range and group of
   * the other dialect, whatever the database's default collation is.
   */
  readonly textType: string;
  /** The type of integer columns: 64 bits, as SQLite's are (sighting variants are 48-bit hashes). */
  readonly integerType: string;
  /** The type of binary columns. */
  readonly blobType: string;
  /** An integer key the database assigns: SQLite's rowid itself, PostgreSQL's identity column. */
  readonly identityColumn: string;

  /**
   * A FROM-clause source named `alias` with one row per element of a JSON
   * array passed as one parameter, its element in the column `value`
   * (`alias.value ->> 0` reads an element's first item in both dialects): a
   * batch of computed rows sent as one short statement instead of a VALUES
   * list with a parameter per cell, which SQLite would parse and plan anew
   * for every batch.
   */
  jsonArrayRows(json: string, alias: string): RawBuilder<unknown>;

  createCveSearchIndex(db: Kysely<any>): Promise<void>;
  createValueSearchIndex(db: Kysely<any>, table: string): Promise<void>;
  /** Adds the values of `table`'s rows with ids above `afterId` to its value search index (PostgreSQL's GIN index keeps itself). */
  addToValueSearchIndex(db: Kysely<any>, table: string, afterId: number): Promise<void>;
  /**
   * Refreshes the statistics of one table inside a merge's transaction, after
   * it grew a lot: PostgreSQL would otherwise plan the next statements for
   * the table as it was (empty, on a first import). SQLite plans by its indexes.
   */
  analyzeTable(db: Kysely<any>, table: string): Promise<void>;
  /** Refreshes the planner's statistics of every table (after migrations, which may add expression indexes). */
  analyze(db: Kysely<any>): Promise<void>;
  /**
   * Inside an import's transaction, once its writes are done: the tables
   * whose statistics those writes make stale. PostgreSQL only; SQLite's
   * `pragma optimize` finds them itself (analyzeStale).
   */
  staleTables(trx: Kysely<any>): Promise<string[]>;
  /** After an import's commit: refreshes the statistics of `tables` (from staleTables), and only theirs. */
  analyzeStale(db: Kysely<any>, tables: readonly string[]): Promise<void>;
  /**
   * Throws, naming what to change, when the database cannot hold the schema
   * (checked before migrating, so a wrong server fails at start-up with a
   * reason instead of half-way through a migration).
   */
  assertUsable(db: Kysely<any>): Promise<void>;
}

/** Shortest text the value search can answer from its index; shorter text matches whole values only. */
export const VALUE_SEARCH_MIN_LENGTH = 3;
