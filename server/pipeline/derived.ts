import { sql, type Kysely } from "kysely";
import { computeCvePriority } from "../../shared/scoring/cve-priority";
import type { Database } from "../db/schema";
import { chunk } from "./importer";

/** Exploit rows that count as public exploit evidence (Trickest's plain references do not). */
export const EXPLOIT_KINDS = ["poc-repository", "exploit-reference"] as const;

/** Preference among equal best CVSS scores: the CNA's own rating first. */
const SOURCE_RANK = sql`case source when 'cna' then 0 when 'cisa-adp' then 1 when 'nvd' then 2 else 3 end`;

function daysBefore(isoDate: string, days: number): string {
  const date = new Date(`${isoDate}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - days);
  return date.toISOString().slice(0, 10);
}

/**
 * Copies the evidence the list page filters on into `cves` (best CVSS,
 * current and week-old EPSS, KEV, exploit count) for the given ids or all
 * rows. Plain correlated subqueries, so PostgreSQL runs the same statement.
 */
async function refreshEvidenceColumns(trx: Kysely<Database>, ids: string[] | "all"): Promise<void> {
  const latest = await trx
    .selectFrom("epss_scores")
    .select(sql<string | null>`max(score_date)`.as("d"))
    .executeTakeFirst();
  const weekAgo = latest?.d ? daysBefore(latest.d, 7) : null;

  const update = trx.updateTable("cves").set((eb) => {
    const kev = () => eb.selectFrom("kev_entries as k").whereRef("k.cve_id", "=", "cves.id");
    const epss = () =>
      eb
        .selectFrom("epss_scores as e")
        .whereRef("e.cve_id", "=", "cves.id")
        .orderBy("e.score_date", "desc")
        .limit(1);
    const best = () =>
      eb
        .selectFrom("cve_cvss as m")
        .whereRef("m.cve_id", "=", "cves.id")
        .orderBy("m.score", "desc")
        .orderBy("m.version", "desc")
        .orderBy(SOURCE_RANK)
        .limit(1);
    return {
      kev: eb.case().when(eb.exists(kev().select(sql.lit(1).as("one")))).then(1).else(0).end(),
      kev_date_added: kev().select("k.date_added"),
      kev_due_date: kev().select("k.due_date"),
      kev_ransomware: eb
        .case()
        .when(
          eb.exists(
            kev()
              .where(sql`lower(k.known_ransomware_use)`, "=", "known")
              .select(sql.lit(1).as("one")),
          ),
        )
        .then(1)
        .else(0)
        .end(),
      epss: epss().select("e.epss"),
      epss_percentile: epss().select("e.percentile"),
      epss_date: epss().select("e.score_date"),
      epss_7d_ago: weekAgo
        ? eb
            .selectFrom("epss_scores as w")
            .whereRef("w.cve_id", "=", "cves.id")
            .where("w.score_date", "<=", weekAgo)
            .orderBy("w.score_date", "desc")
            .limit(1)
            .select("w.epss")
        : sql<number | null>`null`,
      exploit_count: eb
        .selectFrom("cve_exploits as x")
        .whereRef("x.cve_id", "=", "cves.id")
        .where("x.kind", "in", EXPLOIT_KINDS)
        .select(sql<number>`count(distinct x.url)`.as("n")),
      cvss_score: best().select("m.score"),
      cvss_severity: best().select("m.severity"),
      cvss_version: best().select("m.version"),
      cvss_source: best().select("m.source"),
    };
  });
  if (ids === "all") {
    await update.execute();
    return;
  }
  for (const part of chunk(ids, 500)) await update.where("id", "in", part).execute();
}

/** Recomputes `priority_score` from the evidence columns and writes the rows whose score moved. */
async function refreshPriorities(trx: Kysely<Database>, ids: string[] | "all", now: Date): Promise<number> {
  const base = trx
    .selectFrom("cves")
    .select([
      "id",
      "state",
      "kev",
      "kev_date_added",
      "kev_ransomware",
      "epss",
      "epss_percentile",
      "epss_date",
      "exploit_count",
      "cvss_score",
      "cvss_version",
      "cvss_source",
      "date_published",
      "priority_score",
    ]);
  const parts = ids === "all" ? [null] : chunk(ids, 500);
  let changed = 0;
  for (const part of parts) {
    const rows = await (part ? base.where("id", "in", part) : base).execute();
    for (const row of rows) {
      const { score } = computeCvePriority(
        {
          state: row.state,
          kev: row.kev ? { dateAdded: row.kev_date_added, knownRansomwareUse: row.kev_ransomware === 1 } : null,
          epss: row.epss === null ? null : { score: row.epss, percentile: row.epss_percentile, date: row.epss_date },
          exploitCount: row.exploit_count,
          cvss:
            row.cvss_score === null
              ? null
              : { score: row.cvss_score, version: row.cvss_version, source: row.cvss_source },
          published: row.date_published,
        },
        now,
      );
      if (score === row.priority_score) continue;
      changed += 1;
      await trx.updateTable("cves").set({ priority_score: score }).where("id", "=", row.id).execute();
    }
  }
  return changed;
}

/**
 * Brings the denormalised evidence and the Radar priority of the given CVEs
 * (or all) up to date. Every import that changes evidence calls it inside its
 * transaction, so the list never shows a half-updated ranking.
 */
export async function refreshCveDerived(trx: Kysely<Database>, ids: string[] | "all", now: Date): Promise<number> {
  if (ids !== "all" && ids.length === 0) return 0;
  await refreshEvidenceColumns(trx, ids);
  return refreshPriorities(trx, ids, now);
}
