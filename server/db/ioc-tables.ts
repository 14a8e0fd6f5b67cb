import { sql, type Kysely } from "kysely";
import { dialectOf } from "./dialect";

/**
 * The IOC radar's tables, defined once for the migration and for a large
 * merge, which fills next-generation copies (`suffix` "_next") before it
 * switches them in (docs/decisions/0005-import-engine.md).
 *
 * - `indicators`: one row per canonical (type, value), with the aggregates
 *   the lists sort and filter on. `first_seen`/`last_seen` are the
 *   publishers' times only (null when no feed dated it); `listed_since` is
 *   when this instance first imported it. `host` and `domain` relate URLs,
 *   domains and addresses to each other: the host of a URL, e-mail address
 *   or ip:port (a domain's or an address's host is its value), and a
 *   domain's or URL's registrable domain when it differs from the value.
 * - `indicator_sightings`: what one feed said, one row per distinct
 *   reporter, family, port, reference and tag set (`variant`, a hash of
 *   them), with the feed's own times and this instance's (`listed_since`,
 *   and `delisted_at` when a complete list no longer lists it).
 */
export const IOC_TABLES = ["indicators", "indicator_sightings", "indicator_tags", "indicator_cves"] as const;

export async function createIocTables(db: Kysely<any>, suffix: string, indexSuffix: string): Promise<void> {
  const dialect = dialectOf(db);
  const compact = sql.raw(dialect.compactTableSuffix);
  const identity = sql.raw(dialect.identityColumn);
  const text = sql.raw(dialect.textType);
  const integer = sql.raw(dialect.integerType);
  await sql`
    create table ${sql.table(`indicators${suffix}`)} (
      id ${identity},
      type ${text} not null,
      value ${text} not null,
      host ${text},
      domain ${text},
      first_seen ${text},
      last_seen ${text},
      listed_since ${text} not null,
      threat_type ${text},
      malware_family ${text},
      confidence ${integer},
      source_count ${integer} not null default 0
    )`.execute(db);
  // The merge's conflict target: it exists from the start, the other indexes come after a bulk fill.
  await sql`create unique index ${sql.id(`indicators_value_idx${indexSuffix}`)} on ${sql.table(`indicators${suffix}`)} (value, type)`.execute(db);
  await sql`
    create table ${sql.table(`indicator_sightings${suffix}`)} (
      indicator_id ${integer} not null,
      source ${text} not null,
      variant ${integer} not null,
      port ${integer},
      raw_value ${text},
      first_seen ${text},
      last_seen ${text},
      listed_since ${text} not null,
      delisted_at ${text},
      threat_type ${text},
      malware_family ${text},
      tags ${text},
      confidence ${integer},
      reporter ${text},
      reference_id ${integer},
      primary key (indicator_id, source, variant)
    ) ${compact}`.execute(db);
  await sql`
    create table ${sql.table(`indicator_tags${suffix}`)} (
      tag_id ${integer} not null,
      indicator_id ${integer} not null,
      primary key (tag_id, indicator_id)
    ) ${compact}`.execute(db);
  await sql`
    create table ${sql.table(`indicator_cves${suffix}`)} (
      cve_id ${text} not null,
      indicator_id ${integer} not null,
      source ${text} not null,
      primary key (cve_id, indicator_id, source)
    ) ${compact}`.execute(db);
  await dialect.createValueSearchIndex(db, `indicators${suffix}`);
}

/**
 * The lists' indexes: each sort key with the id that breaks ties, each
 * filter with the default order ("newest first" by the publishers' times,
 * undated last), so a filtered page walks an index instead of sorting.
 */
export async function createIocIndexes(db: Kysely<any>, suffix: string, indexSuffix: string): Promise<void> {
  const { sortColumn } = dialectOf(db);
  const indicators = `indicators${suffix}`;
  const newest = `${sortColumn("last_seen", "desc")}, id`;
  const indexes: Array<[string, string, string, string?]> = [
    ["indicators_last_seen_idx", indicators, newest],
    ["indicators_first_seen_idx", indicators, `${sortColumn("first_seen", "desc")}, id`],
    ["indicators_listed_idx", indicators, `${sortColumn("listed_since", "desc")}, id`],
    ["indicators_confidence_idx", indicators, `${sortColumn("confidence", "desc")}, id`],
    ["indicators_sources_idx", indicators, `${sortColumn("source_count", "desc")}, id`],
    ["indicators_type_idx", indicators, `type, ${newest}`],
    ["indicators_malware_idx", indicators, `lower(malware_family), ${newest}`, "malware_family is not null"],
    ["indicators_threat_idx", indicators, `threat_type, ${newest}`, "threat_type is not null"],
    ["indicators_host_idx", indicators, `host, ${newest}`, "host is not null"],
    ["indicators_domain_idx", indicators, `domain, ${newest}`, "domain is not null"],
    ["indicator_sightings_source_idx", `indicator_sightings${suffix}`, "source, indicator_id"],
    ["indicator_cves_indicator_idx", `indicator_cves${suffix}`, "indicator_id"],
  ];
  for (const [name, table, columns, where] of indexes) {
    await sql.raw(`create index ${name}${indexSuffix} on ${table} (${columns})${where ? ` where ${where}` : ""}`).execute(db);
  }
}
