import { spawn, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDownloadDir, ownerGone, removeOrphanedDownloadDirs } from "../../../server/pipeline/run/download-dir";
import { processStartedAt } from "../../../server/runtime/process-liveness";

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "threat-radar-sweep-test-"));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A pid no process has: one of a process that has ended (reuse within the test is not a concern at this rate). */
function endedPid(): number {
  return spawnSync(process.execPath, ["-e", ""]).pid!;
}

describe("download folders", () => {
  it("are named for the process that creates them", async () => {
    const dir = await createDownloadDir("epss", root);
    expect(basename(dir)).toMatch(new RegExp(`^threat-radar-download-${process.pid}-epss-`));
  });

  it("of ended processes are removed, those of live ones and everything else left", async () => {
    const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      const dead = join(root, `threat-radar-download-${endedPid()}-maltrail-AbC123`);
      await mkdir(dead);
      await writeFile(join(dead, "0-master.tar.gz"), "partial download");
      const live = join(root, `threat-radar-download-${sleeper.pid}-epss-XyZ789`);
      await mkdir(live);
      const own = await createDownloadDir("tweetfeed", root);
      // Not ours to judge: another product's folder, an old-style name, a file with our prefix.
      await mkdir(join(root, "threat-radar-epss-Oglc6M"));
      await mkdir(join(root, "other-tool-1"));
      const file = `threat-radar-download-${endedPid()}-kev-file`;
      await writeFile(join(root, file), "");

      expect(await removeOrphanedDownloadDirs(root)).toEqual([dead]);
      expect((await readdir(root)).sort()).toEqual([basename(live), basename(own), "threat-radar-epss-Oglc6M", "other-tool-1", file].sort());
    } finally {
      sleeper.kill();
    }
  });

  it("count as orphaned when their pid now names a process started after they last changed", async () => {
    const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      const started = await waitForStart(sleeper.pid!);
      expect(ownerGone(sleeper.pid!, started - 60_000)).toBe(true);
      expect(ownerGone(sleeper.pid!, started)).toBe(false);
      expect(ownerGone(process.pid, 0)).toBe(false);
      expect(ownerGone(endedPid(), Date.now())).toBe(true);
    } finally {
      sleeper.kill();
    }
  });
});

async function waitForStart(pid: number): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const started = processStartedAt(pid);
    if (started !== null) return started;
    await new Promise((done) => setTimeout(done, 10));
  }
  throw new Error(`process ${pid} never showed in /proc`);
}
