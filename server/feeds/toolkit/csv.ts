import { Readable } from "node:stream";
import { parse as parseCsv } from "csv-parse";
import { readLines } from "./lines";
import { rejected, type ParseResult } from "./result";
import { decompressed, type FeedInput } from "./stream";

/*
 * Two CSV readers, for two kinds of file:
 * - `csvRows` for the line-per-record feeds (abuse.ch, TweetFeed): `#`
 *   comment lines (some holding the header), lenient quoting, a damaged line
 *   rejected on its own, in batches for speed;
 * - `csvRecords` for RFC 4180 files whose quoted fields may span lines
 *   (CISA KEV), by csv-parse.
 */

/**
 * Splits one CSV line (RFC 4180 quoting, "" escapes). Spaces before a quoted
 * field are skipped because abuse.ch writes `"a", "b"`; a quote inside an
 * unquoted field is kept literally (TweetFeed has those). Returns null for an
 * unterminated quoted field.
 *
 * Hand-written rather than csv-parse: csv-parse's per-call set-up costs
 * ~130 µs a line, and even one streaming csv-parse per file (relax_quotes,
 * comment_no_infix) took 8.8× as long over TweetFeed's 314,705 daily rows
 * for the same cells (3.97 s against 0.45 s, 2026-11-26); it also drops the
 * `#` comment lines abuse.ch puts its header in, and a damaged line would
 * fail the file instead of being rejected on its own.
 */
export function splitCsvLine(line: string): string[] | null {
  const cells: string[] = [];
  let i = 0;
  for (;;) {
    let start = i;
    while (line[start] === " ") start += 1;
    if (line[start] === '"') {
      let value = "";
      let j = start + 1;
      for (;;) {
        const quote = line.indexOf('"', j);
        if (quote < 0) return null;
        value += line.slice(j, quote);
        if (line[quote + 1] === '"') {
          value += '"';
          j = quote + 2;
          continue;
        }
        j = quote + 1;
        break;
      }
      // Anything between the closing quote and the next comma is kept, as
      // lenient readers do, rather than dropping the whole record.
      const comma = line.indexOf(",", j);
      const trailer = (comma < 0 ? line.slice(j) : line.slice(j, comma)).trimEnd();
      cells.push(value + trailer);
      if (comma < 0) return cells;
      i = comma + 1;
    } else {
      const comma = line.indexOf(",", i);
      cells.push(comma < 0 ? line.slice(i) : line.slice(i, comma));
      if (comma < 0) return cells;
      i = comma + 1;
    }
  }
}

export type CsvRow = { line: number; ok: true; cells: string[]; columns: readonly string[] | null } | { line: number; ok: false; reason: string };

/**
 * Data rows of a CSV feed, in batches (see `readLines`). Blank lines and `#`
 * comment lines are skipped; a line (commented or not) that `isHeader`
 * recognises sets the column names for the rows after it.
 */
export async function* csvRows(input: FeedInput, isHeader: (cells: string[]) => boolean): AsyncGenerator<CsvRow[]> {
  let columns: readonly string[] | null = null;
  // Headers come before the data, so later lines are not tested.
  let sawData = false;
  for await (const lines of readLines(input)) {
    const rows: CsvRow[] = [];
    for (const { number, text } of lines) {
      if (text === null) {
        rows.push({ line: number, ok: false, reason: "line too long" });
        continue;
      }
      if (text.trim() === "") continue;
      const comment = text.startsWith("#");
      const cells = splitCsvLine(comment ? text.replace(/^#+\s*/, "") : text);
      if (!sawData && cells !== null && isHeader(cells.map((cell) => cell.trim()))) {
        columns = cells.map((cell) => cell.trim());
        continue;
      }
      if (comment) continue;
      if (cells === null) {
        rows.push({ line: number, ok: false, reason: "unterminated quoted field" });
        continue;
      }
      sawData = true;
      rows.push({ line: number, ok: true, cells, columns });
    }
    if (rows.length > 0) yield rows;
  }
}

/** Row cells keyed by column name; null when the count does not match. */
function byColumn(cells: readonly string[], columns: readonly string[]): Record<string, string> | null {
  if (cells.length !== columns.length) return null;
  const record: Record<string, string> = {};
  columns.forEach((column, index) => {
    record[column] = cells[index] ?? "";
  });
  return record;
}

/** A data row keyed by its column names, or why it could not be. */
type KeyedCsvRow = { location: string; record: Record<string, string> } | { location: string; reason: string };

/**
 * The data rows of a line-based CSV feed (csvRows), keyed by the columns of
 * its header, or by `fallback` (given the row's cells) when it has none; a
 * row with another number of cells is a rejection that says so.
 */
async function* keyedCsvRows(
  input: FeedInput,
  isHeader: (cells: string[]) => boolean,
  fallback: (cells: readonly string[]) => readonly string[],
): AsyncGenerator<KeyedCsvRow[]> {
  for await (const rows of csvRows(input, isHeader)) {
    yield rows.map((row): KeyedCsvRow => {
      const location = `line ${row.line}`;
      if (!row.ok) return { location, reason: row.reason };
      const columns = row.columns ?? fallback(row.cells);
      const record = byColumn(row.cells, columns);
      return record === null ? { location, reason: `expected ${columns.length} columns, got ${row.cells.length}` } : { location, record };
    });
  }
}

/**
 * A parser's results from a line-based CSV feed: each keyed row
 * (keyedCsvRows) handed to `parse`, each row that could not be keyed
 * rejected with its reason.
 */
export async function* parseKeyedCsv<T>(
  input: FeedInput,
  isHeader: (cells: string[]) => boolean,
  fallback: (cells: readonly string[]) => readonly string[],
  parse: (record: Record<string, string>, location: string) => Iterable<ParseResult<T>>,
): AsyncGenerator<ParseResult<T>> {
  for await (const rows of keyedCsvRows(input, isHeader, fallback))
    for (const row of rows) {
      if ("reason" in row) yield rejected(row.location, row.reason);
      else yield* parse(row.record, row.location);
    }
}

export interface CsvRecord {
  /** 1-based record number, the header being record 1. */
  row: number;
  record: Record<string, string>;
}

/**
 * Records of a (possibly gzipped) RFC 4180 file with a header row, keyed by
 * column name; blank lines and a byte-order mark are skipped, rows with more
 * or fewer cells than the header are kept as they are.
 */
export async function* csvRecords(input: FeedInput): AsyncGenerator<CsvRecord> {
  const source = Readable.from(decompressed(input));
  const parser = source.pipe(parseCsv({ columns: true, bom: true, skip_empty_lines: true, relax_column_count: true }));
  source.on("error", (error) => parser.destroy(error));
  let row = 1;
  try {
    for await (const record of parser as AsyncIterable<Record<string, string>>) {
      row += 1;
      yield { row, record };
    }
  } finally {
    source.destroy();
    parser.destroy();
  }
}
