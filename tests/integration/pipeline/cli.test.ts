import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteDatabase } from "../../../server/db/connection";
import { snapshotDir } from "../../helpers/feed-server";

/** `npm run sync` and `npm run migrate`, run as the operator runs them: child processes. */
const projectRoot = resolve(import.meta.dirname, "../../..");
let dir: string;

/** The inherited environment without anything that configures the server or the pipeline. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(DATABASE_PATH|LOG_LEVEL|NVD_API_KEY|SYNC_|SOURCE_)/.test(name)) env[name] = value;
  }
  return { ...env, ...extra };
}

function cli(script: "sync" | "migrate", args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, ["--import", "tsx", `server/cli/${script}.ts`, ...args], {
    cwd: projectRoot,
    env: cleanEnv(env),
    encoding: "utf8",
    timeout: 120_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The rows of the console.table the sync CLI ends with, as objects keyed by its header. */
function table(stdout: string): Array<Record<string, string>> {
  const lines = stdout.split("\n").filter((line) => line.startsWith("│"));
  const cells = (line: string) =>
    line
      .split("│")
      .slice(1, -1)
      .map((cell) => cell.trim().replace(/^'(.*)'$/, "$1"));
  const [header, ...rows] = lines.map(cells);
  return rows.map((row) => Object.fromEntries(header!.map((name, i) => [name, row[i] ?? ""])));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "threat-radar-cli-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("npm run migrate", () => {
  it("applies every migration to a fresh file, then finds nothing to do", async () => {
    const path = join(dir, "migrate.sqlite");
    const first = cli("migrate", [], { DATABASE_PATH: path });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: applied \\S+`));
    const applied = first.stdout
      .trim()
      .replace(/^.*: applied /, "")
      .split(", ");

    const handle = openSqliteDatabase(path);
    try {
      const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(handle.db);
      expect(rows.rows.map((r) => r.name)).toEqual(applied);
      const tables = await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(handle.db);
      expect(tables.rows.map((r) => r.name)).toEqual(expect.arrayContaining(["cves", "indicators", "sources", "source_files"]));
    } finally {
      await handle.close();
    }

    const again = cli("migrate", ["--db", path]);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout.trim()).toBe(`${path}: already up to date`);
  });

  it("stops with a message naming a bad DATABASE_PATH or LOG_LEVEL", () => {
    const empty = cli("migrate", [], { DATABASE_PATH: "" });
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/Invalid configuration:\n\s+DATABASE_PATH: /);
    const level = cli("migrate", ["--db", join(dir, "never.sqlite")], { LOG_LEVEL: "loud" });
    expect(level.status).toBe(2);
    expect(level.stderr).toMatch(/LOG_LEVEL: /);
  });
});

describe("npm run sync", () => {
  const path = () => join(dir, "sync.sqlite");

  it("imports KEV from a mirror and ends with the counts and the time", () => {
    const run = cli("sync", ["--mirror", snapshotDir, "--source", "cisa-kev"], { DATABASE_PATH: path() });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Database: ${path()}`);
    const rows = table(run.stdout);
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0]!)).toEqual(expect.arrayContaining(["source", "status", "added", "updated", "unchanged", "rejected", "seconds"]));
    expect(rows[0]).toMatchObject({ source: "cisa-kev", status: "ok", added: "1404", updated: "0", unchanged: "0", rejected: "0" });
    expect(Number(rows[0]!.seconds)).toBeGreaterThan(0);
  });

  it("a second run skips the unchanged file and adds nothing", () => {
    const run = cli("sync", ["--mirror", snapshotDir, "--source", "cisa-kev", "--db", path()], { LOG_LEVEL: "silent" });
    expect(run.status, run.stderr).toBe(0);
    expect(table(run.stdout)).toEqual([
      expect.objectContaining({ source: "cisa-kev", status: "not-modified", added: "0", updated: "0", unchanged: "0", rejected: "0" }),
    ]);
  });

  it("refuses an unknown source, listing the known ones", () => {
    const run = cli("sync", ["--source", "nope", "--db", join(dir, "never.sqlite")]);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^Unknown source\(s\): nope$/m);
    expect(run.stderr).toContain("cisa-kev, epss");
    expect(run.stdout).toBe("");
  });

  it("stops with a message naming a bad LOG_LEVEL, DATABASE_PATH or pipeline variable", () => {
    const level = cli("sync", ["--source", "cisa-kev"], { LOG_LEVEL: "verbose", DATABASE_PATH: join(dir, "never.sqlite") });
    expect(level.status).toBe(2);
    expect(level.stderr).toMatch(/Invalid configuration:\n\s+LOG_LEVEL: /);
    const empty = cli("sync", ["--source", "cisa-kev"], { DATABASE_PATH: "" });
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/DATABASE_PATH: /);
    const interval = cli("sync", ["--source", "cisa-kev"], { SYNC_INTERVAL_EPSS_MINUTES: "0", DATABASE_PATH: join(dir, "never.sqlite") });
    expect(interval.status).toBe(2);
    expect(interval.stderr).toMatch(/SYNC_INTERVAL_EPSS_MINUTES: must be at least 1 minute/);
  });
});
