import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema";
import { contentHash, type MergeContext } from "./importer";
import type { StagingOut, StagingTable } from "./staging";

/**
 * Staging for feeds of whole keyed records (CVE records, KEV entries,
 * Trickest pages, warninglists): each record is staged as its key, a hash of
 * its content and its content as JSON. The merge compares the hashes with
 * the ones stored for the source (`source_records`) in one query and reads
 * back only the records that are new or changed.
 */
export const RECORDS_TABLE: StagingTable = {
  name: "records",
  columns: [
    ["record_key", "text"],
    ["hash", "text"],
    ["payload", "text"],
  ],
};

export function stageRecord(out: StagingOut, key: string, record: unknown): void {
  out.row("records", [key, contentHash(record), JSON.stringify(record)]);
}

const staged = sql.table("staging.records");
const changedTable = sql.table("staging.changed_records");

/**
 * Classifies the staged records against the stored hashes (counts added,
 * updated and unchanged) and keeps the new and changed ones in
 * `staging.changed_records`. A key staged twice keeps one of its records.
 */
export async function classifyRecords(db: Kysely<Database>, ctx: MergeContext): Promise<void> {
  await sql`drop table if exists ${changedTable}`.execute(db);
  await sql`
    create ${sql.raw(ctx.store.dialect.scratchTable)} ${changedTable} as
    select r.record_key, r.payload, case when s.hash is null then 1 else 0 end as is_new
    from (select record_key, max(hash) as hash from ${staged} group by record_key) k
    join ${staged} r on r.record_key = k.record_key and r.hash = k.hash
    left join source_records s on s.source = ${ctx.source} and s.record_key = k.record_key
    where s.hash is distinct from k.hash`.execute(db);
  const count = async (query: ReturnType<typeof sql<{ n: number }>>) => Number((await query.execute(db)).rows[0]?.n ?? 0);
  const distinct = await count(sql<{ n: number }>`select count(distinct record_key) as n from ${staged}`);
  ctx.counts.added = await count(sql<{ n: number }>`select count(distinct record_key) as n from ${changedTable} where is_new = 1`);
  ctx.counts.updated = await count(sql<{ n: number }>`select count(distinct record_key) as n from ${changedTable} where is_new = 0`);
  ctx.counts.unchanged = distinct - ctx.counts.added - ctx.counts.updated;
}

/** The new and changed records, parsed, in batches (keyset by key: no offset scans). */
export async function* changedRecords<R>(db: Kysely<Database>, batchSize = 500): AsyncGenerator<R[]> {
  let after = "";
  for (;;) {
    const rows = (
      await sql<{ record_key: string; payload: string }>`
        select distinct record_key, payload from ${changedTable} where record_key > ${after} order by record_key limit ${batchSize}`.execute(db)
    ).rows;
    if (rows.length === 0) return;
    yield rows.map((row) => JSON.parse(row.payload) as R);
    after = rows.at(-1)!.record_key;
  }
}

/** Stores the hashes of this run's records, so the next run recognises them. */
export async function saveRecordHashes(db: Kysely<Database>, source: string): Promise<void> {
  await sql`
    insert into source_records (source, record_key, hash)
    select ${source}, record_key, max(hash) from ${staged} where true group by record_key
    on conflict (source, record_key) do update set hash = excluded.hash where source_records.hash is distinct from excluded.hash`.execute(db);
}

/**
 * For catalogues published whole (KEV, CWE, warninglists): the stored keys
 * this run did not deliver, removed from the hashes and returned. Nothing is
 * removed when more records than usual were rejected: an absent key may just
 * be an unreadable one, and losing good data to a damaged file is worse than
 * keeping a withdrawn entry until the next clean import.
 */
export async function withdrawnKeys(db: Kysely<Database>, ctx: MergeContext): Promise<string[]> {
  // A set difference, sorted or hashed once: tested one stored key at a time, the staged keys (unindexed) were read whole for each.
  const absent = sql`select record_key from source_records where source = ${ctx.source} except select record_key from ${staged}`;
  if (!ctx.absenceMeansWithdrawn) {
    const kept = Number((await sql<{ n: number }>`select count(*) as n from (${absent}) a`.execute(db)).rows[0]?.n ?? 0);
    if (kept > 0) ctx.logger.warn({ absent: kept }, "more records than usual were rejected, so entries absent from this feed are kept");
    return [];
  }
  const { rows } = await sql<{ record_key: string }>`
    delete from source_records where source = ${ctx.source} and record_key in (${absent}) returning record_key`.execute(db);
  ctx.counts.removed = rows.length;
  return rows.map((row) => row.record_key);
}
