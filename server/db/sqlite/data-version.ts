import SQLite from "better-sqlite3";
import type { Selectable } from "kysely";
import { lockAbandoned } from "../import-lock-row";
import type { ImportLockTable, SourcesTable } from "../schema";
import type { SourceStatusRows } from "../web-database";

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
  readonly #lock: SQLite.Statement<[], Selectable<ImportLockTable>>;
  readonly #sources: SQLite.Statement<[], Selectable<SourcesTable>>;
  readonly #read: () => SourceStatusRows;
  #seen: number;
  #version: number;
  #rows: SourceStatusRows;
  #sourcesKey: string;

  constructor(
    path: string,
    private readonly now: () => number = Date.now,
  ) {
    this.#sqlite = new SQLite(path, { readonly: true, fileMustExist: true });
    this.#pragma = this.#sqlite.prepare<[], number>("pragma data_version").pluck();
    this.#lock = this.#sqlite.prepare<[], Selectable<ImportLockTable>>("select * from import_lock where id = 1");
    this.#sources = this.#sqlite.prepare<[], Selectable<SourcesTable>>("select * from sources order by name");
    // One read transaction for both, so the lock and the sources rows are of the same commit.
    this.#read = this.#sqlite.transaction(() => ({ sources: this.#sources.all(), importLock: this.#lock.get() ?? null }));
    this.#seen = this.#pragma.get()!;
    this.#version = this.#seen;
    this.#rows = this.#read();
    this.#sourcesKey = JSON.stringify(this.#rows.sources);
  }

  /** Reads the rows again if anything was committed since they were read. */
  #refresh(): void {
    const seen = this.#pragma.get()!;
    if (seen === this.#seen) return;
    // Read before the commit counts as seen: a read that fails is tried again on the next call.
    this.#rows = this.#read();
    this.#seen = seen;
    const sourcesKey = JSON.stringify(this.#rows.sources);
    const lock = this.#rows.importLock;
    const importRunning = lock !== null && !lockAbandoned(lock, this.now());
    if (!importRunning || sourcesKey !== this.#sourcesKey) this.#version = seen;
    this.#sourcesKey = sourcesKey;
  }

  current(): string {
    this.#refresh();
    return String(this.#version);
  }

  /**
   * The `sources` rows and the import lock's row of the last commit. They are
   * read for the version anyway; `/api/v1/sources` answers from them instead
   * of two queries on the read pool, which took half its time. Unlike the
   * version, they follow every commit: the lock's source and heartbeat too.
   */
  statusRows(): SourceStatusRows {
    this.#refresh();
    return this.#rows;
  }

  close(): void {
    this.#sqlite.close();
  }
}
