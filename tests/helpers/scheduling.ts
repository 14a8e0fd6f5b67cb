import { readdirSync } from "node:fs";
import { procStatField } from "../../server/runtime/proc-stat";

/** Linux's number for the SCHED_IDLE policy (sched.h). */
export const SCHED_IDLE = 5;

/** The scheduling policy of every thread of process `pid` (Linux: field 41 of each thread's stat). */
export function threadPolicies(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((thread) => procStatField(`/proc/${pid}/task/${thread}/stat`, 41));
}
