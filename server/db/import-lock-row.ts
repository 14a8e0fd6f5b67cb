import { hostname } from "node:os";
import { processGoneSince } from "../runtime/process-liveness";

/** A lock whose holder stopped refreshing it for this long is considered abandoned. */
export const LOCK_STALE_MS = 120_000;

/**
 * Whether the SQLite `import_lock` row's holder is gone. A holder on this host
 * is gone when its process is (kill -9), or when its pid now names a process
 * started after the lock was taken (the pid was reused); while it lives it
 * keeps the lock however long its heartbeat is late, since an import at the
 * lowest CPU priority beside a saturated web process can go minutes without
 * a turn. A holder elsewhere (a file on shared storage), or where /proc
 * cannot say, is gone when its heartbeat is older than LOCK_STALE_MS. The
 * import lock and the web process's data version both ask.
 */
export function lockAbandoned(row: { holder: string; started_at: string; heartbeat_at: string }, now: number): boolean {
  const local = /^pid (\d+) on (.+)$/.exec(row.holder);
  if (local !== null && local[2] === hostname()) {
    const gone = processGoneSince(Number(local[1]), Date.parse(row.started_at), LOCK_STALE_MS);
    if (gone !== null) return gone;
  }
  return now - Date.parse(row.heartbeat_at) > LOCK_STALE_MS;
}
