import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { snapshotDir } from "../../helpers/feed-server";
import { serverDatabases, type ServerDatabase } from "../../helpers/test-database";

/** `npm run sync` and `npm run migrate`, run as the operator runs them: child processes. */
const projectRoot = resolve(import.meta.dirname, "../../..");
let dir: string;
let databases: ReturnType<typeof serverDatabases>;

/** The inherited environment without anything that configures the server or the pipeline. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(DATABASE_|LOG_LEVEL|NVD_API_KEY|SYNC_|SOURCE_)/.test(name)) env[name] = value;
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

/** How the database is named to the CLI the second time: a SQLite file by --db, PostgreSQL by DATABASE_URL (--db names only a file). */
function named(database: ServerDatabase): { args: string[]; env: Record<string, string> } {
  const path = database.env.DATABASE_PATH;
  return path ? { args: ["--db", path], env: {} } : { args: [], env: database.env };
}

/** The name the CLIs print for the database: the file, or the URL. */
const nameOf = (database: ServerDatabase) => database.env.DATABASE_PATH ?? database.env.DATABASE_URL!;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "threat-radar-cli-"));
  databases = serverDatabases(dir);
});

afterAll(async () => {
  await databases.dropAll();
  await rm(dir, { recursive: true, force: true });
});

describe("npm run migrate", () => {
  it("applies every migration to a fresh database, then finds nothing to do", async () => {
    const database = await databases.create("migrate.sqlite");
    const name = nameOf(database);
    const first = cli("migrate", [], database.env);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: applied \\S+`));
    const applied = first.stdout
      .trim()
      .replace(/^.*: applied /, "")
      .split(", ");

    const handle = database.open();
    try {
      const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(handle.db);
      expect(rows.rows.map((r) => r.name)).toEqual(applied);
      const tables = await handle.db.introspection.getTables();
      expect(tables.map((table) => table.name)).toEqual(expect.arrayContaining(["cves", "indicators", "sources", "source_files"]));
    } finally {
      await handle.close();
    }

    const again = cli("migrate", named(database).args, named(database).env);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout.trim()).toBe(`${name}: already up to date`);
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
  let database: ServerDatabase;
  beforeAll(async () => {
    database = await databases.create("sync.sqlite");
  });

  it("imports KEV from a mirror and ends with the counts and the time", () => {
    const run = cli("sync", ["--mirror", snapshotDir, "--source", "cisa-kev"], database.env);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Database: ${nameOf(database)}`);
    const rows = table(run.stdout);
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0]!)).toEqual(expect.arrayContaining(["source", "status", "added", "updated", "unchanged", "rejected", "seconds"]));
    expect(rows[0]).toMatchObject({ source: "cisa-kev", status: "ok", added: "1404", updated: "0", unchanged: "0", rejected: "0" });
    expect(Number(rows[0]!.seconds)).toBeGreaterThan(0);
  });

  it("a second run skips the unchanged file and adds nothing", () => {
    const { args, env } = named(database);
    const run = cli("sync", ["--mirror", snapshotDir, "--source", "cisa-kev", ...args], { ...env, LOG_LEVEL: "silent" });
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
