import { hostname } from "node:os";

/** A lock whose holder stopped refreshing it for this long is considered abandoned. */
export const LOCK_STALE_MS = 120_000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether the SQLite `import_lock` row's holder is gone: its heartbeat is
 * old, or it was a process on this host that no longer exists (kill -9).
 * The import lock and the web process's data version both ask.
 */
export function lockAbandoned(row: { holder: string; heartbeat_at: string }, now: number): boolean {
  if (now - Date.parse(row.heartbeat_at) > LOCK_STALE_MS) return true;
  const local = /^pid (\d+) on (.+)$/.exec(row.holder);
  return local !== null && local[2] === hostname() && !isAlive(Number(local[1]));
}
