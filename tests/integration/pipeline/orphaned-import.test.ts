import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { getPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import SQLite from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { IMPORT_NICENESS } from "../../../server/pipeline/import-priority";
import { SCHED_IDLE, threadPolicies } from "../../helpers/scheduling";
import { snapshot } from "../../helpers/feed-server";
import { freePort, startServerProcess, waitForHealthy } from "../../helpers/server-process";

const dir = mkdtempSync(join(tmpdir(), "threat-radar-orphan-"));
mkdirSync(join(dir, "empty-mirror"));
const database = join(dir, "orphan.sqlite");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function lockHolderPid(): number | null {
  const db = new SQLite(database, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare("select holder from import_lock where id = 1").get() as { holder: string } | undefined;
    const pid = row && /^pid (\d+) /.exec(row.holder)?.[1];
    return pid ? Number(pid) : null;
  } finally {
    db.close();
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls (up to two minutes: imports share the machine) until `probe` answers. */
async function waitFor<T>(what: string, probe: () => T | null | false): Promise<T> {
  for (let i = 0; i < 1200; i++) {
    const value = probe();
    if (value) return value;
    await delay(100);
  }
  throw new Error(`gave up waiting for ${what}`);
}

// The built server, as production runs it: started through tsx, the import process happens to die with its parent.
describe("an import whose server is killed", () => {
  it("stops, changes nothing and releases the import lock instead of running on without anyone to report to", async () => {
    const server = startServerProcess(
      {
        PORT: String(await freePort()),
        DATABASE_PATH: database,
        SERVER_ROLE: "worker",
        SYNC_ENABLED: "true",
        SYNC_MIRROR_DIR: join(dir, "empty-mirror"),
        SOURCE_EPSS_URL: snapshot("epss", "emba_epss_CVE_all_years_2026-08-16.csv.gz"),
      },
      { built: true },
    );
    try {
      await waitForHealthy(server.url);
      const importPid = await waitFor("the import process to take the lock", lockHolderPid);
      expect(importPid).not.toBe(server.child.pid);
      // The import yields the CPU to the server that serves pages beside it.
      expect(getPriority(importPid)).toBe(IMPORT_NICENESS);
      expect(new Set(threadPolicies(importPid))).toEqual(new Set([SCHED_IDLE]));

      server.child.kill("SIGKILL");
      await server.exited;
      await waitFor("the import process to end", () => !isAlive(importPid));
      // It rolled back, recorded no success, and released the lock on its way out.
      expect(lockHolderPid()).toBeNull();
      const db = new SQLite(database, { readonly: true });
      try {
        const epss = db.prepare("select last_success_at from sources where name = 'epss'").get() as { last_success_at: string | null } | undefined;
        expect(epss?.last_success_at ?? null).toBeNull();
        expect((db.prepare("select count(*) as n from epss_scores").get() as { n: number }).n).toBe(0);
      } finally {
        db.close();
      }
    } finally {
      // A failed expectation before the kill must not leave a server importing on its own (its scheduler is on).
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL");
    }
  });
});
