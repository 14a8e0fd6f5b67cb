import { sql, type RawBuilder } from "kysely";
import type { EpssScore } from "../../feeds/cve/records";
import { refreshEpssDerived, TOUCHED_CVES } from "../derived";
import type { Importer } from "../engine/importer";

const staged = sql.table("staging.scores");
const day = sql.table("staging.scores_by_day");
const changed = sql.table("staging.changed_scores");
const touched = sql.table("staging.touched_cves");

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
        columns: [
          ["cve_id", "text"],
          ["score_date", "text"],
          ["epss", "real"],
          ["percentile", "real"],
          ["model_version", "text"],
        ],
      },
      TOUCHED_CVES,
    ],
    stage: (s, out) => out.row("scores", [s.cveId, s.scoreDate, s.epss, s.percentile, s.modelVersion]),
    async merge(ctx) {
      const { db } = ctx.store;
      const scratch = sql.raw(ctx.store.dialect.scratchTable);
      const count = async (query: RawBuilder<{ n: number | string }>) => Number((await query.execute(db)).rows[0]?.n ?? 0);
      // One row per CVE and day (a file states each once; a repeated line keeps its highest values).
      await sql`drop table if exists ${day}`.execute(db);
      await sql`
        create ${scratch} ${day} as
        select cve_id, score_date, max(epss) as epss, max(percentile) as percentile, max(model_version) as model_version
        from ${staged} group by cve_id, score_date`.execute(db);
      await sql`drop table if exists ${changed}`.execute(db);
      await sql`
        create ${scratch} ${changed} as
        select d.*, case when e.cve_id is null then 1 else 0 end as is_new
        from ${day} d left join epss_scores e on e.cve_id = d.cve_id and e.score_date = d.score_date
        where e.cve_id is null or e.epss is distinct from d.epss or e.percentile is distinct from d.percentile
          or e.model_version is distinct from d.model_version`.execute(db);
      const distinct = await count(sql<{ n: number }>`select count(*) as n from ${day}`);
      ctx.counts.added = await count(sql<{ n: number }>`select count(*) as n from ${changed} where is_new = 1`);
      ctx.counts.updated = await count(sql<{ n: number }>`select count(*) as n from ${changed} where is_new = 0`);
      ctx.counts.unchanged = distinct - ctx.counts.added - ctx.counts.updated;
      await ctx.commit(async (trx) => {
        if (ctx.counts.added + ctx.counts.updated === 0) return;
        await sql`
          insert into epss_scores (cve_id, score_date, epss, percentile, model_version)
          select cve_id, score_date, epss, percentile, model_version from ${changed} where true order by cve_id, score_date
          on conflict (cve_id, score_date) do update set epss = excluded.epss, percentile = excluded.percentile, model_version = excluded.model_version`.execute(
          trx,
        );
        await sql`insert into ${touched} (id) select distinct cve_id from ${changed} where true`.execute(trx);
        await refreshEpssDerived(trx, ctx.now);
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
