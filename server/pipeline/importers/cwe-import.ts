import type { CweEntry } from "../../feeds/cve/records";
import { chunk, type Importer } from "../engine/importer";
import { changedRecords, classifyRecords, RECORDS_TABLE, saveRecordHashes, stageRecord, withdrawnKeys } from "../engine/keyed-records";
import { countHashes } from "./cve-records-import";

/** MITRE's CWE catalogue: names for the CWE ids CVE records cite. Published whole. */
export function cweImporter(): Importer<CweEntry> {
  return {
    staging: [RECORDS_TABLE],
    stage: (entry, out) => stageRecord(out, entry.id, entry),
    async merge(ctx) {
      await classifyRecords(ctx.store.db, ctx);
      await ctx.commit(async (trx) => {
        for await (const entries of changedRecords<CweEntry>(trx)) {
          for (const e of entries) {
            const row = { name: e.name, kind: e.kind, abstraction: e.abstraction, status: e.status };
            await trx
              .insertInto("cwes")
              .values({ id: e.id, ...row })
              .onConflict((oc) => oc.column("id").doUpdateSet(row))
              .execute();
          }
        }
        for (const ids of chunk(await withdrawnKeys(trx, ctx), 500)) await trx.deleteFrom("cwes").where("id", "in", ids).execute();
        await saveRecordHashes(trx, ctx.source);
      });
    },
    countRecords: countHashes,
  };
}
