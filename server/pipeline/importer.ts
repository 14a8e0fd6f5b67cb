import { createHash } from "node:crypto";
import type { Insertable, Kysely } from "kysely";
import type { Logger } from "pino";
import type { Database } from "../db/schema";

export interface ImportCounts {
  added: number;
  updated: number;
  unchanged: number;
  rejected: number;
  removed: number;
}

export function emptyCounts(): ImportCounts {
  return { added: 0, updated: 0, unchanged: 0, rejected: 0, removed: 0 };
}

/** CVE ids whose evidence an import changed; "all" when it is cheaper to refresh every row. */
export class TouchedCves {
  /** Past this many ids a full refresh is faster than id-by-id batches. */
  static readonly ALL_THRESHOLD = 50_000;
  private ids: Set<string> | "all" = new Set();

  add(id: string): void {
    if (this.ids === "all") return;
    this.ids.add(id);
    if (this.ids.size > TouchedCves.ALL_THRESHOLD) this.ids = "all";
  }

  markAll(): void {
    this.ids = "all";
  }

  get scope(): string[] | "all" {
    return this.ids === "all" ? "all" : [...this.ids];
  }

  get isEmpty(): boolean {
    return this.ids !== "all" && this.ids.size === 0;
  }
}

export interface WriteContext {
  source: string;
  now: Date;
  logger: Logger;
  counts: ImportCounts;
  touched: TouchedCves;
  /** Records the date of a record so the source's freshness can be reported. */
  noteRecordDate(date: string | null): void;
}

/** How one source stores its parsed records. */
export interface Importer<R> {
  batchSize: number;
  writeBatch(trx: Kysely<Database>, records: R[], ctx: WriteContext): Promise<void>;
  /** Runs once after the last batch, inside the same transaction. */
  finish?(trx: Kysely<Database>, ctx: WriteContext): Promise<void>;
  /** Rows the source holds once the import is done (defaults to its record hashes). */
  countRecords?(trx: Kysely<Database>, source: string): Promise<number>;
}

export function contentHash(value: unknown): string {
  return createHash("sha1").update(JSON.stringify(value)).digest("base64url");
}

export function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

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

export type RecordStatus = "added" | "updated" | "unchanged";

export interface Classified<R> {
  record: R;
  key: string;
  hash: string;
  status: RecordStatus;
}

/**
 * Compares each record's content hash with the one stored for the source,
 * counts added / updated / unchanged, and stores the new hashes. Records are
 * keyed; a key repeated within the batch keeps its last record.
 */
export async function classifyByHash<R>(
  trx: Kysely<Database>,
  ctx: WriteContext,
  records: readonly R[],
  keyOf: (record: R) => string,
): Promise<Array<Classified<R>>> {
  const byKey = new Map<string, R>();
  for (const record of records) {
    if (byKey.has(keyOf(record))) ctx.counts.unchanged += 1;
    byKey.set(keyOf(record), record);
  }
  const stored = new Map<string, string>();
  for (const keys of chunk([...byKey.keys()], 500)) {
    const rows = await trx
      .selectFrom("source_records")
      .select(["record_key", "hash"])
      .where("source", "=", ctx.source)
      .where("record_key", "in", keys)
      .execute();
    for (const row of rows) stored.set(row.record_key, row.hash);
  }
  const classified: Array<Classified<R>> = [];
  for (const [key, record] of byKey) {
    const hash = contentHash(record);
    const previous = stored.get(key);
    const status: RecordStatus = previous === undefined ? "added" : previous === hash ? "unchanged" : "updated";
    ctx.counts[status] += 1;
    classified.push({ record, key, hash, status });
  }
  const changed = classified.filter((c) => c.status !== "unchanged");
  await insertRows(
    trx,
    "source_records",
    changed.filter((c) => c.status === "added").map((c) => ({ source: ctx.source, record_key: c.key, hash: c.hash })),
  );
  for (const c of changed.filter((c) => c.status === "updated")) {
    await trx.updateTable("source_records").set({ hash: c.hash }).where("source", "=", ctx.source).where("record_key", "=", c.key).execute();
  }
  return classified;
}

/**
 * For catalogue-style feeds (KEV, CWE) that always deliver the whole list:
 * deletes the stored keys this import did not deliver. When some records
 * were rejected, an absent key may just be an unreadable one, so nothing is
 * removed then: losing good data to one bad line is worse than keeping a
 * withdrawn entry until the next clean import.
 */
export async function removeUnseen(
  trx: Kysely<Database>,
  ctx: WriteContext,
  seen: ReadonlySet<string>,
  remove: (keys: string[]) => Promise<void>,
): Promise<string[]> {
  const stored = await trx.selectFrom("source_records").select("record_key").where("source", "=", ctx.source).execute();
  const gone = stored.map((row) => row.record_key).filter((key) => !seen.has(key));
  if (gone.length === 0) return [];
  if (ctx.counts.rejected > 0) {
    ctx.logger.warn({ source: ctx.source, absent: gone.length }, "some records were rejected, so entries absent from this feed are kept");
    return [];
  }
  for (const keys of chunk(gone, 500)) {
    await remove(keys);
    await trx.deleteFrom("source_records").where("source", "=", ctx.source).where("record_key", "in", keys).execute();
  }
  ctx.counts.removed += gone.length;
  return gone;
}
