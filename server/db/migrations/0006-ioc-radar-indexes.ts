import { sql, type Kysely } from "kysely";
import { isSqlite } from "../dialect";
import { createIndicatorSearchIndex, dropIndicatorSearchIndex } from "../sqlite-specific";

/**
 * What the IOC list needs at a million indicators: an index per sort key
 * (with the id that breaks ties), the case-insensitive malware family the
 * filter compares, and a substring index for free text.
 */
const SORT_INDEXES = {
  indicators_first_seen_idx: ["first_seen", "id"],
  indicators_confidence_idx: ["confidence", "id"],
  indicators_source_count_idx: ["source_count", "id"],
  indicators_type_id_idx: ["type", "id"],
} as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, columns] of Object.entries(SORT_INDEXES)) {
    await db.schema.createIndex(name).on("indicators").columns([...columns]).execute();
  }
  await sql`create index indicators_malware_lower_idx on indicators (lower(malware_family), seen_at desc)`.execute(db);
  if (isSqlite(db)) await createIndicatorSearchIndex(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isSqlite(db)) await dropIndicatorSearchIndex(db);
  await db.schema.dropIndex("indicators_malware_lower_idx").execute();
  for (const name of Object.keys(SORT_INDEXES)) await db.schema.dropIndex(name).execute();
}
