import SQLite from "better-sqlite3";
import type { Selectable } from "kysely";
import { lockAbandoned } from "../import-lock-row";
import type { ImportLockTable, SourcesTable } from "../schema";
import { DATA_DOMAINS, sourceDomain, type DataDomain } from "../data-domains";
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
 * does, as before.
 *
 * The version is kept per domain (server/db/data-domains.ts): a source's
 * publish moves its own domain's version, so EPSS's import renders the CVE
 * pages again and leaves the IOC radar's cached. A commit with no import
 * running moves every domain. A commit by another writer during an import is
 * therefore seen when the import publishes in the same domain, fails, or
 * ends, at the latest.
 */
export class SqliteDataVersion {
  readonly #sqlite: SQLite.Database;
  readonly #pragma: SQLite.Statement<[], number>;
  readonly #lock: SQLite.Statement<[], Selectable<ImportLockTable>>;
  readonly #sources: SQLite.Statement<[], Selectable<SourcesTable>>;
  readonly #read: () => SourceStatusRows;
  #seen: number;
  readonly #versions: Record<DataDomain, number>;
  #rows: SourceStatusRows;
  /** Each `sources` row as last read, by name. */
  #sourceKeys: Map<string, string>;

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
    this.#versions = { cve: this.#seen, ioc: this.#seen };
    this.#rows = this.#read();
    this.#sourceKeys = sourceKeys(this.#rows);
  }

  /** Reads the rows again if anything was committed since they were read. */
  #refresh(): void {
    const seen = this.#pragma.get()!;
    if (seen === this.#seen) return;
    // Read before the commit counts as seen: a read that fails is tried again on the next call.
    this.#rows = this.#read();
    this.#seen = seen;
    const keys = sourceKeys(this.#rows);
    for (const domain of this.#lockHeld() ? changedDomains(this.#sourceKeys, keys) : DATA_DOMAINS) this.#versions[domain] = seen;
    this.#sourceKeys = keys;
  }

  /** The version of one domain's data, or of all of it. */
  current(domain?: DataDomain): string {
    this.#refresh();
    return domain ? String(this.#versions[domain]) : `${this.#versions.cve}.${this.#versions.ioc}`;
  }

  /** Whether an import holds the lock, as of the last commit. */
  importRunning(): boolean {
    this.#refresh();
    return this.#lockHeld();
  }

  #lockHeld(): boolean {
    const lock = this.#rows.importLock;
    return lock !== null && !lockAbandoned(lock, this.now());
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

const sourceKeys = (rows: SourceStatusRows) => new Map(rows.sources.map((row) => [row.name, JSON.stringify(row)]));

/** The domains of the sources whose row was added, changed or removed; every domain for a source of none. */
function changedDomains(before: Map<string, string>, after: Map<string, string>): Set<DataDomain> {
  const changed = new Set<DataDomain>();
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    if (before.get(name) === after.get(name)) continue;
    const domain = sourceDomain(name);
    for (const moved of domain ? [domain] : DATA_DOMAINS) changed.add(moved);
  }
  return changed;
}
