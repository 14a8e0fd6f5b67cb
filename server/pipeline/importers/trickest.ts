import { sql } from "kysely";
import type { TrickestRecord } from "../../../shared/types/cve";
import { displayName } from "../../cve/display-name";
import { refreshCveDerived, TOUCHED_CVES } from "../derived";
import { chunk, type Importer } from "../engine/importer";
import { changedRecords, classifyRecords, RECORDS_TABLE, saveRecordHashes, stageRecord } from "../engine/keyed-records";
import { countHashes } from "./cve-records";
import { insertRows } from "./rows";

const ORIGIN = "trickest-poc";

/**
 * Trickest's per-CVE PoC lists: GitHub repositories and references become
 * exploit rows, the product / version / CWE badges affected and CWE rows of
 * their own origin. A CVE no other source knows gets its row here.
 */
export function trickestImporter(): Importer<TrickestRecord> {
  return {
    staging: [RECORDS_TABLE, TOUCHED_CVES],
    stage: (record, out) => stageRecord(out, record.cveId, record),
    async merge(ctx) {
      await classifyRecords(ctx.store.db, ctx);
      await ctx.commit(async (trx) => {
        for await (const records of changedRecords<TrickestRecord>(trx)) {
          for (const ids of chunk(records.map((r) => r.cveId), 500)) {
            for (const table of ["cve_exploits", "cve_affected", "cve_cwes"] as const) {
              await trx.deleteFrom(table).where("cve_id", "in", ids).where("origin", "=", ORIGIN).execute();
            }
          }
          await insertRows(
            trx,
            "cve_exploits",
            records.flatMap((r) => [...new Map(r.exploits.map((x) => [x.url, x])).values()].map((x) => ({ cve_id: r.cveId, origin: ORIGIN, url: x.url, kind: x.kind }))),
          );
          await insertRows(
            trx,
            "cve_affected",
            records.flatMap((r) =>
              r.products.flatMap((name) => {
                const product = displayName(name);
                // Trickest lists versions per CVE, not per product: they are attached to every product, status unknown.
                return product === null
                  ? []
                  : [{ cve_id: r.cveId, origin: ORIGIN, source: "trickest", vendor: null, product, default_status: null, versions: JSON.stringify(r.versions.map((version) => ({ version, status: "unknown" }))), cpes: "[]" }];
              }),
            ),
          );
          await insertRows(
            trx,
            "cve_cwes",
            records.flatMap((r) => r.weaknesses.map((w) => ({ cve_id: r.cveId, origin: ORIGIN, source: w.source, cwe_id: w.cweId, description: w.description }))),
          );
          await sql`insert into ${sql.table("staging.touched_cves")} (id) values ${sql.join(records.map((r) => sql`(${r.cveId})`))}`.execute(trx);
        }
        await saveRecordHashes(trx, ctx.source);
        await refreshCveDerived(trx, "touched", ctx.now);
      });
    },
    countRecords: countHashes,
  };
}
