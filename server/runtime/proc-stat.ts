import { readFileSync } from "node:fs";

/**
 * Field `field` of a Linux stat file (`/proc/<pid>/stat`,
 * `/proc/<pid>/task/<tid>/stat`), numbered from 1 as proc(5) numbers them.
 * Throws where the file cannot be read (not Linux, a process that ended).
 */
export function procStatField(path: string, field: number): number {
  const stat = readFileSync(path, "utf8");
  // Counted after the command name (field 2), which may itself hold spaces and parentheses.
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[field - 3]);
}
