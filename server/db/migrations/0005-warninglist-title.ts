import type { Kysely } from "kysely";

/**
 * A warninglist's own human-readable name ("List of known IPv4 public DNS
 * resolvers"); `name` stays the folder id ("public-dns-v4").
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("warninglists").addColumn("title", "text").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("warninglists").dropColumn("title").execute();
}
