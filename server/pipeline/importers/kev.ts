import type { KevEntry } from "../../../shared/types/cve";
import { classifyByHash, removeUnseen, type Importer } from "../importer";

/**
 * CISA KEV: the catalogue is published whole, so an entry missing from a
 * clean import has been withdrawn and is deleted.
 */
export function kevImporter(): Importer<KevEntry> {
  const seen = new Set<string>();
  return {
    batchSize: 500,
    async writeBatch(trx, entries, ctx) {
      for (const entry of entries) {
        seen.add(entry.cveId);
        ctx.noteRecordDate(entry.dateAdded);
      }
      for (const { record: e, status } of await classifyByHash(trx, ctx, entries, (e) => e.cveId)) {
        if (status === "unchanged") continue;
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
        ctx.touched.add(e.cveId);
      }
    },
    async finish(trx, ctx) {
      const gone = await removeUnseen(trx, ctx, seen, async (keys) => {
        await trx.deleteFrom("kev_entries").where("cve_id", "in", keys).execute();
      });
      for (const id of gone) ctx.touched.add(id);
    },
  };
}
