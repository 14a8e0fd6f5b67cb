import { sql } from "kysely";
import type { KevEntry } from "../../feeds/cve/records";
import { refreshEvidenceDerived, TOUCHED_CVES } from "../derived";
import { chunk, type Importer } from "../engine/importer";
import { changedRecords, classifyRecords, RECORDS_TABLE, saveRecordHashes, stageRecord, withdrawnKeys } from "../engine/keyed-records";
import { countHashes } from "./cve-records-import";

const ORIGIN = "cisa-kev";

/**
 * CISA KEV: the catalogue is published whole, so an entry missing from a
 * clean import has been withdrawn and is deleted. KEV's CWEs are stored as
 * CWE rows of their own origin, used where the CVE record names none.
 */
export function kevImporter(): Importer<KevEntry> {
  return {
    staging: [RECORDS_TABLE, TOUCHED_CVES],
    stage: (entry, out) => stageRecord(out, entry.cveId, entry),
    async merge(ctx) {
      await classifyRecords(ctx.store.db, ctx);
      await ctx.commit(async (trx) => {
        const touch = (ids: string[]) =>
          ids.length === 0
            ? Promise.resolve()
            : sql`insert into ${sql.table("staging.touched_cves")} (id) values ${sql.join(ids.map((id) => sql`(${id})`))}`.execute(trx);
        for await (const entries of changedRecords<KevEntry>(trx)) {
          for (const e of entries) {
            const row = {
              vendor_project: e.vendorProject,
              product: e.product,
              vulnerability_name: e.vulnerabilityName,
              date_added: e.dateAdded,
              short_description: e.shortDescription,
              required_action: e.requiredAction,
              due_date: e.dueDate,
              known_ransomware_use: e.knownRansomwareCampaignUse,
              notes: e.notes,
              cwes: JSON.stringify(e.cwes),
            };
            await trx
              .insertInto("kev_entries")
              .values({ cve_id: e.cveId, ...row })
              .onConflict((oc) => oc.column("cve_id").doUpdateSet(row))
              .execute();
          }
          const ids = entries.map((e) => e.cveId);
          await trx.deleteFrom("cve_cwes").where("cve_id", "in", ids).where("origin", "=", ORIGIN).execute();
          const cwes = entries.flatMap((e) =>
            [...new Set(e.cwes)].map((cwe) => ({ cve_id: e.cveId, origin: ORIGIN, source: "cisa-kev", cwe_id: cwe, description: null })),
          );
          if (cwes.length > 0) await trx.insertInto("cve_cwes").values(cwes).execute();
          await touch(ids);
        }
        const gone = await withdrawnKeys(trx, ctx);
        for (const ids of chunk(gone, 500)) {
          await trx.deleteFrom("kev_entries").where("cve_id", "in", ids).execute();
          await trx.deleteFrom("cve_cwes").where("cve_id", "in", ids).where("origin", "=", ORIGIN).execute();
          await touch(ids);
        }
        await saveRecordHashes(trx, ctx.source);
        await refreshEvidenceDerived(trx, ctx.now, ["kev"]);
      });
    },
    countRecords: countHashes,
  };
}
