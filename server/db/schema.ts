import type { Generated } from "kysely";

/**
 * Kysely's view of the tables; the migrations in ./migrations create them.
 *
 * Conventions: dates are ISO-8601 text (they sort as text in SQLite and
 * PostgreSQL alike), flags are 0/1 integers, lists and nested values are JSON
 * text. Child tables carry `origin`, the feed that wrote the row, so each
 * importer replaces exactly its own rows; `source` is who asserted the data
 * (cna, cisa-adp, nvd…).
 */

export interface SourcesTable {
  name: string;
  /** never-run | ok | not-modified | failed */
  status: Generated<string>;
  last_run_at: string | null;
  last_success_at: string | null;
  /** The failure's whole cause chain, as one line. */
  last_error: string | null;
  /** JSON: { causes: string[], hint: string | null } of the last failure. */
  last_error_detail: string | null;
  last_error_at: string | null;
  /** Failures since the last success: the retry back-off doubles with each. */
  consecutive_failures: Generated<number>;
  /** When the scheduler tries this source next (after a failure: sooner than its interval). */
  next_attempt_at: string | null;
  runs: Generated<number>;
  failures: Generated<number>;
  /** Where the source was read from last: a change makes it due at once. */
  location_key: string | null;
  /** 1 for a feed that lists everything it knows each time: what it no longer lists was withdrawn. */
  complete_list: Generated<number>;
  /** Counts of the last successful run; a failed run leaves them alone. */
  added: Generated<number>;
  updated: Generated<number>;
  unchanged: Generated<number>;
  rejected: Generated<number>;
  removed: Generated<number>;
  duration_ms: number | null;
  /** Rows this source holds after its last successful run. */
  record_count: number | null;
  /** Records the parsers read in the last successful run: what progress counts towards. */
  records_read: number | null;
  /** Incremental position (cvelistV5 delta fetchTime, NVD lastModified, MISP feed progress). */
  cursor: string | null;
  newest_record_at: string | null;
  /** When the publisher last updated what it served, as its files say (null where they do not). */
  published_at: string | null;
}

/** HTTP validators per downloaded URL, for conditional requests. */
export interface SourceFilesTable {
  source: string;
  location: string;
  etag: string | null;
  last_modified: string | null;
  /** SHA-256 of the file as last imported: an identical file is not read again. */
  content_hash: string | null;
}

/** The running import (at most one row): who holds it, what it imports, since when. */
export interface ImportLockTable {
  id: number;
  holder: string;
  source: string | null;
  started_at: string;
  heartbeat_at: string;
}

/** Content hash of every record a source delivered: the basis of added / updated / unchanged. */
export interface SourceRecordsTable {
  source: string;
  record_key: string;
  hash: string;
}

export interface CvesTable {
  /** Stable integer key for the full-text index; never shown. */
  seq: Generated<number>;
  id: string;
  state: string;
  /** 1 once a CVE record (CVE JSON 5 or NVD) is stored; 0 for an id only KEV, EPSS or exploit lists know. */
  has_record: Generated<number>;
  title: string | null;
  /** English description (or rejection reason) used for search and the list page. */
  description: string | null;
  /** JSON: Array<{ lang, value }> */
  descriptions: string;
  assigner_org_id: string | null;
  assigner_short_name: string | null;
  date_reserved: string | null;
  date_published: string | null;
  date_updated: string | null;
  data_version: string | null;
  /** Feed of the record: cve-json5 wins over nvd; null without a record. */
  record_source: string | null;
  vendor: string | null;
  product: string | null;
  cvss_score: number | null;
  cvss_severity: string | null;
  cvss_version: string | null;
  cvss_source: string | null;
  epss: number | null;
  epss_percentile: number | null;
  epss_date: string | null;
  epss_7d_ago: number | null;
  kev: Generated<number>;
  kev_date_added: string | null;
  kev_due_date: string | null;
  kev_ransomware: Generated<number>;
  exploit_count: Generated<number>;
  priority_score: Generated<number>;
}

export interface CveCvssTable {
  cve_id: string;
  origin: string;
  source: string;
  version: string;
  /** As published. */
  score: number;
  severity: string;
  /** Computed from the vector (null without a vector the calculator reads). */
  computed_score: number | null;
  computed_severity: string | null;
  vector: string | null;
  nvd_type: string | null;
}

export interface CveAffectedTable {
  cve_id: string;
  origin: string;
  source: string;
  vendor: string | null;
  product: string | null;
  default_status: string | null;
  /** JSON: AffectedVersion[]; `[]` where the list is the record's (cve_version_lists) */
  versions: string;
  /** JSON: string[] */
  cpes: string;
}

/** A version list that belongs to a whole record (Trickest's), stored once instead of on each product row. */
export interface CveVersionListsTable {
  cve_id: string;
  origin: string;
  /** JSON: AffectedVersion[] */
  versions: string;
}

export interface CveReferencesTable {
  cve_id: string;
  origin: string;
  source: string;
  url: string;
  name: string | null;
  /** JSON: string[] */
  tags: string;
}

export interface CveCwesTable {
  cve_id: string;
  origin: string;
  source: string;
  cwe_id: string;
  description: string | null;
  /** The CVE's `cves.priority_score`, kept by the derived-columns refresh (migration 0015). */
  priority: Generated<number>;
}

export interface CveSsvcTable {
  cve_id: string;
  origin: string;
  source: string;
  exploitation: string | null;
  automatable: string | null;
  technical_impact: string | null;
  version: string | null;
  role: string | null;
  timestamp: string | null;
}

export interface CveExploitsTable {
  cve_id: string;
  origin: string;
  url: string;
  /** poc-repository | exploit-reference | reference */
  kind: string;
}

