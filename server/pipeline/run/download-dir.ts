import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processGoneSince } from "../../runtime/process-liveness";

/**
 * A run's download folder is named for its process, so a later import can
 * tell a folder a killed run left (its process is gone) from one a live run
 * is filling: test files, a CLI sync and a server may share one machine's
 * temporary directory.
 */
const PREFIX = "threat-radar-download-";
const NAME = new RegExp(`^${PREFIX}(\\d+)-`);

/** Covers /proc's start time being rounded to the clock tick and the boot time to the second. */
const START_TIME_MARGIN_MS = 5_000;

/** A new folder for the downloads of one source's run. */
export function createDownloadDir(source: string, root: string = tmpdir()): Promise<string> {
  return mkdtemp(join(root, `${PREFIX}${process.pid}-${source}-`));
}

/**
 * Whether the process that created a folder (last changed at `changedAt`) is
 * gone: no process has its pid, or the one that has it started after the
 * folder last changed (the pid was reused; its creator was running then).
 */
export function ownerGone(pid: number, changedAt: number): boolean {
  return pid !== process.pid && processGoneSince(pid, changedAt, START_TIME_MARGIN_MS) === true;
}

/**
 * Removes the download folders of runs whose process is gone (a run killed
 * with SIGKILL cannot clean up after itself: EPSS leaves 2.7 MB, maltrail
 * 16 MB). Returns the folders removed.
 */
export async function removeOrphanedDownloadDirs(root: string = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  for (const name of await readdir(root).catch(() => [])) {
    const pid = NAME.exec(name)?.[1];
    if (pid === undefined) continue;
    const path = join(root, name);
    const info = await stat(path).catch(() => null);
    if (!info?.isDirectory() || !ownerGone(Number(pid), info.ctimeMs)) continue;
    await rm(path, { recursive: true, force: true });
    removed.push(path);
  }
  return removed;
}
