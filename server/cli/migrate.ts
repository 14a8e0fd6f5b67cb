import { parseArgs } from "node:util";
import { openSqliteDatabase } from "../db/connection";
import { migrateToLatest } from "../db/migrate";
import { ConfigError, loadCliEnv } from "./env";

const USAGE = `Usage: npm run migrate -- [--db PATH]

Applies pending migrations to the SQLite database.
  --db PATH  SQLite file (default: $DATABASE_PATH or ./data/threat-radar.sqlite)`;

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

/** `npm run migrate [-- --db PATH]`: applies pending migrations to the SQLite database. */
const { values } = (() => {
  try {
    return parseArgs({ options: { db: { type: "string" }, help: { type: "boolean", short: "h" } } });
  } catch (error) {
    return fail((error as Error).message);
  }
})();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const env = (() => {
  try {
    return loadCliEnv(process.env);
  } catch (error) {
    return fail(error instanceof ConfigError ? error.message : String(error));
  }
})();

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
