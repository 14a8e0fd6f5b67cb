import { readdirSync } from "node:fs";
import { getPriority, setPriority } from "node:os";

/**
 * The nice value of the scheduler's import process. On a small machine (the
 * reference VM has 2 cores) the import and the web process compete for the
 * CPU; an import is a background job that may take a little longer, a page
 * may not. 10 leaves the import the CPU the web process does not use (an
 * idle server costs it nothing) and lets a request that arrives take a core
 * at once (docs/performance.md, "Serving beside an import").
 */
export const IMPORT_NICENESS = 10;

/**
 * Lowers the CPU priority of every thread of this process: on Linux a nice
 * value belongs to a thread, and V8's and libuv's threads already exist when
 * the import's code starts (threads created later inherit the main thread's).
 * Never raises a priority (a server started under `nice 15` keeps its
 * import at 15). Best effort: where threads cannot be listed (not Linux),
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
