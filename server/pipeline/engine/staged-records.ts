import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema";
import type { MergeContext } from "./importer";
import type { StagingColumnType, StagingTable } from "./staging";
import type { ImportStore } from "./store";

type Columns = ReadonlyArray<readonly [name: string, type: StagingColumnType]>;

/**
 * Staging for feeds of whole keyed records that arrive as rows (CVE records,
 * Trickest pages): one row per record with `rec` (its place in the feed),
 * its key, a hash of its content and its own columns; its child rows go to
 * tables of their own, tied to it by `rec`. The merge then moves only the
 * new and changed records with set statements, and never reads a record
 * back into JavaScript.
 */
export function stagedRecordTable(name: string, columns: Columns): StagingTable {
  return { name, columns: [["rec", "integer"], ["record_key", "text"], ["hash", "text"], ...columns] };
}

/** A served child table filled from a staging table of the same name (cve_id and origin are added). */
export interface ChildTable {
  table: "cve_cvss" | "cve_affected" | "cve_version_lists" | "cve_references" | "cve_cwes" | "cve_ssvc" | "cve_exploits";
  columns: Columns;
  /** The served table has a primary key: repeated rows of one record are written once. */
  distinct?: boolean;
}

const changed = sql.table("staging.changed");

/**
 * Picks the records to write into `staging.changed` (rec, record_key,
 * is_new): of each key the last one staged, when its hash differs from the
 * one stored for the source. Counts added, updated and unchanged records.
 */
export async function classifyStaged(store: ImportStore, ctx: MergeContext, table: string): Promise<void> {
  const { db } = store;
  const staged = sql.table(`staging.${table}`);
  await store.indexStaging(db, table, ["rec"]);
  await sql`drop table if exists ${changed}`.execute(db);
  await sql`
    create ${sql.raw(store.dialect.scratchTable)} ${changed} as
    select r.rec, r.record_key, case when s.hash is null then 1 else 0 end as is_new
    from (select record_key, max(rec) as rec from ${staged} group by record_key) last
    join ${staged} r on r.rec = last.rec
    left join source_records s on s.source = ${ctx.source} and s.record_key = r.record_key
    where s.hash is distinct from r.hash`.execute(db);
  await store.indexStaging(db, "changed", ["rec"]);
  const count = async (query: ReturnType<typeof sql<{ n: number | string }>>) => Number((await query.execute(db)).rows[0]?.n ?? 0);
  const distinct = await count(sql<{ n: number }>`select count(distinct record_key) as n from ${staged}`);
  ctx.counts.added = await count(sql<{ n: number }>`select count(*) as n from ${changed} where is_new = 1`);
  ctx.counts.updated = await count(sql<{ n: number }>`select count(*) as n from ${changed} where is_new = 0`);
  ctx.counts.unchanged = distinct - ctx.counts.added - ctx.counts.updated;
}

/** Replaces an origin's child rows of every changed record with the staged ones. */
export async function replaceChildRows(trx: Kysely<Database>, child: ChildTable, origin: string): Promise<void> {
  const served = sql.table(child.table);
  const names = child.columns.map(([name]) => name);
  await sql`delete from ${served} where origin = ${origin} and cve_id in (select record_key from ${changed})`.execute(trx);
  await sql`
    insert into ${served} (cve_id, origin, ${sql.join(names.map((name) => sql.ref(name)))})
    select ${child.distinct ? sql`distinct` : sql``} c.record_key, ${origin}, ${sql.join(names.map((name) => sql.ref(`x.${name}`)))}
    from ${sql.table(`staging.${child.table}`)} x join ${changed} c on c.rec = x.rec
    where true ${child.distinct ? sql`on conflict do nothing` : sql``}`.execute(trx);
}

/** Stores the hashes of the records written, so the next run recognises them. */
export async function saveStagedHashes(trx: Kysely<Database>, source: string, table: string): Promise<void> {
  await sql`
    insert into source_records (source, record_key, hash)
    select ${source}, r.record_key, r.hash from ${sql.table(`staging.${table}`)} r join ${changed} c on c.rec = r.rec
    where true
    on conflict (source, record_key) do update set hash = excluded.hash`.execute(trx);
}
