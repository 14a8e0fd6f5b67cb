import { readFileSync } from "node:fs";
import { procStatField } from "./proc-stat";

/**
 * Linux reports process start times in clock ticks of USER_HZ, which is 100
 * on every architecture Node runs on (it is not the kernel's HZ).
 */
const CLOCK_TICKS_PER_SECOND = 100;

/** Whether a process `pid` exists on this host (one of another user counts: signalling it is merely not allowed). */
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
 * Whether the process that had `pid` at `since` (ms since the epoch) is gone:
 * no process has the pid now, or the one that has it started more than
 * `marginMs` after `since` (the pid was reused; the margin covers the start
 * time's rounding and small steps of the clock). Null when a process has the
 * pid and /proc cannot say when it started.
 */
export function processGoneSince(pid: number, since: number, marginMs: number): boolean | null {
  if (!isAlive(pid)) return true;
  const startedAt = processStartedAt(pid);
  return startedAt === null ? null : startedAt > since + marginMs;
}
