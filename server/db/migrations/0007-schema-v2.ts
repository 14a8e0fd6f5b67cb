import { sql, type Kysely } from "kysely";
import { dialectOf } from "../dialect";
import { createIocIndexes, createIocTables } from "../ioc-tables";

/** Tables of migrations 0001–0006, all rebuilt here. */
const LEGACY_TABLES = [
  "sources",
  "source_files",
  "source_records",
  "cves",
  "cve_cvss",
  "cve_affected",
  "cve_references",
  "cve_cwes",
  "cve_ssvc",
  "cve_exploits",
  "cwes",
  "kev_entries",
  "epss_scores",
  "indicators",
  "indicator_sightings",
  "indicator_tags",
  "indicator_cves",
  "warninglists",
  "warninglist_entries",
];

/**
 * Schema 2 (release 0.2.0): every data table is rebuilt, so the first start
 * after the upgrade imports every feed again (README, "Upgrading").
 *
 * - CVEs known to any source are rows of `cves` (`has_record` 0 until a CVE
 *   record arrives); CVSS metrics carry the score computed from their vector.
 * - Indicators keep the publishers' times apart from this instance's
 *   (`listed_since`, `delisted_at`), one sighting per reporter, family, port,
 *   reference and tag set, and relation keys (`host`, `domain`) instead of
 *   text searches. Tags and references are dictionary-encoded; maltrail's
 *   family aliases belong to the family (`family_aliases`), not to each trail.
 * - Import bookkeeping: file hashes, retry schedule, error causes, a lock.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const dialect = dialectOf(db);
  const compact = sql.raw(dialect.compactTableSuffix);
  const text = sql.raw(dialect.textType);
  const integer = sql.raw(dialect.integerType);
  if (dialect.name === "sqlite") {
    for (const name of ["cves_fts", "indicators_fts"]) {
      for (const trigger of ["insert", "delete", "update"]) await sql.raw(`drop trigger if exists ${name}_${trigger}`).execute(db);
      await sql.raw(`drop table if exists ${name}`).execute(db);
    }
  }
  for (const table of LEGACY_TABLES) await sql`drop table if exists ${sql.table(table)}`.execute(db);

  await sql`
    create table sources (
      name ${text} primary key,
      status ${text} not null default 'never-run',
      last_run_at ${text},
      last_success_at ${text},
      last_error ${text},
      last_error_detail ${text},
      last_error_at ${text},
      consecutive_failures ${integer} not null default 0,
      next_attempt_at ${text},
      runs ${integer} not null default 0,
      failures ${integer} not null default 0,
      location_key ${text},
      complete_list ${integer} not null default 0,
      added ${integer} not null default 0,
      updated ${integer} not null default 0,
      unchanged ${integer} not null default 0,
      rejected ${integer} not null default 0,
      removed ${integer} not null default 0,
      duration_ms ${integer},
      record_count ${integer},
      records_read ${integer},
      cursor ${text},
      newest_record_at ${text}
    )`.execute(db);
  await sql`
    create table source_files (
      source ${text} not null,
      location ${text} not null,
      etag ${text},
      last_modified ${text},
      content_hash ${text},
      primary key (source, location)
    )`.execute(db);
  await sql`
    create table source_records (
      source ${text} not null,
      record_key ${text} not null,
      hash ${text} not null,
      primary key (source, record_key)
    ) ${compact}`.execute(db);
  await sql`
    create table import_lock (
      id ${integer} primary key check (id = 1),
      holder ${text} not null,
      source ${text},
      started_at ${text} not null,
      heartbeat_at ${text} not null
    )`.execute(db);

  await createCveTables(db);

  const identity = sql.raw(dialect.identityColumn);
  await sql`create table tags (id ${identity}, name ${text} not null unique)`.execute(db);
  await sql`create table sighting_references (id ${identity}, url ${text} not null unique)`.execute(db);
  await sql`
    create table family_aliases (
      alias ${text} not null,
      family_key ${text} not null,
      source ${text} not null,
      primary key (alias, family_key, source)
    ) ${compact}`.execute(db);
  await createIocTables(db, "", "");
  await createIocIndexes(db, "", "");

  await sql`
    create table warninglists (
      name ${text} primary key,
      title ${text},
      description ${text},
      version ${text},
      type ${text} not null,
      matching_attributes ${text} not null default '[]',
      entry_count ${integer} not null default 0
    )`.execute(db);
  await sql`
    create table warninglist_entries (
      list_name ${text} not null,
      value ${text} not null,
      primary key (list_name, value)
    ) ${compact}`.execute(db);
}

async function createCveTables(db: Kysely<any>): Promise<void> {
  const dialect = dialectOf(db);
  const compact = sql.raw(dialect.compactTableSuffix);
  const text = sql.raw(dialect.textType);
  const integer = sql.raw(dialect.integerType);
  const { sortColumn } = dialect;
  await sql`
    create table cves (
      seq ${sql.raw(dialect.identityColumn)},
      id ${text} not null unique,
      state ${text} not null,
      has_record ${integer} not null default 0,
      record_source ${text},
      title ${text},
      description ${text},
      descriptions ${text} not null default '[]',
      assigner_org_id ${text},
      assigner_short_name ${text},
      date_reserved ${text},
      date_published ${text},
      date_updated ${text},
      data_version ${text},
      vendor ${text},
      product ${text},
      cvss_score double precision,
      cvss_severity ${text},
      cvss_version ${text},
      cvss_source ${text},
      epss double precision,
      epss_percentile double precision,
      epss_date ${text},
      epss_7d_ago double precision,
      kev ${integer} not null default 0,
      kev_date_added ${text},
      kev_due_date ${text},
      kev_ransomware ${integer} not null default 0,
      exploit_count ${integer} not null default 0,
      priority_score double precision not null default 0
    )`.execute(db);
  const sortIndexes: Array<[string, string]> = [
    ["cves_priority_idx", "priority_score"],
    ["cves_published_idx", "date_published"],
    ["cves_updated_idx", "date_updated"],
    ["cves_cvss_idx", "cvss_score"],
    ["cves_epss_idx", "epss"],
    ["cves_exploit_idx", "exploit_count"],
  ];
  for (const [name, column] of sortIndexes) await sql.raw(`create index ${name} on cves (${sortColumn(column, "desc")}, id)`).execute(db);
  await sql.raw(`create index cves_kev_idx on cves (${sortColumn("kev_date_added", "desc")}, id) where kev = 1`).execute(db);
  await sql.raw(`create index cves_kev_due_idx on cves (${sortColumn("kev_due_date", "desc")}, id) where kev = 1`).execute(db);
  await sql.raw(`create index cves_severity_idx on cves (cvss_severity, ${sortColumn("priority_score", "desc")})`).execute(db);
  await sql`create index cves_state_severity_idx on cves (state, cvss_severity)`.execute(db);
  await sql`create index cves_state_vendor_idx on cves (state, vendor)`.execute(db);
  await sql`create index cves_kev_facets_idx on cves (state, cvss_severity, vendor) where kev = 1`.execute(db);

  await sql`
    create table cve_cvss (
      cve_id ${text} not null,
      origin ${text} not null,
      source ${text} not null,
      version ${text} not null,
      score double precision not null,
      severity ${text} not null,
      computed_score double precision,
      computed_severity ${text},
      vector ${text},
      nvd_type ${text}
    )`.execute(db);
  await sql`create index cve_cvss_cve_idx on cve_cvss (cve_id, origin)`.execute(db);
  await sql`
    create table cve_affected (
      cve_id ${text} not null,
      origin ${text} not null,
      source ${text} not null,
      vendor ${text},
      product ${text},
      default_status ${text},
      versions ${text} not null default '[]',
      cpes ${text} not null default '[]'
    )`.execute(db);
  await sql`create index cve_affected_cve_idx on cve_affected (cve_id, origin)`.execute(db);
  await sql`create index cve_affected_lower_vendor_idx on cve_affected (lower(vendor), lower(product), cve_id)`.execute(db);
  await sql`
    create table cve_references (
      cve_id ${text} not null,
      origin ${text} not null,
      source ${text} not null,
      url ${text} not null,
      name ${text},
      tags ${text} not null default '[]'
    )`.execute(db);
  await sql`create index cve_references_cve_idx on cve_references (cve_id, origin)`.execute(db);
  await sql`
    create table cve_cwes (
      cve_id ${text} not null,
      origin ${text} not null,
      source ${text} not null,
      cwe_id ${text} not null,
      description ${text}
    )`.execute(db);
  await sql`create index cve_cwes_cve_idx on cve_cwes (cve_id, origin)`.execute(db);
  await sql`create index cve_cwes_cwe_idx on cve_cwes (cwe_id, cve_id)`.execute(db);
  await sql`
    create table cve_ssvc (
      cve_id ${text} not null,
      origin ${text} not null,
      source ${text} not null,
      exploitation ${text},
      automatable ${text},
      technical_impact ${text},
      version ${text},
      role ${text},
      timestamp ${text}
    )`.execute(db);
  await sql`create index cve_ssvc_cve_idx on cve_ssvc (cve_id, origin)`.execute(db);
  await sql`
    create table cve_exploits (
      cve_id ${text} not null,
      origin ${text} not null,
      url ${text} not null,
      kind ${text} not null,
      primary key (cve_id, origin, url)
    ) ${compact}`.execute(db);
  await sql`create table cwes (id ${text} primary key, name ${text} not null, kind ${text} not null, abstraction ${text}, status ${text})`.execute(db);
  await sql`
    create table kev_entries (
      cve_id ${text} primary key,
      vendor_project ${text} not null,
      product ${text} not null,
      vulnerability_name ${text} not null,
      date_added ${text} not null,
      short_description ${text} not null,
      required_action ${text} not null,
      due_date ${text} not null,
      known_ransomware_use ${text},
      notes ${text},
      cwes ${text} not null default '[]'
    )`.execute(db);
  await sql`create index kev_entries_added_idx on kev_entries (date_added)`.execute(db);
  await sql`
    create table epss_scores (
      cve_id ${text} not null,
      score_date ${text} not null,
      epss double precision not null,
      percentile double precision,
      model_version ${text},
      primary key (cve_id, score_date)
    ) ${compact}`.execute(db);
  await sql`create index epss_scores_date_idx on epss_scores (score_date)`.execute(db);
  await dialect.createCveSearchIndex(db);
}

export async function down(): Promise<void> {
  throw new Error("schema 2 cannot be taken back: restore the backup taken before the upgrade");
}
