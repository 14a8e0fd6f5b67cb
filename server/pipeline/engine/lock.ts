import { hostname } from "node:os";
import { sql, type Kysely } from "kysely";
import { dialectOf } from "../../db/dialect";
import type { Database } from "../../db/schema";

/** A lock whose holder stopped refreshing it for this long is considered abandoned. */
export const LOCK_STALE_MS = 120_000;
const HEARTBEAT_MS = 20_000;

export interface LockHolder {
  holder: string;
  source: string | null;
  startedAt: string;
}

/** Another import runs: who, what and since when, for the message that says so. */
export class ImportBusyError extends Error {
  override name = "ImportBusyError";
  constructor(readonly running: LockHolder) {
    super(`another import is running: ${running.holder}, ${running.source ?? "starting"}, since ${running.startedAt}`);
  }
}

export interface ImportLock {
  /** Says which source is being imported now (shown to whoever finds the lock taken). */
  setSource(source: string | null): Promise<void>;
  release(): Promise<void>;
}

/** This process, as the lock names it. */
export function lockHolderName(): string {
  return `pid ${process.pid} on ${hostname()}`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Whether the lock's holder is gone: its heartbeat is old, or it was a process on this host that no longer exists. */
function abandoned(row: { holder: string; heartbeat_at: string }, now: number): boolean {
  if (now - Date.parse(row.heartbeat_at) > LOCK_STALE_MS) return true;
  const local = /^pid (\d+) on (.+)$/.exec(row.holder);
  return local !== null && local[2] === hostname() && !isAlive(Number(local[1]));
}

/**
 * One import at a time, across processes: a single row in `import_lock`,
 * taken in one statement and refreshed by a heartbeat. A holder that died
 * (kill -9) is recognised by its pid (same host) or its stale heartbeat.
 */
export async function acquireImportLock(db: Kysely<Database>, now: () => Date = () => new Date()): Promise<ImportLock> {
  const holder = lockHolderName();
  const stamp = () => now().toISOString();
  let taken = null as LockHolder | null;
  const take = async (trx: Kysely<Database>) => {
    const current = await trx.selectFrom("import_lock").selectAll().where("id", "=", 1).executeTakeFirst();
    if (current && current.holder !== holder && !abandoned(current, now().getTime())) {
      taken = { holder: current.holder, source: current.source, startedAt: current.started_at };
    } else {
      const row = { holder, source: null, started_at: stamp(), heartbeat_at: stamp() };
      await trx
        .insertInto("import_lock")
        .values({ id: 1, ...row })
        .onConflict((oc) => oc.column("id").doUpdateSet(row))
        .execute();
    }
  };
  if (dialectOf(db).name === "postgres") {
    // A pool's connections differ from statement to statement: a transaction of Kysely's, which
    // locks the table (the row may not exist yet) so that two processes cannot both see it free.
    await db.transaction().execute(async (trx) => {
      await sql`lock table import_lock in share row exclusive mode`.execute(trx);
      await take(trx);
    });
  } else {
    // Write-locked from its first statement, so two processes cannot both see the lock free.
    await sql`begin immediate`.execute(db);
    try {
      await take(db);
      await sql`commit`.execute(db);
    } catch (error) {
      await sql`rollback`.execute(db).catch(() => undefined);
      throw error;
    }
  }
  if (taken) throw new ImportBusyError(taken);

  const heartbeat = setInterval(() => {
    db.updateTable("import_lock").set({ heartbeat_at: stamp() }).where("holder", "=", holder).execute().catch(() => undefined);
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
  const row = await db.selectFrom("import_lock").selectAll().where("id", "=", 1).executeTakeFirst();
  if (!row || abandoned(row, now.getTime())) return null;
  return { holder: row.holder, source: row.source, startedAt: row.started_at };
}
