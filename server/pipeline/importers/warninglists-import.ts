import type { Kysely } from "kysely";
import type { Database } from "../../db/schema";
import type { Warninglist } from "../../feeds/warninglists/parse";
import { chunk, type Importer } from "../engine/importer";
import { changedRecords, classifyRecords, RECORDS_TABLE, saveRecordHashes, stageRecord, withdrawnKeys } from "../engine/keyed-records";
import { countHashes } from "./cve-records-import";
import { insertRows } from "./rows";
import { hasWarninglistSnapshot, saveWarninglistSnapshot } from "../../ioc/warninglists";

async function deleteLists(trx: Kysely<Database>, names: string[]): Promise<void> {
  await trx.deleteFrom("warninglist_entries").where("list_name", "in", names).execute();
  await trx.deleteFrom("warninglists").where("name", "in", names).execute();
}

/**
 * MISP warninglists: one `warninglists` row per list and its entries in
 * `warninglist_entries`. A list is one record: an unchanged list is left
 * alone, a changed one has its entries replaced, and a list the publisher
 * dropped is removed (unless some list could not be read). The matcher the
 * IOC pages use is packed again from what is then stored, in the same
 * transaction, so that a web process loads it instead of building it.
 */
export function warninglistImporter(): Importer<Warninglist> {
  return {
    staging: [RECORDS_TABLE],
    stage: (list, out) => stageRecord(out, list.name, list),
    async merge(ctx) {
      await classifyRecords(ctx.store.db, ctx);
      await ctx.commit(async (trx) => {
        for await (const lists of changedRecords<Warninglist>(trx, 8)) {
          await deleteLists(
            trx,
            lists.map((list) => list.name),
          );
          await insertRows(
            trx,
            "warninglists",
            lists.map((list) => ({
              name: list.name,
              title: list.title,
              description: list.description,
              version: String(list.version),
              type: list.type,
              matching_attributes: JSON.stringify(list.matchingAttributes),
              entry_count: list.entries.length,
            })),
          );
          await insertRows(
            trx,
            "warninglist_entries",
            lists.flatMap((list) => [...new Set(list.entries)].map((value) => ({ list_name: list.name, value }))),
          );
        }
        for (const names of chunk(await withdrawnKeys(trx, ctx), 500)) await deleteLists(trx, names);
        const { added, updated, removed } = ctx.counts;
        if (added + updated + removed > 0 || !(await hasWarninglistSnapshot(trx))) await saveWarninglistSnapshot(trx);
        await saveRecordHashes(trx, ctx.source);
      });
    },
    countRecords: countHashes,
  };
}
