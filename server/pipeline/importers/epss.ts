import { sql } from "kysely";
import type { EpssScore } from "../../feeds/cve/records";
import { refreshCveDerived } from "../derived";
import type { Importer } from "../engine/importer";

const staged = sql.table("staging.scores");

/**
 * FIRST EPSS, one row per CVE and score date: a new day adds rows and the
 * history accumulates; re-importing a day rewrites only scores that differ.
 * Every CVE EPSS scores gets a row in `cves` (EPSS scores published CVEs
 * only), so a CVE known only to EPSS is listed and searchable.
 */
export function epssImporter(): Importer<EpssScore> {
  return {
    staging: [
      {
        name: "scores",
        columns: [["cve_id", "text"], ["score_date", "text"], ["epss", "real"], ["percentile", "real"], ["model_version", "text"]],
      },
    ],
    stage: (s, out) => out.row("scores", [s.cveId, s.scoreDate, s.epss, s.percentile, s.modelVersion]),
    async merge(ctx) {
      const { db } = ctx.store;
      const count = async (query: ReturnType<typeof sql<{ n: number }>>) => Number((await query.execute(db)).rows[0]?.n ?? 0);
      const distinct = await count(sql<{ n: number }>`select count(*) as n from (select distinct cve_id, score_date from ${staged}) d`);
      ctx.counts.added = await count(sql<{ n: number }>`
        select count(*) as n from (select distinct cve_id, score_date from ${staged}) d
        where not exists (select 1 from epss_scores e where e.cve_id = d.cve_id and e.score_date = d.score_date)`);
      ctx.counts.updated = await count(sql<{ n: number }>`
        select count(*) as n from (select cve_id, score_date, max(epss) as epss, max(percentile) as percentile, max(model_version) as model_version from ${staged} group by cve_id, score_date) d
        join epss_scores e on e.cve_id = d.cve_id and e.score_date = d.score_date
        where e.epss is distinct from d.epss or e.percentile is distinct from d.percentile or e.model_version is distinct from d.model_version`);
      ctx.counts.unchanged = distinct - ctx.counts.added - ctx.counts.updated;
      await ctx.commit(async (trx) => {
        await sql`
          insert into epss_scores (cve_id, score_date, epss, percentile, model_version)
          select cve_id, score_date, max(epss), max(percentile), max(model_version) from ${staged} where true group by cve_id, score_date
          on conflict (cve_id, score_date) do update set epss = excluded.epss, percentile = excluded.percentile, model_version = excluded.model_version
          where epss_scores.epss is distinct from excluded.epss or epss_scores.percentile is distinct from excluded.percentile
            or epss_scores.model_version is distinct from excluded.model_version`.execute(trx);
        await sql`insert into cves (id, state) select distinct cve_id, 'PUBLISHED' from ${staged} where true order by cve_id on conflict (id) do nothing`.execute(trx);
        // A daily file moves almost every CVE's score: one pass over every row beats tracking them.
        if (ctx.counts.added + ctx.counts.updated > 0) await refreshCveDerived(trx, "all", ctx.now);
      });
    },
    async countRecords(db) {
      const row = await db
        .selectFrom("epss_scores")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("score_date", "=", (eb) => eb.selectFrom("epss_scores").select(sql<string>`max(score_date)`.as("d")))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}
