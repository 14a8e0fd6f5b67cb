import SQLite from "better-sqlite3";
import { workerData } from "node:worker_threads";
import { applyReadPragmas } from "./pragmas";

/** What the pool sends: one compiled query of the web process's read-only Kysely instance. */
export interface ReadTask {
  sql: string;
  parameters: readonly unknown[];
}

export interface ReadResult {
  rows: unknown[];
}

export interface ReadWorkerData {
  path: string;
  cacheKib: number;
}

const { path, cacheKib } = workerData as ReadWorkerData;
// Read-only: a query of the web process can never write, whatever its SQL says.
const db = new SQLite(path, { readonly: true, fileMustExist: true });
applyReadPragmas(db, cacheKib);

/**
 * Prepared statements by SQL text. The web process sends a few dozen distinct
 * statements (the list, count and detail queries with their filters), so
 * preparing each once saves the planner's work on every request.
 */
const statements = new Map<string, SQLite.Statement>();
const MAX_STATEMENTS = 500;

function prepare(sql: string): SQLite.Statement {
  let statement = statements.get(sql);
  if (statement) {
    // Re-inserted so that the Map's order is least recently used first.
    statements.delete(sql);
  } else {
    statement = db.prepare(sql);
    if (statements.size >= MAX_STATEMENTS) statements.delete(statements.keys().next().value as string);
  }
  statements.set(sql, statement);
  return statement;
}

/** Runs one read query. Writes are refused by the read-only connection itself. */
export default function runReadTask({ sql, parameters }: ReadTask): ReadResult {
  const statement = prepare(sql);
  if (!statement.reader) throw new Error("the web process's database connections are read-only");
  return { rows: statement.all(parameters as unknown[]) };
}
