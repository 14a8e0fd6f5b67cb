import SQLite from "better-sqlite3";
import { lockAbandoned } from "../import-lock-row";

/**
 * The version of the served data, read without waiting for anything.
 *
 * SQLite's `data_version` changes whenever another connection commits; this
 * connection never writes, so every change by an import (or a test seeding
 * rows) is seen, and asking costs a read of the WAL index, not a query that
 * would queue behind the readers.
 *
 * Most commits of a running import change nothing served, though: the
 * lock's heartbeat every 20 s, the next-generation tables a large merge
 * fills chunk by chunk, the planner's statistics, the free pages it gives
 * back. Moving the version on each of them emptied every cache of the web
 * process several times per import, and every page was rendered again while
 * the import held the CPU (docs/performance.md, "Serving beside an import").
 * What an import serves changes only when it publishes, and publishing (or
 * recording a failure) writes the source's `sources` row in the same
 * transaction. So while an import holds the lock, a commit moves the version
 * only if the `sources` rows changed; with no import running, every commit
 * does, as before. A commit by another writer during an import is therefore
 * seen when the import publishes, fails or ends, at the latest.
 */
export class SqliteDataVersion {
  readonly #sqlite: SQLite.Database;
  readonly #pragma: SQLite.Statement<[], number>;
  readonly #lock: SQLite.Statement<[], { holder: string; started_at: string; heartbeat_at: string }>;
  readonly #sources: SQLite.Statement<[], unknown>;
  #seen: number;
  #version: number;
  #sourceRows: string;

  constructor(
    path: string,
    private readonly now: () => number = Date.now,
  ) {
    this.#sqlite = new SQLite(path, { readonly: true, fileMustExist: true });
    this.#pragma = this.#sqlite.prepare<[], number>("pragma data_version").pluck();
    this.#lock = this.#sqlite.prepare<[], { holder: string; started_at: string; heartbeat_at: string }>(
      "select holder, started_at, heartbeat_at from import_lock where id = 1",
    );
    this.#sources = this.#sqlite.prepare("select * from sources order by name").raw();
    this.#seen = this.#pragma.get()!;
    this.#version = this.#seen;
    this.#sourceRows = this.#readSources();
  }

  #readSources(): string {
    return JSON.stringify(this.#sources.all());
  }

  #importRunning(): boolean {
    const row = this.#lock.get();
    return row !== undefined && !lockAbandoned(row, this.now());
  }

  current(): string {
    const seen = this.#pragma.get()!;
    if (seen !== this.#seen) {
      this.#seen = seen;
      // One read transaction for both, so the lock and the sources rows are of the same commit.
      const [running, sourceRows] = this.#sqlite.transaction(() => [this.#importRunning(), this.#readSources()] as const)();
      if (!running || sourceRows !== this.#sourceRows) this.#version = seen;
      this.#sourceRows = sourceRows;
    }
    return String(this.#version);
  }

  close(): void {
    this.#sqlite.close();
  }
}
