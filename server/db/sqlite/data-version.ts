import SQLite from "better-sqlite3";

/**
 * The version of the data, read without waiting for anything: SQLite's
 * `data_version` changes whenever another connection commits. This
 * connection never writes, so every change by an import (or a test seeding
 * rows) is seen, and asking costs a read of the WAL index, not a query that
 * would queue behind the readers.
 */
export class SqliteDataVersion {
  readonly #sqlite: SQLite.Database;
  readonly #pragma: SQLite.Statement<[], number>;

  constructor(path: string) {
    this.#sqlite = new SQLite(path, { readonly: true, fileMustExist: true });
    this.#pragma = this.#sqlite.prepare<[], number>("pragma data_version").pluck();
  }

  current(): string {
    return String(this.#pragma.get());
  }

  close(): void {
    this.#sqlite.close();
  }
}
