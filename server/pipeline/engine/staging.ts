import type SQLite from "better-sqlite3";
import { rmSync } from "node:fs";

export type StagingColumnType = "text" | "integer" | "real";

/** A scratch table parsed records are written to before the merge reads them. */
export interface StagingTable {
  name: string;
  columns: ReadonlyArray<readonly [name: string, type: StagingColumnType]>;
}

/** Where an importer puts the rows of one parsed record. */
export interface StagingOut {
  row(table: string, values: readonly unknown[]): void;
}

export interface StagingArea extends StagingOut {
  /** Creates the tables, empty. */
  create(tables: readonly StagingTable[]): Promise<void>;
  /**
   * Resolves when the area can take more rows: null when it writes as it goes
   * (SQLite), a promise while written chunks are still on their way to a
   * database server, so the reader waits instead of buffering without bound.
   */
  backlog(): Promise<void> | null;
  /** Writes the rows still buffered. */
  flush(): Promise<void>;
  /** Rows written so far, per table. */
  readonly written: ReadonlyMap<string, number>;
  /** Removes the tables and the scratch file. */
  dispose(): Promise<void>;
}

/**
 * Rows buffered per table before they are written in one transaction:
 * bounded memory (CVE records' rows run to kilobytes; 20,000 of them per
 * table cost the import 110 MB more at its peak), and still few commits.
 */
const CHUNK_ROWS = 2_000;

/**
 * Rows per insert statement: one call per row cost about twice the CPU of
 * 50-row calls (360,000 EPSS rows: 0.6–0.7 s against 0.36 s), the binding
 * of each call being most of it. 50 rows of the widest staging table stay
 * far below SQLite's limit of bound parameters.
 */
const ROWS_PER_INSERT = 50;

/**
 * SQLite's staging area: a scratch database file next to the served one,
 * attached as `staging`, with no journal (a crash loses only scratch). Rows
 * are buffered and written in chunks, each one transaction of the scratch
 * file; the served database and its WAL are not touched until the merge.
 */
export function openSqliteStaging(sqlite: SQLite.Database, path: string): StagingArea {
  for (const file of [path, `${path}-journal`]) rmSync(file, { force: true });
  sqlite.prepare("attach database ? as staging").run(path);
  sqlite.pragma("staging.journal_mode = OFF");
  sqlite.pragma("staging.synchronous = OFF");

  /** Per table: its statements, and the parameters of one many-row insert, filled in place for each (no arrays made per call). */
  const inserts = new Map<string, { one: SQLite.Statement; many: SQLite.Statement; width: number; params: unknown[] }>();
  const buffers = new Map<string, unknown[][]>();
  const written = new Map<string, number>();
  const writeChunk = sqlite.transaction((table: string, rows: unknown[][]) => {
    const { one, many, width, params } = inserts.get(table)!;
    let next = 0;
    for (; next + ROWS_PER_INSERT <= rows.length; next += ROWS_PER_INSERT) {
      let p = 0;
      for (let r = next; r < next + ROWS_PER_INSERT; r += 1) {
        const row = rows[r]!;
        // A short row would leave the previous call's values in place: refused, as SQLite refuses a wrong count.
        if (row.length !== width) throw new Error(`staging.${table}: ${row.length} values for ${width} columns`);
        for (let c = 0; c < width; c += 1) params[p++] = row[c];
      }
      many.run(params);
    }
    for (; next < rows.length; next += 1) one.run(rows[next]);
  });

  const flushTable = (table: string) => {
    const rows = buffers.get(table);
    if (!rows || rows.length === 0) return;
    writeChunk(table, rows);
    written.set(table, (written.get(table) ?? 0) + rows.length);
    buffers.set(table, []);
  };

  return {
    written,
    async create(tables) {
      for (const { name, columns } of tables) {
        sqlite.exec(`drop table if exists staging.${name}`);
        sqlite.exec(`create table staging.${name} (${columns.map(([column, type]) => `${column} ${type}`).join(", ")})`);
        const row = `(${columns.map(() => "?").join(", ")})`;
        inserts.set(name, {
          one: sqlite.prepare(`insert into staging.${name} values ${row}`),
          many: sqlite.prepare(`insert into staging.${name} values ${Array<string>(ROWS_PER_INSERT).fill(row).join(", ")}`),
          width: columns.length,
          params: new Array<unknown>(ROWS_PER_INSERT * columns.length),
        });
        buffers.set(name, []);
        written.set(name, 0);
      }
    },
    row(table, values) {
      const rows = buffers.get(table);
      if (!rows) throw new Error(`no staging table ${table}`);
      rows.push(values as unknown[]);
      if (rows.length >= CHUNK_ROWS) flushTable(table);
    },
    backlog: () => null,
    async flush() {
      for (const table of buffers.keys()) flushTable(table);
    },
    async dispose() {
      inserts.clear();
      if (sqlite.open) sqlite.exec("detach database staging");
      for (const file of [path, `${path}-journal`]) rmSync(file, { force: true });
    },
  };
}
