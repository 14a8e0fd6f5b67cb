import type { Kysely } from "kysely";
import { identityColumn } from "../dialect";

/**
 * IOC radar tables. `indicators` holds one row per canonical (type, value)
 * with the aggregates the 1M-row list sorts and filters on (seen_at, type,
 * threat type, malware family, source count); sightings keep every feed's
 * own statement. The unique index leads with `value` so lookups by value
 * (bulk lookup, detail page) use it without knowing the type.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const identity = identityColumn(db);
  await db.schema
    .createTable("indicators")
    .addColumn("id", identity.type, identity.build)
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("first_seen", "text")
    .addColumn("last_seen", "text")
    .addColumn("seen_at", "text", (c) => c.notNull())
    .addColumn("threat_type", "text")
    .addColumn("malware_family", "text")
    .addColumn("confidence", "integer")
    .addColumn("tags", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("sources", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("source_count", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("indicators_value_type_idx").on("indicators").columns(["value", "type"]).unique().execute();
  await db.schema.createIndex("indicators_seen_idx").on("indicators").columns(["seen_at desc", "id"]).execute();
  for (const column of ["type", "threat_type", "malware_family"]) {
    await db.schema
      .createIndex(`indicators_${column}_idx`)
      .on("indicators")
      .columns([column, "seen_at desc"])
      .execute();
  }

  await db.schema
    .createTable("indicator_sightings")
    .addColumn("indicator_id", "bigint", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    // 0 when the feed gave no port: a key column cannot be NULL.
    .addColumn("port", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("raw_value", "text", (c) => c.notNull())
    .addColumn("first_seen", "text")
    .addColumn("last_seen", "text")
    .addColumn("threat_type", "text")
    .addColumn("malware_family", "text")
    .addColumn("tags", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("confidence", "integer")
    .addColumn("reporter", "text")
    .addColumn("reference", "text")
    .addColumn("imported_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("indicator_sightings_pk", ["indicator_id", "source", "port"])
    .execute();
  await db.schema
    .createIndex("indicator_sightings_source_idx")
    .on("indicator_sightings")
    .columns(["source", "indicator_id"])
    .execute();

  await db.schema
    .createTable("indicator_tags")
    .addColumn("tag", "text", (c) => c.notNull())
    .addColumn("indicator_id", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("indicator_tags_pk", ["tag", "indicator_id"])
    .execute();

  await db.schema
    .createTable("indicator_cves")
    .addColumn("cve_id", "text", (c) => c.notNull())
    .addColumn("indicator_id", "bigint", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("indicator_cves_pk", ["cve_id", "indicator_id", "source"])
    .execute();
  await db.schema.createIndex("indicator_cves_indicator_idx").on("indicator_cves").column("indicator_id").execute();

  await db.schema
    .createTable("warninglists")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("description", "text")
    .addColumn("version", "text")
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("matching_attributes", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("entry_count", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable("warninglist_entries")
    .addColumn("list_name", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("warninglist_entries_pk", ["list_name", "value"])
    .execute();
  await db.schema.createIndex("warninglist_entries_value_idx").on("warninglist_entries").column("value").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    "warninglist_entries",
    "warninglists",
    "indicator_cves",
    "indicator_tags",
    "indicator_sightings",
    "indicators",
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
