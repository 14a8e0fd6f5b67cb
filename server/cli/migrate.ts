import { migrateToLatest } from "../db/migrate";
import { databaseTarget, describeTarget, openDatabase } from "../db/target";
import { startCli } from "./start";

const USAGE = `Usage: npm run migrate -- [--db PATH]

Applies pending migrations to the database: PostgreSQL when DATABASE_URL is set, else SQLite.
  --db PATH  SQLite file (default: $DATABASE_URL if set, else $DATABASE_PATH or ./data/threat-radar.sqlite)`;

/** `npm run migrate [-- --db PATH]`: applies pending migrations to the database. */
const { values, env } = startCli(USAGE, { db: { type: "string" } });

const target = values.db ? databaseTarget({ ...env, DATABASE_PATH: values.db, DATABASE_URL: undefined }) : databaseTarget(env);
const name = describeTarget(target);
const handle = openDatabase(target);
try {
  const applied = await migrateToLatest(handle.db);
  console.log(applied.length > 0 ? `${name}: applied ${applied.join(", ")}` : `${name}: already up to date`);
} catch (error) {
  console.error(`${name}: migration failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await handle.close();
}
