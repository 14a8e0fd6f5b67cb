import { sql, type Kysely } from "kysely";
import type { CveDetailData } from "../../shared/cve/detail-types";
import { computeCvePriority } from "./priority";
import type { Database } from "../db/schema";
import { EXPLOIT_KINDS } from "./evidence";

function parseJson<T>(text: string | null, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/**
 * Log4Shell alone has over 2,000 PoC repositories; a page lists this many and
 * states the total.
 */
const MAX_EXPLOITS = 100;

/** A CVE page lists at most this many indicators; the IOC radar's filter has the rest. */
const MAX_INDICATORS = 200;

const SOURCE_RANK: Record<string, number> = { cna: 0, "cisa-adp": 1, nvd: 2 };
const sourceRank = (source: string) => SOURCE_RANK[source] ?? 3;

/**
 * By day: feeds mix timestamps (CVE records) and plain dates (KEV), so
 * "2024-04-12" must not sort before "2024-04-12T07:20Z". Events of the same
 * day keep the record's life order (the sort is stable).
 */
const byDay = (a: { date: string }, b: { date: string }) => a.date.slice(0, 10).localeCompare(b.date.slice(0, 10));

/**
 * Everything the feeds say about one CVE, or null when no feed mentions it.
 * A CVE without a CVE record (e.g. in KEV and EPSS only) is still returned,
 * with `missing` saying what is absent.
 */
export async function queryCveDetail(db: Kysely<Database>, id: string, now: Date): Promise<CveDetailData | null> {
  const [row, cvss, epss, kev, ssvc, cwes, affected, references, exploits, indicators] = await Promise.all([
    db.selectFrom("cves").selectAll().where("id", "=", id).executeTakeFirst(),
    db.selectFrom("cve_cvss").selectAll().where("cve_id", "=", id).orderBy("version", "desc").orderBy("score", "desc").execute(),
    db.selectFrom("epss_scores").selectAll().where("cve_id", "=", id).orderBy("score_date").execute(),
    db.selectFrom("kev_entries").selectAll().where("cve_id", "=", id).executeTakeFirst(),
    db.selectFrom("cve_ssvc").selectAll().where("cve_id", "=", id).execute(),
    db
      .selectFrom("cve_cwes")
      .leftJoin("cwes", "cwes.id", "cve_cwes.cwe_id")
      .select(["cve_cwes.cwe_id", "cve_cwes.source", "cve_cwes.description", "cwes.name"])
      .where("cve_cwes.cve_id", "=", id)
      // Since migration 0015 every import updates these rows (their copy of the priority), which on
      // PostgreSQL moves them in the table: the order they were inserted in is not kept there.
      .orderBy("cve_cwes.origin")
      .orderBy("cve_cwes.source")
      .orderBy("cve_cwes.cwe_id")
      .orderBy(sql`coalesce(cve_cwes.description, '')`)
      .execute(),
    // The child tables keep no position: an explicit order makes both databases list them alike.
    // A record-wide version list (Trickest's) is stored once and shown with each of the record's products.
    db
      .selectFrom("cve_affected as a")
      .leftJoin("cve_version_lists as l", (join) => join.onRef("l.cve_id", "=", "a.cve_id").onRef("l.origin", "=", "a.origin"))
      .select(["a.origin", "a.source", "a.vendor", "a.product", "a.default_status", "a.cpes"])
      .select(sql<string>`coalesce(l.versions, a.versions)`.as("versions"))
      .where("a.cve_id", "=", id)
      .orderBy("a.origin")
      .orderBy("a.source")
      .orderBy(sql`coalesce(a.vendor, '')`)
      .orderBy(sql`coalesce(a.product, '')`)
      .orderBy(sql`coalesce(l.versions, a.versions)`)
      .orderBy("a.cpes")
      .execute(),
    db.selectFrom("cve_references").selectAll().where("cve_id", "=", id).orderBy("origin").orderBy("source").orderBy("url").orderBy("tags").execute(),
    db.selectFrom("cve_exploits").selectAll().where("cve_id", "=", id).orderBy("kind").orderBy("url").limit(MAX_EXPLOITS).execute(),
    db
      .selectFrom("indicator_cves")
      .innerJoin("indicators", "indicators.id", "indicator_cves.indicator_id")
      .select(["indicators.type", "indicators.value"])
      .distinct()
      .where("indicator_cves.cve_id", "=", id)
      .orderBy("indicators.type")
      .orderBy("indicators.value")
      .limit(MAX_INDICATORS)
      .execute(),
  ]);

  if (!row && !kev && epss.length === 0 && exploits.length === 0 && references.length === 0 && indicators.length === 0) return null;
  // A row exists for every CVE any source knows; a record only once CVE JSON 5 or NVD delivered one.
  const record = row?.has_record ? row : undefined;

  const latestEpss = epss.at(-1) ?? null;
  // The list's rule (server/pipeline/derived.ts): highest score (computed from the vector when it can be),
  // then newest version, then CNA, CISA-ADP, NVD.
  const effective = (m: (typeof cvss)[number]) => m.computed_score ?? m.score;
  const best = cvss[0]
    ? [...cvss].sort((a, b) => effective(b) - effective(a) || b.version.localeCompare(a.version) || sourceRank(a.source) - sourceRank(b.source))[0]!
    : null;
  const exploitCount = row
    ? row.exploit_count
    : Number(
        (
          await db
            .selectFrom("cve_exploits")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .where("cve_id", "=", id)
            .where("kind", "in", [...EXPLOIT_KINDS])
            .executeTakeFirstOrThrow()
        ).n,
      );
  const priority = computeCvePriority(
    {
      state: record?.state,
      kev: kev ? { dateAdded: kev.date_added, knownRansomwareUse: kev.known_ransomware_use?.toLowerCase() === "known" } : null,
      epss: latestEpss ? { score: latestEpss.epss, percentile: latestEpss.percentile, date: latestEpss.score_date } : null,
      exploitCount,
      cvss: best ? { score: effective(best), version: best.version, source: best.source } : null,
      published: record?.date_published ?? null,
    },
    now,
  );

  const seenCwes = new Set<string>();
  const timeline = [
    record?.date_reserved ? { event: "Reserved", date: record.date_reserved } : null,
    record?.date_published ? { event: "Published", date: record.date_published } : null,
    kev ? { event: "Added to CISA KEV", date: kev.date_added } : null,
    kev ? { event: "CISA KEV due date", date: kev.due_date } : null,
    record?.date_updated ? { event: "Last updated", date: record.date_updated } : null,
  ].filter((entry): entry is { event: string; date: string } => entry !== null);

  // Neither the PoC lists nor the references tagged as exploits carry a date,
  // so the first public exploit is on the timeline without one.
  const undatedEvents =
    exploitCount > 0
      ? [
          {
            event: "First public exploit",
            note: `date not published by the source (${exploitCount} public exploit / PoC reference${exploitCount === 1 ? "" : "s"}, none dated)`,
          },
        ]
      : [];

  const missing: string[] = [];
  if (!record) missing.push("No CVE record imported yet (CVE JSON 5 or NVD): description, CVSS, CWE and affected products are unknown here until it arrives.");
  if (epss.length === 0) missing.push("No EPSS score.");
  if (cvss.length === 0 && record) missing.push("No CVSS score from the CNA, CISA ADP or NVD.");

  return {
    id,
    record: record
      ? {
          state: record.state,
          title: record.title,
          descriptions: parseJson(record.descriptions, []),
          assigner: record.assigner_short_name,
          reserved: record.date_reserved,
          published: record.date_published,
          updated: record.date_updated,
          recordSource: record.record_source ?? "cve-json5",
        }
      : null,
    priority,
    cvss: cvss.map((m) => ({
      source: m.source,
      version: m.version,
      score: m.score,
      severity: m.severity,
      computedScore: m.computed_score,
      computedSeverity: m.computed_severity,
      vector: m.vector,
      nvdType: m.nvd_type,
    })),
    epss: {
      current: latestEpss
        ? { score: latestEpss.epss, percentile: latestEpss.percentile, date: latestEpss.score_date, modelVersion: latestEpss.model_version }
        : null,
      history: epss.map((e) => ({ date: e.score_date, score: e.epss, percentile: e.percentile })),
    },
    kev: kev
      ? {
          vendorProject: kev.vendor_project,
          product: kev.product,
          name: kev.vulnerability_name,
          dateAdded: kev.date_added,
          dueDate: kev.due_date,
          requiredAction: kev.required_action,
          shortDescription: kev.short_description,
          ransomware: kev.known_ransomware_use,
          notes: kev.notes,
        }
      : null,
    ssvc: ssvc.map((s) => ({
      source: s.source,
      exploitation: s.exploitation,
      automatable: s.automatable,
      technicalImpact: s.technical_impact,
      version: s.version,
      timestamp: s.timestamp,
    })),
    // KEV's CWEs stand in only where no record names one, and say they are KEV's.
    cwes: (cwes.some((c) => c.source !== "cisa-kev") ? cwes.filter((c) => c.source !== "cisa-kev") : cwes)
      .filter((c) => !seenCwes.has(c.cwe_id) && Boolean(seenCwes.add(c.cwe_id)))
      .map((c) => ({ id: c.cwe_id, name: c.name ?? c.description, source: c.source })),
    affected: affected.map((a) => ({
      source: a.source,
      vendor: a.vendor,
      product: a.product,
      defaultStatus: a.default_status,
      versions: parseJson(a.versions, []),
      cpes: parseJson(a.cpes, []),
    })),
    references: references.map((r) => ({ url: r.url, name: r.name, tags: parseJson<string[]>(r.tags, []), source: r.source })),
    exploits: exploits.map((e) => ({ url: e.url, kind: e.kind, origin: e.origin })),
    exploitCount,
    timeline: timeline.sort(byDay),
    undatedEvents,
    indicators,
    missing,
  };
}
