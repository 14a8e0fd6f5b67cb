import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("sources")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("last_run_at", "text")
    .addColumn("last_success_at", "text")
    .addColumn("last_error", "text")
    .addColumn("last_error_at", "text")
    .addColumn("status", "text", (c) => c.notNull().defaultTo("never-run"))
    .addColumn("added", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("updated", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("unchanged", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("rejected", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("removed", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("duration_ms", "integer")
    .addColumn("record_count", "integer")
    .addColumn("cursor", "text")
    .addColumn("newest_record_at", "text")
    .execute();

  await db.schema
    .createTable("source_files")
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("location", "text", (c) => c.notNull())
    .addColumn("etag", "text")
    .addColumn("last_modified", "text")
    .addPrimaryKeyConstraint("source_files_pk", ["source", "location"])
    .execute();

  await db.schema
    .createTable("source_records")
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("record_key", "text", (c) => c.notNull())
    .addColumn("hash", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("source_records_pk", ["source", "record_key"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("source_records").execute();
  await db.schema.dropTable("source_files").execute();
  await db.schema.dropTable("sources").execute();
}