export interface CwesTable {
  id: string;
  name: string;
  kind: string;
  abstraction: string | null;
  status: string | null;
}

export interface KevEntriesTable {
  cve_id: string;
  vendor_project: string;
  product: string;
  vulnerability_name: string;
  date_added: string;
  short_description: string;
  required_action: string;
  due_date: string;
  known_ransomware_use: string | null;
  notes: string | null;
  /** JSON: string[] */
  cwes: string;
}

export interface EpssScoresTable {
  cve_id: string;
  score_date: string;
  epss: number;
  percentile: number | null;
  model_version: string | null;
}

/** CVEs counted by state, KEV, exploited, severity, vendor and publication day (server/cve/stats-table.ts). */
export interface CveStatsTable {
  state: string;
  kev: number;
  /** 1 when the CVE has a public exploit (exploit_count > 0). */
  exploited: number;
  /** The list's severity, 'NONE' when unscored. */
  severity: string;
  vendor: string | null;
  /** The publication day, YYYY-MM-DD; '' for undated CVEs. */
  day: string;
  count: number;
}

/** Indicators counted by type, threat type, family and last-seen day (server/ioc/stats-table.ts). */
export interface IndicatorStatsTable {
  type: string;
  /** '' when no sighting names one (migration 0022). */
  threat_type: string;
  /** '' when no sighting names one (migration 0022). */
  malware_family: string;
  /** The publishers' last-seen day, YYYY-MM-DD; '' for undated listings. */
  day: string;
  count: number;
}

/** `indicator_stats` per source: an indicator counts once under each source with a sighting of it, delisted or not (migration 0016). */
export interface IndicatorSourceStatsTable extends IndicatorStatsTable {
  source: string;
}

export interface IndicatorsTable {
  id: Generated<number>;
  type: string;
  /** Canonical value (shared/ioc normalisation). */
  value: string;
  /** Host of a URL, e-mail address or ip:port (server/db/ioc-tables.ts). */
  host: string | null;
  /** Registrable domain of a domain or URL, when it differs from the value. */
  domain: string | null;
  /** Earliest first-seen time any feed published; null when no feed dated it. */
  first_seen: string | null;
  /** Latest last-seen time any feed published: the lists' "newest first". */
  last_seen: string | null;
  /** When this instance first imported it. */
  listed_since: string;
  threat_type: string | null;
  malware_family: string | null;
  confidence: number | null;
  source_count: Generated<number>;
}

export interface IndicatorSightingsTable {
  indicator_id: number;
  source: string;
  /** Hash of what makes this statement distinct within the feed: port, reporter, family, reference, tags. */
  variant: number;
  port: number | null;
  /** The value as the feed wrote it, when it differs from the canonical one. */
  raw_value: string | null;
  /** The publisher's times; null when the feed dates nothing. */
  first_seen: string | null;
  last_seen: string | null;
  /** This instance's: first imported, and when a complete list stopped listing it. */
  listed_since: string;
  delisted_at: string | null;
  threat_type: string | null;
  malware_family: string | null;
  /** JSON: string[]; null when none. */
  tags: string | null;
  confidence: number | null;
  reporter: string | null;
  reference_id: number | null;
}

export interface IndicatorTagsTable {
  tag_id: number;
  indicator_id: number;
}

export interface TagsTable {
  id: Generated<number>;
  name: string;
}

export interface SightingReferencesTable {
  id: Generated<number>;
  url: string;
}

/** Other names of a malware family (maltrail's "# Aliases:"), matched by the malware and tag filters. */
export interface FamilyAliasesTable {
  alias: string;
  /** lower(malware_family) */
  family_key: string;
  source: string;
}

export interface IndicatorCvesTable {
  cve_id: string;
  indicator_id: number;
  source: string;
}

export interface WarninglistsTable {
  /** The list's folder in misp-warninglists, a stable id ("public-dns-v4"). */
  name: string;
  /** The list's own name ("List of known IPv4 public DNS resolvers"). */
  title: string | null;
  description: string | null;
  version: string | null;
  /** cidr | string | hostname | substring | regex */
  type: string;
  /** JSON: string[] */
  matching_attributes: string;
  entry_count: number;
}

export interface WarninglistEntriesTable {
  list_name: string;
  value: string;
}

/** The warninglist matcher packed by the warninglists' last import (at most one row; server/ioc/warninglist-snapshot.ts). */
export interface WarninglistMatcherTable {
  /** The packing's format: a row of another format is ignored and the matcher built from the entries. */
  format: number;
  data: Uint8Array;
}

export interface Database {
  sources: SourcesTable;
  source_files: SourceFilesTable;
  import_lock: ImportLockTable;
  source_records: SourceRecordsTable;
  cves: CvesTable;
  cve_cvss: CveCvssTable;
  cve_affected: CveAffectedTable;
  cve_version_lists: CveVersionListsTable;
  cve_references: CveReferencesTable;
  cve_cwes: CveCwesTable;
  cve_ssvc: CveSsvcTable;
  cve_exploits: CveExploitsTable;
  cwes: CwesTable;
  kev_entries: KevEntriesTable;
  epss_scores: EpssScoresTable;
  indicators: IndicatorsTable;
  indicator_stats: IndicatorStatsTable;
  indicator_source_stats: IndicatorSourceStatsTable;
  cve_stats: CveStatsTable;
  indicator_sightings: IndicatorSightingsTable;
  indicator_tags: IndicatorTagsTable;
  indicator_cves: IndicatorCvesTable;
  tags: TagsTable;
  sighting_references: SightingReferencesTable;
  family_aliases: FamilyAliasesTable;
  warninglists: WarninglistsTable;
  warninglist_entries: WarninglistEntriesTable;
  warninglist_matcher: WarninglistMatcherTable;
}

export type { Generated };
