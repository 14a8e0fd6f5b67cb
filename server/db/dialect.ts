import { SqliteAdapter, sql, type ColumnDefinitionBuilder, type Kysely } from "kysely";

/** True when `db` talks to SQLite; migrations branch on it for the few DDL differences. */
export function isSqlite(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter;
}

/**
 * An integer key the database assigns. In SQLite "integer primary key" is the
 * rowid itself (no extra index); PostgreSQL needs an identity column.
 */
export function identityColumn(db: Kysely<any>): {
  type: "integer" | ReturnType<typeof sql>;
  build: (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
} {
  return isSqlite(db)
    ? { type: "integer", build: (c) => c.primaryKey() }
    : { type: sql`bigint`, build: (c) => c.primaryKey().generatedByDefaultAsIdentity() };
}
