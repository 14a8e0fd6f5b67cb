import { sql } from "kysely";
import type { EpssScore } from "../../../shared/types/cve";
import { insertRows, type Importer } from "../importer";

/**
 * FIRST EPSS, one row per CVE and score date: a new day adds rows and the
 * history accumulates; re-importing a day compares values. No record hashes
 * are kept for this source (the rows are their own fingerprint).
 */
export function epssImporter(): Importer<EpssScore> {
  return {
    batchSize: 2_000,
    async writeBatch(trx, scores, ctx) {
      const byDate = new Map<string, Map<string, EpssScore>>();
      for (const score of scores) {
        ctx.noteRecordDate(score.scoreDate);
        const day = byDate.get(score.scoreDate) ?? new Map<string, EpssScore>();
        if (day.has(score.cveId)) ctx.counts.unchanged += 1;
        day.set(score.cveId, score);
        byDate.set(score.scoreDate, day);
      }
      for (const [scoreDate, day] of byDate) {
        const stored = await trx
          .selectFrom("epss_scores")
          .select(["cve_id", "epss", "percentile", "model_version"])
          .where("score_date", "=", scoreDate)
          .where("cve_id", "in", [...day.keys()])
          .execute();
        const known = new Map(stored.map((row) => [row.cve_id, row]));
        const fresh: EpssScore[] = [];
        for (const score of day.values()) {
          const row = known.get(score.cveId);
          if (!row) {
            fresh.push(score);
            ctx.counts.added += 1;
          } else if (
            row.epss === score.epss &&
            row.percentile === score.percentile &&
            row.model_version === score.modelVersion
          ) {
            ctx.counts.unchanged += 1;
          } else {
            ctx.counts.updated += 1;
            await trx
              .updateTable("epss_scores")
              .set({ epss: score.epss, percentile: score.percentile, model_version: score.modelVersion })
              .where("cve_id", "=", score.cveId)
              .where("score_date", "=", scoreDate)
              .execute();
          }
        }
        await insertRows(
          trx,
          "epss_scores",
          fresh.map((s) => ({
            cve_id: s.cveId,
            score_date: s.scoreDate,
            epss: s.epss,
            percentile: s.percentile,
            model_version: s.modelVersion,
          })),
        );
      }
    },
    async finish(_trx, ctx) {
      // A daily file moves almost every CVE's score: refreshing all rows at
      // once is cheaper than tracking hundreds of thousands of ids.
      if (ctx.counts.added + ctx.counts.updated > 0) ctx.touched.markAll();
    },
    async countRecords(trx) {
      const row = await trx
        .selectFrom("epss_scores")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("score_date", "=", (eb) => eb.selectFrom("epss_scores").select(sql<string>`max(score_date)`.as("d")))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}
