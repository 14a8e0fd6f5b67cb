import type { Kysely } from "kysely";
import type { Database } from "../../db/schema";
import type { Warninglist } from "../../feeds/warninglists/parse";
import { chunk, classifyByHash, insertRows, removeUnseen, type Importer } from "../importer";

async function deleteLists(trx: Kysely<Database>, names: string[]): Promise<void> {
  await trx.deleteFrom("warninglist_entries").where("list_name", "in", names).execute();
  await trx.deleteFrom("warninglists").where("name", "in", names).execute();
}

/**
 * Stores MISP warninglists: one `warninglists` row per list and its entries
 * in `warninglist_entries`. A list is one record: an unchanged list is left
 * alone, a changed one has its entries replaced, and a list the publisher
 * dropped is removed (unless some list could not be read).
 */
export function warninglistImporter(): Importer<Warninglist> {
  const seen = new Set<string>();
  return {
    batchSize: 8,
    async writeBatch(trx, lists, ctx) {
      for (const list of lists) seen.add(list.name);
      const classified = await classifyByHash(trx, ctx, lists, (list) => list.name);
      const changed = classified.filter((c) => c.status !== "unchanged").map((c) => c.record);
      for (const names of chunk(changed.map((list) => list.name), 500)) await deleteLists(trx, names);
      await insertRows(
        trx,
        "warninglists",
        changed.map((list) => ({
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
        changed.flatMap((list) => [...new Set(list.entries)].map((value) => ({ list_name: list.name, value }))),
      );
    },
    async finish(trx, ctx) {
      await removeUnseen(trx, ctx, seen, (names) => deleteLists(trx, names));
    },
  };
}
