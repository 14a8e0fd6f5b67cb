import SQLite from "better-sqlite3";
import { CompiledQuery, Kysely, SqliteDialect } from "kysely";
import type { Database } from "../server/db/schema";

/**
 * SQLite's EXPLAIN QUERY PLAN, read for the two things that make a page
 * query grow with the table instead of with the page: a sort of the matches
 * in a temporary B-tree, and a scan of a table without an index. Shared by
 * `npm run bench` (which prints it for every page query) and the query-plan
 * integration test (which asserts it): a structural check, not a timing.
 */
export interface PlanReading {
  /** The plan's lines (EXPLAIN QUERY PLAN's `detail` column), in order. */
  lines: string[];
  /** Lines that sort for the ORDER BY ("USE TEMP B-TREE FOR ORDER BY", "… FOR RIGHT PART OF ORDER BY"). */
  sorts: string[];
  /** Tables read whole, with no index ("SCAN indicators"; "SCAN … USING INDEX" walks an index and is not one). */
  fullScans: string[];
  /** Whether any step reads through an index or a primary key. */
  usesIndex: boolean;
}

export async function explainQueryPlan(db: Kysely<Database>, query: CompiledQuery): Promise<PlanReading> {
  const { rows } = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
  return readPlan(rows.map((row) => row.detail));
}

export function readPlan(lines: string[]): PlanReading {
  return {
    lines,
    sorts: lines.filter((line) => /USE TEMP B-TREE FOR .*ORDER BY/.test(line)),
    fullScans: lines.flatMap((line) => /^SCAN (\w+)(?: AS \w+)?$/.exec(line)?.[1] ?? []),
    usesIndex: lines.some((line) => /USING (?:COVERING )?INDEX|USING (?:INTEGER )?PRIMARY KEY|VIRTUAL TABLE INDEX/.test(line)),
  };
}

/** One word for a table cell: "index" when the plan neither sorts nor reads a table whole. */
export function planVerdict(reading: PlanReading, table = "indicators"): string {
  const problems = [
    ...(reading.sorts.length > 0 ? ["TEMP B-TREE"] : []),
    ...reading.fullScans.filter((scanned) => scanned === table).map((scanned) => `SCAN ${scanned}`),
    ...(reading.usesIndex ? [] : ["no index"]),
  ];
  return problems.length > 0 ? problems.join(" + ") : "index";
}

/**
 * A read-only connection whose Kysely records every statement it runs, so
 * the plans of queries built inside a function (the detail page's) can be
 * read without copying them.
 */
export function openRecordingDatabase(path: string): { db: Kysely<Database>; take(): CompiledQuery[]; close(): Promise<void> } {
  let recorded: CompiledQuery[] = [];
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: new SQLite(path, { readonly: true, fileMustExist: true }) }),
    log: (event) => {
      if (event.level === "query") recorded.push(event.query);
    },
  });
  return {
    db,
    take() {
      const taken = recorded;
      recorded = [];
      return taken;
    },
    close: () => db.destroy(),
  };
}
