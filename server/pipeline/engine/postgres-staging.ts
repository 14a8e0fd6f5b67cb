import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import { postgresDialect } from "../../db/dialect/postgres";
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

/**
 * Rows per COPY. COPY has no parameter cap; a chunk bounds the rows held in
 * memory (CVE records' rows run to kilobytes) and lets the reader run ahead.
 */
const CHUNK_ROWS = 10_000;
/** Chunks on their way to the server before the reader is made to wait. */
const MAX_IN_FLIGHT = 2;

/**
 * PostgreSQL's staging area: UNLOGGED tables (no WAL: a crash loses only
 * scratch) in a schema of their own, emptied at the start of each run and
 * dropped at its end. Rows are buffered and sent with COPY (text format) on
 * the import's pool, a couple of chunks at a time, so parsing the next
 * records overlaps the server writing the last ones. COPY skips the
 * per-statement parse, plan and parameter binding of multi-row INSERTs
 * (staging tweetfeed's 427,000 sightings took 60 s or more of its import as
 * INSERTs of 2,000 rows).
 */
export function openPostgresStaging(pool: pg.Pool): StagingArea {
  const schema = `"${STAGING_SCHEMA}"`;
  const buffers = new Map<string, unknown[][]>();
  const written = new Map<string, number>();
  let pending: Promise<void> = Promise.resolve();
  let inFlight = 0;
  let failure: unknown = null;

  const send = (table: string, rows: unknown[][]) => {
    const text = rows.map(copyLine).join("");
    inFlight += 1;
    pending = pending
      .then(() => copyInto(pool, `copy ${schema}."${table}" from stdin`, text))
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
        await pool.query(
          `create ${postgresDialect.scratchTable} ${schema}."${name}" (${columns.map(([column, type]) => `"${column}" ${COLUMN_TYPES[type]}`).join(", ")})`,
        );
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

async function copyInto(pool: pg.Pool, statement: string, text: string): Promise<void> {
  const client = await pool.connect();
  try {
    await pipeline(Readable.from([text]), client.query(copyFrom(statement)));
  } finally {
    client.release();
  }
}

/** One row in COPY's text format: tab-separated, `\\N` for NULL, backslash escapes in text. */
function copyLine(values: readonly unknown[]): string {
  return `${values.map(copyField).join("\t")}\n`;
}

function copyField(value: unknown): string {
  if (value === null || value === undefined) return "\\N";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`a staged number must be finite, not ${value}`);
    return String(value);
  }
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "boolean") return value ? "1" : "0";
  return String(value).replace(/[\\\n\r\t]/g, (c) => COPY_ESCAPES[c]!);
}

const COPY_ESCAPES: Record<string, string> = { "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
