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
 * Never raises a priority (called with 10, a process already at 15 keeps
 * 15). Best effort: where threads cannot be listed (not Linux),
 * the calling thread's priority is set; where that is refused, the import
 * runs unchanged.
 */
export function lowerImportPriority(niceness: number = IMPORT_NICENESS): void {
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
