import { parseArgs } from "node:util";
import { openSqliteDatabase } from "../db/connection";
import { migrateToLatest } from "../db/migrate";

/** `npm run migrate [-- --db PATH]`: applies pending migrations to the SQLite database. */
const { values } = parseArgs({ options: { db: { type: "string" } } });
const path = values.db ?? process.env.DATABASE_PATH ?? "./data/threat-radar.sqlite";
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
