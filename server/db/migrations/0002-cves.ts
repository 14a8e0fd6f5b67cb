import { sql, type Kysely } from "kysely";
import { identityColumn, isSqlite } from "../dialect";
import { createCveSearchIndex, dropCveSearchIndex } from "../sqlite-specific";

/**
 * CVE radar tables. `cves` carries denormalised copies of the evidence the
 * list page sorts and filters on (best CVSS, current EPSS, KEV, exploit count,
 * priority) so that a 300k-row list is answered from one table and its
 * indexes; the detail tables keep everything as published.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const identity = identityColumn(db);
  await db.schema
    .createTable("cves")
    .addColumn("seq", identity.type, identity.build)
    .addColumn("id", "text", (c) => c.notNull().unique())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("title", "text")
    .addColumn("description", "text")
    .addColumn("descriptions", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("assigner_org_id", "text")
    .addColumn("assigner_short_name", "text")
    .addColumn("date_reserved", "text")
    .addColumn("date_published", "text")
    .addColumn("date_updated", "text")
    .addColumn("data_version", "text")
    .addColumn("record_source", "text", (c) => c.notNull())
    .addColumn("vendor", "text")
    .addColumn("product", "text")
    .addColumn("cvss_score", "double precision")
    .addColumn("cvss_severity", "text")
    .addColumn("cvss_version", "text")
    .addColumn("cvss_source", "text")
    .addColumn("epss", "double precision")
    .addColumn("epss_percentile", "double precision")
    .addColumn("epss_date", "text")
    .addColumn("epss_7d_ago", "double precision")
    .addColumn("kev", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("kev_date_added", "text")
    .addColumn("kev_due_date", "text")
    .addColumn("kev_ransomware", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("exploit_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("priority_score", "double precision", (c) => c.notNull().defaultTo(0))
    .execute();

  // Every sortable column gets "<column> desc, id": the list's default direction
  // with the id as the tie-breaker that keeps pagination stable.
  const sortIndexes: Array<[string, string]> = [
    ["cves_priority_idx", "priority_score"],
    ["cves_published_idx", "date_published"],
    ["cves_updated_idx", "date_updated"],
    ["cves_cvss_idx", "cvss_score"],
    ["cves_epss_idx", "epss"],
    ["cves_exploit_idx", "exploit_count"],
  ];
  for (const [name, column] of sortIndexes) {
    await db.schema.createIndex(name).on("cves").columns([`${column} desc`, "id"]).execute();
  }
  await db.schema
    .createIndex("cves_kev_idx")
    .on("cves")
    .columns(["kev_date_added desc", "id"])
    .where(sql.ref("kev"), "=", 1)
    .execute();
  await db.schema.createIndex("cves_severity_idx").on("cves").columns(["cvss_severity", "priority_score desc"]).execute();
  await db.schema.createIndex("cves_vendor_idx").on("cves").columns(["vendor", "product"]).execute();

  await db.schema
    .createTable("cve_cvss")
    .addColumn("cve_id", "text", (c) => c.notNull())
    .addColumn("origin", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("version", "text", (c) => c.notNull())
    .addColumn("score", "double precision", (c) => c.notNull())
    .addColumn("severity", "text", (c) => c.notNull())
    .addColumn("vector", "text")
    .addColumn("nvd_type", "text")
    .execute();
  await db.schema.createIndex("cve_cvss_cve_idx").on("cve_cvss").columns(["cve_id", "origin"]).execute();

  await db.schema
    .createTable("cve_affected")
    .addColumn("cve_id", "text", (c) => c.notNull())
    .addColumn("origin", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("vendor", "text")
    .addColumn("product", "text")
    .addColumn("default_status", "text")
    .addColumn("versions", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("cpes", "text", (c) => c.notNull().defaultTo("[]"))
    .execute();
  await db.schema.createIndex("cve_affected_cve_idx").on("cve_affected").columns(["cve_id", "origin"]).execute();
  await db.schema.createIndex("cve_affected_product_idx").on("cve_affected").columns(["vendor", "product", "cve_id"]).execute();

  await db.schema
    .createTable("cve_references")
    .addColumn("cve_id", "text", (c) => c.notNull())
    .addColumn("origin", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("name", "text")
    .addColumn("tags", "text", (c) => c.notNull().defaultTo("[]"))
    .execute();
  await db.schema.createIndex("cve_references_cve_idx").on("cve_references").columns(["cve_id", "origin"]).execute();

  await db.schema
    .createTable("cve_cwes")
    .addColumn("cve_id", "text", (c) => c.notNull())
    .addColumn("origin", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("cwe_id", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .execute();
  await db.schema.createIndex("cve_cwes_cve_idx").on("cve_cwes").columns(["cve_id", "origin"]).execute();
  await db.schema.createIndex("cve_cwes_cwe_idx").on("cve_cwes").columns(["cwe_id", "cve_id"]).execute();

  await db.schema
    .createTable("cve_ssvc")
    .addColumn("cve_id", "text", (c) => c.notNull())
    .addColumn("origin", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("exploitation", "text")
    .addColumn("automatable", "text")
    .addColumn("technical_impact", "text")
    .addColumn("version", "text")
    .addColumn("role", "text")
    .addColumn("timestamp", "text")
    .execute();
  await db.schema.createIndex("cve_ssvc_cve_idx").on("cve_ssvc").columns(["cve_id", "origin"]).execute();

  await db.schema
    .createTable("cve_exploits")
    .addColumn("cve_id", "text", (c) => c.notNull())
    .addColumn("origin", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("cve_exploits_pk", ["cve_id", "origin", "url"])
    .execute();

  await db.schema
    .createTable("cwes")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("abstraction", "text")
    .addColumn("status", "text")
    .execute();

  await db.schema
    .createTable("kev_entries")
    .addColumn("cve_id", "text", (c) => c.primaryKey())
    .addColumn("vendor_project", "text", (c) => c.notNull())
    .addColumn("product", "text", (c) => c.notNull())
    .addColumn("vulnerability_name", "text", (c) => c.notNull())
    .addColumn("date_added", "text", (c) => c.notNull())
    .addColumn("short_description", "text", (c) => c.notNull())
    .addColumn("required_action", "text", (c) => c.notNull())
    .addColumn("due_date", "text", (c) => c.notNull())
    .addColumn("known_ransomware_use", "text")
    .addColumn("notes", "text")
    .addColumn("cwes", "text", (c) => c.notNull().defaultTo("[]"))
    .execute();
  await db.schema.createIndex("kev_entries_added_idx").on("kev_entries").column("date_added").execute();

  await db.schema
    .createTable("epss_scores")
    .addColumn("cve_id", "text", (c) => c.notNull())
    .addColumn("score_date", "text", (c) => c.notNull())
    .addColumn("epss", "double precision", (c) => c.notNull())
    .addColumn("percentile", "double precision")
    .addColumn("model_version", "text")
    .addPrimaryKeyConstraint("epss_scores_pk", ["cve_id", "score_date"])
    .execute();
  await db.schema.createIndex("epss_scores_date_idx").on("epss_scores").column("score_date").execute();

  if (isSqlite(db)) await createCveSearchIndex(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isSqlite(db)) await dropCveSearchIndex(db);
  for (const table of [
    "epss_scores",
    "kev_entries",
    "cwes",
    "cve_exploits",
    "cve_ssvc",
    "cve_cwes",
    "cve_references",
    "cve_affected",
    "cve_cvss",
    "cves",
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
