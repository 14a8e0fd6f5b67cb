import { openSqliteDatabase } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import { startCli } from "./start";

const USAGE = `Usage: npm run migrate -- [--db PATH]

Applies pending migrations to the SQLite database.
  --db PATH  SQLite file (default: $DATABASE_PATH or ./data/threat-radar.sqlite)`;

/** `npm run migrate [-- --db PATH]`: applies pending migrations to the SQLite database. */
const { values, env } = startCli(USAGE, { db: { type: "string" } });

const path = values.db ?? env.DATABASE_PATH;
const handle = openSqliteDatabase(path);
try {
  const applied = await migrateToLatest(handle.db);
  console.log(applied.length > 0 ? `${path}: applied ${applied.join(", ")}` : `${path}: already up to date`);
} catch (error) {
  console.error(`${path}: migration failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await handle.close();
}
