import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { resolve } from "node:path";
import SQLite from "better-sqlite3";
import { startCli } from "../server/cli/start";

const USAGE = `Usage: npm run backup -- FILE [--db PATH] [--force]

Writes a consistent copy of the SQLite database to FILE, also while the server runs and
imports, and checks the copy with PRAGMA integrity_check.
  --db PATH  SQLite file (default: $DATABASE_PATH or ./data/threat-radar.sqlite)
  --force    replace FILE if it exists

Restore: stop the server, copy FILE over the database file (removing any -wal and -shm files
beside it), start the server.`;

const { values, positionals, env, fail } = startCli(USAGE, { db: { type: "string" }, force: { type: "boolean" } }, { positionals: true });
const [target, ...extra] = positionals;
if (!target || extra.length > 0) fail("name one backup FILE");

const source = resolve(values.db ?? env.DATABASE_PATH);
const destination = resolve(target!);
if (!existsSync(source)) fail(`${source}: no such database`);
if (existsSync(destination) && !values.force) fail(`${destination} exists; pass --force to replace it`);

// SQLite's online backup API copies a consistent snapshot page by page, without blocking the
// server's readers or the import's writer for the whole copy. It goes to a temporary name first,
// so FILE is never a half-written or unchecked copy.
const partial = `${destination}.partial`;
rmSync(partial, { force: true });
const db = new SQLite(source, { readonly: true, fileMustExist: true });
try {
  await db.backup(partial);
} finally {
  db.close();
}
// The copy inherits the server's WAL mode, and opening it would leave -wal and -shm files beside the
// temporary name. In rollback-journal mode it is one self-contained file; the server sets WAL again
// when it opens a restored copy.
const copy = new SQLite(partial);
copy.pragma("journal_mode = delete");
const problems = (copy.pragma("integrity_check") as Array<{ integrity_check: string }>).map((row) => row.integrity_check);
copy.close();
if (problems.length !== 1 || problems[0] !== "ok") {
  rmSync(partial, { force: true });
  console.error(`backup failed the integrity check:\n${problems.slice(0, 20).join("\n")}`);
  process.exit(1);
}
renameSync(partial, destination);
console.log(`${destination}: ${statSync(destination).size} bytes, integrity_check ok`);
