import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

/**
 * The nice value of the scheduler's import process: the lowest there is. On a
 * small machine (the reference VM has 2 cores) the import and the web process
 * compete for the CPU; an import is a background job that may take a little
 * longer, a page may not. At 19 the import still gets every cycle the web
 * process leaves (maltrail's first import took as long as at 10 on an idle
 * machine), and a request waits less for it: p95 beside maltrail's import
 * 8.2–9.1 ms against 12.1–15.9 ms at 10 (docs/performance.md, "The
 * issue's raw parse, SQLite's write floor, and serving beside an import at
 * nice 19").
 */
export const IMPORT_NICENESS = 19;

/**
 * Lowers the CPU priority of every thread of this process: on Linux a nice
 * value belongs to a thread, and V8's and libuv's threads already exist when
 * the import's code starts (threads created later inherit the main thread's).
 * Then, on Linux, moves them all to the SCHED_IDLE policy (idleSchedulingPolicy).
 * Never raises a priority (called with 10, a process already at 15 keeps
 * 15). Best effort: where threads cannot be listed (not Linux),
 * the calling thread's priority is set; where that is refused, the import
 * runs unchanged. Says what it set, for logs and benchmarks.
 */
export function lowerImportPriority(niceness: number = IMPORT_NICENESS): string {
  let threads: number[];
  try {
    threads = readdirSync("/proc/self/task").map(Number);
  } catch {
    threads = [0];
  }
  for (const thread of threads) {
    try {
      if (getPriority(thread) < niceness) setPriority(thread, niceness);
    } catch {
      // A thread that ended since it was listed, or a system that refuses: the import still runs.
    }
  }
  return process.platform === "linux" && idleSchedulingPolicy() ? "SCHED_IDLE" : `nice ${Math.max(niceness, getPriority())}`;
}

/**
 * Puts every thread of this process under SCHED_IDLE: it runs only on CPU time
 * no other thread wants, and a thread of the web process that wakes (a request
 * came in, a read finished) takes the CPU from it at once. At nice 19 alone,
 * Linux's EEVDF scheduler (6.6 and later) may let the import finish its slice
 * first. Beside maltrail's import, a probe of every answer counted 35–59
 * answers over 9 ms under SCHED_IDLE against 53–81 at nice 19, in five
 * alternated pairs (docs/performance.md, "Simultaneous first views rendered
 * once, imports under SCHED_IDLE, the warninglist matcher kept").
 * Node has no call for it, so util-linux's chrt sets it (util-linux is
 * essential on Debian and Ubuntu). Where chrt is missing or refused, nice
 * stays the only priority. Like nice 19, SCHED_IDLE still gives the import
 * every cycle the web process leaves; beside a saturated web process it gets
 * next to none, and the import lock then keeps it by its pid, not its heartbeat
 * (server/db/import-lock-row.ts).
 */
function idleSchedulingPolicy(): boolean {
  try {
    execFileSync("chrt", ["--all-tasks", "--idle", "--pid", "0", String(process.pid)], { stdio: "ignore", timeout: 10_000 });
    return true;
  } catch {
    // No chrt, or a system that refuses: nice alone.
    return false;
  }
}

/**
 * Lowers a just-started import process's priority from its parent, so that
 * its start-up (Node's own, and loading the import's modules) already yields
 * to the web process instead of running at the server's priority until the
 * child's code calls lowerImportPriority. Only the child's main thread gets
 * it (threads it starts later inherit it), so the child still calls
 * lowerImportPriority. Never raises a priority; best effort, like
 * lowerImportPriority.
 */
export function lowerChildPriority(pid: number | undefined, niceness: number = IMPORT_NICENESS): void {
  if (pid === undefined) return;
  try {
    if (getPriority(pid) < niceness) setPriority(pid, niceness);
  } catch {
    // The child already ended, or the system refuses: it lowers its own threads when it starts.
  }
}
