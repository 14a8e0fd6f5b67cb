import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type SelectQueryBuilder, type SqlBool } from "kysely";
import type { CveListParams } from "../../shared/cve/list-params";
import type { Database } from "../db/schema";
import type { SqlDialect } from "../db/dialect";

type CveExpressions = ExpressionBuilder<Database, "cves">;

function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/**
 * Whether the filter narrows by related tables only (affected products, CWEs): walking a sort index
 * then probes those tables' indexes per step and reads only the matching rows (server/db/scan.ts).
 */
export function narrowsByRelatedRowsOnly(params: CveListParams): boolean {
  const related = Boolean(params.vendor || params.product || params.cwe);
  const ownColumns =
    Boolean(params.q || params.kev || params.exploit || params.published_from || params.published_to || params.updated_from || params.updated_to) ||
    (params.severity?.length ?? 0) > 0 ||
    [params.cvss_min, params.cvss_max, params.epss_min, params.epss_max].some((bound) => bound !== undefined);
  return related && !ownColumns;
}

/**
 * Whether a `cve_cwes` row (`cve_cwes` in the statement) puts its CVE under its CWE: KEV's CWEs stand
 * in only where no other source names one, as on the CVE page (server/cve/detail.ts).
 */
export function cweRowCounts(dialect: SqlDialect): RawBuilder<SqlBool> {
  return sql<SqlBool>`(cve_cwes.source <> ${KEV_SOURCE} or not exists (
    select 1 from cve_cwes as named where named.cve_id = cve_cwes.cve_id and named.source <> ${KEV_SOURCE}${sql.raw(dialect.probedSubqueryEnd)}))`;
}

const KEV_SOURCE = "cisa-kev";

/** The keys of the few CVEs outside the PUBLISHED state: two ranges of the state index, never a scan. */
export function otherStateKeys<K extends "seq" | "id">(eb: Pick<ExpressionBuilder<Database, never>, "selectFrom">, key: K) {
  return eb
    .selectFrom("cves as other_state")
    .select(`other_state.${key}` as `other_state.${K}`)
    .where((inner) => inner.or([inner("other_state.state", "<", "PUBLISHED"), inner("other_state.state", ">", "PUBLISHED")]));
}

/**
 * Whether a CWE alone (in the published or every state) filters the list: its page by priority is then
 * a range of `cve_cwes_priority_idx`, which carries each CVE's priority (migration 0015).
 */
export function filtersByCweOnly(params: CveListParams): boolean {
  const state = params.state ?? "published";
  return Boolean(params.cwe) && !params.vendor && !params.product && narrowsByRelatedRowsOnly(params) && (state === "published" || state === "all");
}

/**
 * The where-clause of a filtered CVE list, shared by the list, its count, the
 * chart statistics and the exports so they always describe the same set.
 * `walkAlong` names the sort column whose index a "walk" follows: the other
 * filters then may not use their own indexes.
 */
