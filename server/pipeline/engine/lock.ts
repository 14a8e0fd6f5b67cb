import { sql, type Kysely, type Selectable } from "kysely";
import { lockAbandoned as abandoned } from "../../db/import-lock-row";
import { isPostgres } from "../../db/is-postgres";
import type { Database, ImportLockTable } from "../../db/schema";
import { ImportBusyError, lockHolderName, type ImportLock, type LockHolder } from "./lock-holder";
import { acquirePostgresImportLock, currentPostgresImport } from "./postgres-lock";

const HEARTBEAT_MS = 20_000;

export { LOCK_STALE_MS } from "../../db/import-lock-row";
export { ImportBusyError, lockHolderName, type ImportLock, type LockHolder } from "./lock-holder";

/**
 * One import at a time, across processes. On SQLite: a single row in
 * `import_lock`, taken in one statement and refreshed by a heartbeat; a
 * holder that died (kill -9) is recognised by its pid (same host) or its
 * stale heartbeat. On PostgreSQL: an advisory lock (./postgres-lock.ts).
 */
export async function acquireImportLock(db: Kysely<Database>, now: () => Date = () => new Date()): Promise<ImportLock> {
  if (isPostgres(db)) return acquirePostgresImportLock(db, now);
  const holder = lockHolderName();
  const stamp = () => now().toISOString();
  // Write-locked from its first statement, so two processes cannot both see the lock free.
  await sql`begin immediate`.execute(db);
  let taken: LockHolder | null = null;
  try {
    const current = await db.selectFrom("import_lock").selectAll().where("id", "=", 1).executeTakeFirst();
    if (current && current.holder !== holder && !abandoned(current, now().getTime())) {
      taken = { holder: current.holder, source: current.source, startedAt: current.started_at };
    } else {
      const row = { holder, source: null, started_at: stamp(), heartbeat_at: stamp() };
      await db
        .insertInto("import_lock")
        .values({ id: 1, ...row })
        .onConflict((oc) => oc.column("id").doUpdateSet(row))
        .execute();
    }
    await sql`commit`.execute(db);
  } catch (error) {
    await sql`rollback`.execute(db).catch(() => undefined);
    throw error;
  }
  if (taken) throw new ImportBusyError(taken);

  const heartbeat = setInterval(() => {
    db.updateTable("import_lock")
      .set({ heartbeat_at: stamp() })
      .where("holder", "=", holder)
      .execute()
      .catch(() => undefined);
  }, HEARTBEAT_MS);
  heartbeat.unref();
  return {
    async setSource(source) {
      await db.updateTable("import_lock").set({ source, heartbeat_at: stamp() }).where("holder", "=", holder).execute();
    },
    async release() {
      clearInterval(heartbeat);
      await db.deleteFrom("import_lock").where("holder", "=", holder).execute();
    },
  };
}

/** The running import, if any (for /api/v1/sources and the CLI's message). */
export async function currentImport(db: Kysely<Database>, now: Date = new Date()): Promise<LockHolder | null> {
  if (isPostgres(db)) return currentPostgresImport(db);
  return runningImport(await db.selectFrom("import_lock").selectAll().where("id", "=", 1).executeTakeFirst(), now);
}

/** The import that SQLite's `import_lock` row names, unless its holder is gone. */
export function runningImport(row: Selectable<ImportLockTable> | null | undefined, now: Date): LockHolder | null {
  if (!row || abandoned(row, now.getTime())) return null;
  return { holder: row.holder, source: row.source, startedAt: row.started_at };
}
