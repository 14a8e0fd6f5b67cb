import type pg from "pg";
import type { StagingArea, StagingColumnType } from "./staging";

/** The schema the merges' SQL names (`staging.<table>`): one import runs at a time (the import lock). */
export const STAGING_SCHEMA = "staging";

const COLUMN_TYPES: Record<StagingColumnType, string> = {
  // Byte order, as the served tables' text (textType): merges insert `order by value`, and ids follow that order.
  text: 'text collate "C"',
  // 64 bits, as SQLite's integers: sighting variants are 48-bit hashes.
  integer: "bigint",
  real: "double precision",
};

/** A statement's bind parameters are capped at 65,535: chunks stay well below, whatever the table's width. */
const MAX_PARAMETERS = 30_000;
const MAX_CHUNK_ROWS = 2_000;
/** Chunks on their way to the server before the reader is made to wait. */
const MAX_IN_FLIGHT = 2;

/**
 * PostgreSQL's staging area: UNLOGGED tables (no WAL: a crash loses only
 * scratch) in a schema of their own, emptied at the start of each run and
 * dropped at its end. Rows are buffered and sent as multi-row INSERTs on the
 * import's pool, a couple of chunks at a time, so parsing the next records
 * overlaps the server writing the last ones.
 */
export function openPostgresStaging(pool: pg.Pool): StagingArea {
  const schema = `"${STAGING_SCHEMA}"`;
  const columnsOf = new Map<string, number>();
  const buffers = new Map<string, unknown[][]>();
  const written = new Map<string, number>();
  let pending: Promise<void> = Promise.resolve();
  let inFlight = 0;
  let failure: unknown = null;

  const chunkRows = (table: string) => Math.max(1, Math.min(MAX_CHUNK_ROWS, Math.floor(MAX_PARAMETERS / columnsOf.get(table)!)));

  const send = (table: string, rows: unknown[][]) => {
    const width = columnsOf.get(table)!;
    const values = rows.map((_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(", ")})`).join(", ");
    const parameters = rows.flat();
    inFlight += 1;
    pending = pending
      .then(() => pool.query(`insert into ${schema}."${table}" values ${values}`, parameters))
      .then(
        () => {
          written.set(table, (written.get(table) ?? 0) + rows.length);
        },
        (error: unknown) => {
          failure ??= error;
        },
      )
      .finally(() => {
        inFlight -= 1;
      });
  };

  const flushTable = (table: string) => {
    const rows = buffers.get(table);
    if (!rows || rows.length === 0) return;
    buffers.set(table, []);
    send(table, rows);
  };

  const settled = async () => {
    await pending;
    if (failure) throw failure;
  };

  return {
    written,
    async create(tables) {
      await pool.query(`drop schema if exists ${schema} cascade`);
      await pool.query(`create schema ${schema}`);
      for (const { name, columns } of tables) {
        await pool.query(`create unlogged table ${schema}."${name}" (${columns.map(([column, type]) => `"${column}" ${COLUMN_TYPES[type]}`).join(", ")})`);
        columnsOf.set(name, columns.length);
        buffers.set(name, []);
        written.set(name, 0);
      }
    },
    row(table, values) {
      const rows = buffers.get(table);
      if (!rows) throw new Error(`no staging table ${table}`);
      rows.push(values as unknown[]);
      if (rows.length >= chunkRows(table)) flushTable(table);
    },
    backlog() {
      if (failure) return settled();
      return inFlight >= MAX_IN_FLIGHT ? settled() : null;
    },
    async flush() {
      for (const table of buffers.keys()) flushTable(table);
      await settled();
    },
    async dispose() {
      buffers.clear();
      await pending;
      await pool.query(`drop schema if exists ${schema} cascade`).catch(() => {});
    },
  };
}