export function cveFilter(eb: CveExpressions, params: CveListParams, dialect: SqlDialect, walkAlong?: `cves.${string}`): Expression<SqlBool> {
  const conditions: Array<Expression<SqlBool>> = [];
  const state = params.state ?? "published";
  // Where the state's exclusion (below) goes into the related table's ids instead: see relatedIds.
  const excludeInRelated = state === "published" && !walkAlong && dialect.cveIndexKey === "id";
  /**
   * `cves.id in (ids)`, or the walk's per-row probe. PostgreSQL charges the
   * exclusion's hashed subplan again on each probe of the `cves` index, so
   * beside it a nested loop over a vendor's few ids looked dearer than
   * hashing them and reading all 361,254 CVEs: 150 ms against 4 ms, and over
   * 10 s when the machine was busy. Left out of the ids themselves, the
   * exclusion is costed once.
   */
  const relatedIds = (
    ids: SelectQueryBuilder<Database, "cves" | "cve_affected" | "cve_cwes", { cve_id: string }>,
    idColumn: "cve_affected.cve_id" | "cve_cwes.cve_id",
  ) =>
    walkAlong
      ? eb.exists(ids.whereRef(idColumn, "=", "cves.id"))
      : eb("cves.id", "in", excludeInRelated ? ids.where(idColumn, "not in", otherStateKeys(eb, "id")) : ids);
  const column = (name: `cves.${string}`) => (walkAlong && name !== walkAlong ? dialect.withoutIndex(name) : sql.ref(name));

  if (params.q) {
    const match = dialect.cveTextMatch(params.q, column("cves.seq"));
    if (match) conditions.push(match);
  }
  if (params.severity && params.severity.length > 0) {
    const severities = params.severity.map((severity) => severity.toUpperCase());
    const scored = eb(column("cves.cvss_severity"), "in", severities);
    conditions.push(severities.includes("NONE") ? eb.or([scored, eb(column("cves.cvss_severity"), "is", null)]) : scored);
  }
  if (params.cvss_min !== undefined) conditions.push(eb(column("cves.cvss_score"), ">=", params.cvss_min));
  if (params.cvss_max !== undefined) conditions.push(eb(column("cves.cvss_score"), "<=", params.cvss_max));
  if (params.epss_min !== undefined) conditions.push(eb(column("cves.epss"), ">=", params.epss_min));
  if (params.epss_max !== undefined) conditions.push(eb(column("cves.epss"), "<=", params.epss_max));
  if (params.kev) conditions.push(eb(column("cves.kev"), "=", 1));
  if (params.exploit) conditions.push(eb(column("cves.exploit_count"), ">", 0));
  if (params.vendor || params.product) {
    const affected = eb
      .selectFrom("cve_affected")
      .select("cve_affected.cve_id")
      .where((inner) =>
        inner.and([
          ...(params.vendor ? [inner(sql`lower(cve_affected.vendor)`, "=", params.vendor.toLowerCase())] : []),
          ...(params.product ? [inner(sql`lower(cve_affected.product)`, "=", params.product.toLowerCase())] : []),
        ]),
      );
    conditions.push(relatedIds(affected, "cve_affected.cve_id"));
  }
  if (params.cwe) {
    const weaknesses = eb.selectFrom("cve_cwes").select("cve_cwes.cve_id").where("cve_cwes.cwe_id", "=", params.cwe).where(cweRowCounts(dialect));
    conditions.push(relatedIds(weaknesses, "cve_cwes.cve_id"));
  }
  if (params.published_from) conditions.push(eb(column("cves.date_published"), ">=", params.published_from));
  if (params.published_to) conditions.push(eb(column("cves.date_published"), "<", nextDay(params.published_to)));
  if (params.updated_from) conditions.push(eb(column("cves.date_updated"), ">=", params.updated_from));
  if (params.updated_to) conditions.push(eb(column("cves.date_updated"), "<", nextDay(params.updated_to)));

  const excluded = excludeInRelated && Boolean(params.vendor || params.product || params.cwe);
  if (state === "published" && conditions.length > 0 && !excluded) {
    // Nearly every CVE is published (361,109 of 361,254 on the full import): beside another filter,
    // that state's indexes never narrow the search, yet SQLite's sampled statistics cannot see the
    // skew and chose them over a selective filter's index, then read (and sorted) every CVE. Testing
    // the state on the row instead made every step of a walk read its row (CWE-79, page 20: 11,000
    // rows for 25). So the few CVEs in another state are excluded by key, which every index holds.
    // On PostgreSQL that key is the id, which its sort indexes hold (SqlDialect.cveIndexKey).
    const key = dialect.cveIndexKey;
    conditions.push(eb(`cves.${key}`, "not in", otherStateKeys(eb, key)));
  } else if (state !== "all") {
    // Alone, the state's (state, severity) and (state, vendor) indexes cover counts and statistics.
    conditions.push(eb(column("cves.state"), "=", state.toUpperCase()));
  }
  return eb.and(conditions);
}
