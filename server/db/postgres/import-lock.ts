/**
 * The import lock on PostgreSQL, as both sides see it: the import process
 * holds a session-level advisory lock (server/pipeline/engine/postgres-lock.ts)
 * and every web node follows it (./data-version.ts).
 */

/** The advisory lock's key (within this database): any constant, as long as nothing else in the database uses it. */
export const IMPORT_LOCK_KEY = 0x54524144;

/**
 * The channel the lock's holder notifies when it has taken the lock (payload
 * `started`), named the source it imports (`source`) and given the lock back
 * (`ended`).
 */
export const IMPORT_CHANNEL = "threat_radar_import";

/**
 * A condition true while some session holds the lock: the lock, not the
 * `import_lock` row, which a holder that died leaves behind.
 */
export const IMPORT_LOCK_HELD = `exists (
  select 1 from pg_locks l
  where l.locktype = 'advisory' and l.granted and l.classid = 0 and l.objsubid = 1
    and l.objid::bigint = ${IMPORT_LOCK_KEY}
    and l.database = (select oid from pg_database where datname = current_database()))`;
