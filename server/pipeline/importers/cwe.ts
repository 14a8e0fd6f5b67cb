import type { CweEntry } from "../../../shared/types/cve";
import { classifyByHash, removeUnseen, type Importer } from "../importer";

/** MITRE's CWE catalogue: names for the CWE ids CVE records cite. Published whole. */
export function cweImporter(): Importer<CweEntry> {
  const seen = new Set<string>();
  return {
    batchSize: 500,
    async writeBatch(trx, entries, ctx) {
      for (const entry of entries) seen.add(entry.id);
      for (const { record: e, status } of await classifyByHash(trx, ctx, entries, (e) => e.id)) {
        if (status === "unchanged") continue;
        const row = { name: e.name, kind: e.kind, abstraction: e.abstraction, status: e.status };
        await trx
          .insertInto("cwes")
          .values({ id: e.id, ...row })
          .onConflict((oc) => oc.column("id").doUpdateSet(row))
          .execute();
      }
    },
    async finish(trx, ctx) {
      await removeUnseen(trx, ctx, seen, async (keys) => {
        await trx.deleteFrom("cwes").where("id", "in", keys).execute();
      });
    },
  };
}
