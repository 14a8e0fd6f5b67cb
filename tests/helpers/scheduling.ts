import { readdirSync, readFileSync } from "node:fs";

/** Linux's number for the SCHED_IDLE policy (sched.h). */
export const SCHED_IDLE = 5;

/** The scheduling policy of every thread of process `pid` (Linux: field 41 of each thread's stat). */
export function threadPolicies(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((thread) => {
    const stat = readFileSync(`/proc/${pid}/task/${thread}/stat`, "utf8");
    // Counted after the command name, which may itself hold spaces and parentheses.
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[38]);
  });
}
