import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import { procStatField } from "../runtime/proc-stat";

/** A lock whose holder stopped refreshing it for this long is considered abandoned. */
export const LOCK_STALE_MS = 120_000;

/**
 * Linux reports process start times in clock ticks of USER_HZ, which is 100
 * on every architecture Node runs on (it is not the kernel's HZ).
 */
const CLOCK_TICKS_PER_SECOND = 100;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** When process `pid` started (ms since the epoch, to the second), or null where /proc cannot say. */
export function processStartedAt(pid: number): number | null {
  try {
    const ticks = procStatField(`/proc/${pid}/stat`, 22); // starttime
    const boot = /^btime (\d+)$/m.exec(readFileSync("/proc/stat", "utf8"));
    if (!boot || !Number.isFinite(ticks)) return null;
    return (Number(boot[1]) + ticks / CLOCK_TICKS_PER_SECOND) * 1000;
  } catch {
    return null;
  }
}

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
    const pid = Number(local[1]);
    if (!isAlive(pid)) return true;
    const startedAt = processStartedAt(pid);
    // The margin covers the boot time's rounding to the second and small steps of the clock.
    if (startedAt !== null) return startedAt > Date.parse(row.started_at) + LOCK_STALE_MS;
  }
  return now - Date.parse(row.heartbeat_at) > LOCK_STALE_MS;
}
