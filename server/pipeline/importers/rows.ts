import type { Insertable, Kysely } from "kysely";
import type { Database } from "../../db/schema";
import { chunk } from "../engine/importer";

/**
 * Bound parameters per statement. SQLite allows 32,766 and PostgreSQL
 * 65,535; staying well below both keeps statements small enough to plan fast.
 */
const MAX_PARAMETERS = 8_000;

/** Multi-row INSERT, split so no statement exceeds the parameter budget. */
export async function insertRows<T extends keyof Database & string>(
  trx: Kysely<Database>,
  table: T,
  rows: ReadonlyArray<Insertable<Database[T]>>,
): Promise<void> {
  const first = rows[0];
  if (!first) return;
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / Object.keys(first).length));
  for (const part of chunk(rows, perStatement)) {
    // Kysely cannot check a generic table's row type; the signature above does.
    await trx
      .insertInto(table)
      .values(part as never)
      .execute();
  }
}
