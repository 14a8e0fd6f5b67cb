import { sql, type Kysely } from "kysely";

/**
 * The header search's suggestions (`GET /api/v1/suggest`) read prefix ranges
 * of indexes on lowercased names, and now from those indexes alone.
 *
 * - Products matched `lower(product) LIKE 'prefix%'`, which no index answers:
 *   every keystroke read the whole CVE table (the full snapshot import's
 *   361,254 CVEs): 11–14 ms warm, 85 ms on a first read, and over a second on
 *   a loaded CI machine. A new index holds the lowercased product, then the
 *   product itself: 0.01–0.03 ms.
 * - Vendors read a range of `cve_affected_lower_vendor_idx` (0007), but took
 *   each spelling from the table: "micros" read 30,574 rows, 12 ms warm and
 *   28 ms on a first read. The index now ends with the vendor's own spelling
 *   (at most 4 ms warm); the vendor filter reads its leading columns as
 *   before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index cves_lower_product_idx on cves (lower(product), product)`.execute(db);
  await sql`drop index cve_affected_lower_vendor_idx`.execute(db);
  await sql`create index cve_affected_lower_vendor_idx on cve_affected (lower(vendor), lower(product), cve_id, vendor)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists cves_lower_product_idx`.execute(db);
  await sql`drop index cve_affected_lower_vendor_idx`.execute(db);
  await sql`create index cve_affected_lower_vendor_idx on cve_affected (lower(vendor), lower(product), cve_id)`.execute(db);
}
