import SQLite from "better-sqlite3";

export interface StoredObject {
  name: string;
  kind: "table" | "index";
  table: string;
  bytes: number;
  /** Rows of the table (an index: of the table it indexes). */
  rows: number;
}

export interface SizeReport {
  fileBytes: number;
  freeBytes: number;
  objects: StoredObject[];
}

/**
 * Where a SQLite file's bytes go (the `dbstat` table): each table and index,
 * with the rows of its table, so that size reads as bytes per record.
 * An FTS5 index's shadow tables count under the virtual table's name.
 */
export function sizeReport(path: string): SizeReport {
  const db = new SQLite(path, { readonly: true, fileMustExist: true });
  try {
    const pageSize = Number(db.pragma("page_size", { simple: true }));
    const schema = new Map(
      (db.prepare("select name, type, tbl_name from sqlite_schema").all() as Array<{ name: string; type: string; tbl_name: string }>).map((row) => [
        row.name,
        row,
      ]),
    );
    const stats = db.prepare("select name, sum(pgsize) as bytes from dbstat group by name").all() as Array<{ name: string; bytes: number }>;
    const rowCounts = new Map<string, number>();
    const rowsOf = (table: string) => {
      if (!rowCounts.has(table))
        rowCounts.set(table, Number((db.prepare(`select count(*) as n from "${table.replaceAll('"', '""')}"`).get() as { n: number }).n));
      return rowCounts.get(table)!;
    };
    const byName = new Map<string, StoredObject>();
    for (const { name, bytes } of stats) {
      const entry = schema.get(name);
      if (!entry || name.startsWith("sqlite_stat") || name === "sqlite_schema") continue;
      // FTS5 shadow tables (x_data, x_idx, x_docsize, x_config, x_content) belong to their virtual table x.
      const fts = /^(.*)_(data|idx|docsize|config|content)$/.exec(name);
      const owner = fts && isVirtual(db, fts[1]!) ? fts[1]! : null;
      const key = owner ?? name;
      // The search index over a table's rows (indicators_fts over indicators) counts that table's rows.
      const table = owner ? owner.replace(/_fts$/, "") : entry.tbl_name;
      const kind = owner ? "index" : entry.type === "index" ? "index" : "table";
      const current = byName.get(key) ?? { name: key, kind, table, bytes: 0, rows: 0 };
      current.bytes += bytes;
      byName.set(key, current);
    }
    for (const object of byName.values()) object.rows = schema.has(object.table) ? rowsOf(object.table) : 0;
    return {
      fileBytes: Number(db.pragma("page_count", { simple: true })) * pageSize,
      freeBytes: Number(db.pragma("freelist_count", { simple: true })) * pageSize,
      objects: [...byName.values()].sort((a, b) => b.bytes - a.bytes),
    };
  } finally {
    db.close();
  }
}

function isVirtual(db: SQLite.Database, name: string): boolean {
  const row = db.prepare("select sql from sqlite_schema where name = ?").get(name) as { sql: string | null } | undefined;
  return /^create virtual table/i.test(row?.sql ?? "");
}
