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
