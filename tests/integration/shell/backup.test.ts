import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import SQLite from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { openSqliteDatabase } from "../../../server/db/connection";
import { migrateToLatest } from "../../../server/db/migrate";
import { PROJECT_ROOT } from "../../helpers/paths";

const dir = mkdtempSync(join(tmpdir(), "threat-radar-backup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function backup(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/backup.ts", ...args], {
    cwd: PROJECT_ROOT,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, output })));
}

describe("npm run backup", () => {
  it("copies the database while a connection holds uncheckpointed writes in the WAL, and checks the copy", async () => {
    const path = join(dir, "live.sqlite");
    const live = openSqliteDatabase(path);
    await migrateToLatest(live.db);
    await live.db.insertInto("sources").values({ name: "cisa-kev", status: "ok", record_count: 1404 }).execute();
    try {
      const target = join(dir, "copy.sqlite");
      const run = await backup([target], { DATABASE_PATH: path });
      expect(run.code, run.output).toBe(0);
      expect(run.output).toContain("integrity_check ok");
      const copy = new SQLite(target, { readonly: true });
      expect(copy.prepare("select record_count from sources where name = 'cisa-kev'").get()).toEqual({ record_count: 1404 });
      copy.close();

      // An existing file is kept unless --force says otherwise.
      const again = await backup([target, "--db", path]);
      expect(again.code).toBe(2);
      expect(again.output).toContain("pass --force");
      expect((await backup([target, "--db", path, "--force"])).code).toBe(0);
      // One self-contained file: nothing left beside it or beside its temporary name.
      for (const leftover of [".partial", ".partial-wal", ".partial-shm", "-wal", "-shm"]) expect(existsSync(`${target}${leftover}`), leftover).toBe(false);
    } finally {
      await live.close();
    }
  });

  it("refuses to run without a FILE, naming the usage", async () => {
    const run = await backup([], { DATABASE_PATH: join(dir, "none.sqlite") });
    expect(run.code).toBe(2);
    expect(run.output).toContain("Usage: npm run backup -- FILE");
  });
});
