import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema";
import { IMPORT_CHANNEL, IMPORT_LOCK_HELD, IMPORT_LOCK_KEY } from "../../db/postgres/import-lock";
import { ImportBusyError, lockHolderName, type ImportLock, type LockHolder } from "./lock-holder";

/**
 * One import at a time on PostgreSQL, across every node: a session-level
 * advisory lock held by one pooled connection for the import's whole life.
 * A process that dies (kill -9, a lost machine) loses its connection, and
 * PostgreSQL releases the lock with the session: there is no heartbeat to
 * go stale and nothing to clean up. The `import_lock` row is kept only to
 * name the holder, source and start time to whoever finds the lock taken.
 *
 * The held connection is one of the pool's, so the import itself needs a
 * pool of at least two connections.
 *
 * The holder notifies IMPORT_CHANNEL once it holds the lock and once it has
 * let it go, so that the web nodes know an import is running without asking
 * (they send a page of the data just replaced while its new render is under
 * way, see server/http/page-documents.ts).
 */
export function acquirePostgresImportLock(db: Kysely<Database>, now: () => Date): Promise<ImportLock> {
  const holder = lockHolderName();
  const stamp = () => now().toISOString();
  let release!: () => void;
  const released = new Promise<void>((done) => (release = done));

  return new Promise<ImportLock>((resolve, reject) => {
    let acquired = false;
    const session = db.connection().execute(async (conn) => {
      const { rows } = await sql<{ taken: boolean }>`select pg_try_advisory_lock(${IMPORT_LOCK_KEY}) as taken`.execute(conn);
      if (!rows[0]?.taken) {
        const row = await conn.selectFrom("import_lock").selectAll().where("id", "=", 1).executeTakeFirst();
        // The row is written just after the lock is taken: a holder that has not written it yet is "starting".
        throw new ImportBusyError(row ? holderOf(row) : { holder: "another process", source: null, startedAt: stamp() });
      }
      try {
        const row = { holder, source: null, started_at: stamp(), heartbeat_at: stamp() };
        // A holder that died left its row behind; whoever holds the lock now overwrites it.
        await conn
          .insertInto("import_lock")
          .values({ id: 1, ...row })
          .onConflict((oc) => oc.column("id").doUpdateSet(row))
          .execute();
        await sql`select pg_notify(${IMPORT_CHANNEL}, 'started')`.execute(conn);
        acquired = true;
        resolve({
          async setSource(source) {
            await conn.updateTable("import_lock").set({ source, heartbeat_at: stamp() }).where("holder", "=", holder).execute();
            // The web nodes cache the lock's row for /api/v1/sources until told it changed.
            await sql`select pg_notify(${IMPORT_CHANNEL}, 'source')`.execute(conn);
          },
          async release() {
            release();
            await session;
          },
        });
        await released;
      } finally {
        await conn.deleteFrom("import_lock").where("holder", "=", holder).execute();
        await sql`select pg_advisory_unlock(${IMPORT_LOCK_KEY})`.execute(conn);
        // After the unlock: a web node that checks the lock on this notification must find it free.
        await sql`select pg_notify(${IMPORT_CHANNEL}, 'ended')`.execute(conn);
      }
    });
    session.catch((error: unknown) => {
      if (!acquired) reject(error);
    });
  });
}

/** The running import on PostgreSQL: the row, if some session holds the advisory lock now. */
export async function currentPostgresImport(db: Kysely<Database>): Promise<LockHolder | null> {
  const row = await db
    .selectFrom("import_lock")
    .selectAll()
    .where("id", "=", 1)
    .where(sql<boolean>`${sql.raw(IMPORT_LOCK_HELD)}`)
    .executeTakeFirst();
  return row ? holderOf(row) : null;
}

function holderOf(row: { holder: string; source: string | null; started_at: string }): LockHolder {
  return { holder: row.holder, source: row.source, startedAt: row.started_at };
}
