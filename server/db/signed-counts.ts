import { sql, type Kysely, type RawBuilder } from "kysely";

/**
 * A table of counts by key, as the statistics tables (`cve_stats`,
 * `indicator_stats`) are: one row per key that something has, with how many.
 */
export interface CountsTable {
  readonly table: string;
  /**
   * The key's columns. A nullable one is compared with `is not distinct from`
   * (null is a key like any other); the others with `=`, which SQLite and
   * PostgreSQL can look up through an index and join on. PostgreSQL can
   * neither hash nor merge on the former, so a table whose merges move many
   * keys stores '' for none instead (`indicator_stats`); `cve_stats` keeps a
   * nullable vendor, its merges moving a few hundred keys.
   */
  readonly key: ReadonlyArray<CountsKeyColumn>;
  readonly count: string;
}

export interface CountsKeyColumn {
  readonly column: string;
  readonly nullable?: boolean;
  /** How a counted row computes it from its own columns; by default, its column of the same name. */
  readonly of?: RawBuilder<unknown>;
}

const computed = ({ column, of }: CountsKeyColumn) => of ?? sql.ref(column);

/** The key's columns, as the counts table names them. */
export const keyColumns = (counts: CountsTable) => sql.join(counts.key.map(({ column }) => sql.ref(column)));

/** A counted row's key, computed from its columns and named as the counts table's columns. */
export const countedKey = (counts: CountsTable) => sql.join(counts.key.map((key) => sql`${computed(key)} as ${sql.ref(key.column)}`));

/** A counted row's key, computed from its columns: what to group the counted rows by. */
export const countedKeyGroup = (counts: CountsTable) => sql.join(counts.key.map(computed));

/** Refills the table with the count by key of every row of `from` (a table, or a parenthesised select). */
export async function refillCounts(db: Kysely<any>, counts: CountsTable, from: RawBuilder<unknown>): Promise<void> {
  await sql`delete from ${sql.table(counts.table)}`.execute(db);
  await sql`
    insert into ${sql.table(counts.table)} (${keyColumns(counts)}, ${sql.ref(counts.count)})
    select ${countedKey(counts)}, count(*) from ${from} group by ${countedKeyGroup(counts)}`.execute(db);
}

/**
 * Adds signed counts to a counts table: `deltas` is a table or a
 * parenthesised select of rows of the key's columns and a signed `n`, e.g.
 * each changed item's key before the change with -1 and after it with +1,
 * summed here by key. Keys already counted move, missing keys with a
 * positive sum are added, and keys whose count reaches 0 go, so the table
 * ends as a recount from scratch would leave it. A small change thus costs a
 * group over the items it touched instead of one over all of them, provided
 * the table has an index on its whole key: each changed key is looked up in
 * it, and without one SQLite reads the table once per new key.
 */
export async function addSignedCounts(db: Kysely<any>, counts: CountsTable, deltas: RawBuilder<unknown>): Promise<void> {
  const table = sql.table(counts.table);
  const stored = (column: string) => sql.ref(`${counts.table}.${column}`);
  const columns = keyColumns(counts);
  const matches = sql.join(
    counts.key.map(({ column, nullable }) =>
      nullable ? sql`${stored(column)} is not distinct from ${sql.ref(`d.${column}`)}` : sql`${stored(column)} = ${sql.ref(`d.${column}`)}`,
    ),
    sql` and `,
  );
  const summed = sql`(select ${columns}, sum(n) as n from ${deltas} deltas group by ${columns})`;
  await sql`update ${table} set ${sql.ref(counts.count)} = ${stored(counts.count)} + d.n from ${summed} d where d.n <> 0 and ${matches}`.execute(db);
  await sql`
    insert into ${table} (${columns}, ${sql.ref(counts.count)})
    select ${columns}, n from ${summed} d where d.n > 0 and not exists (select 1 from ${table} where ${matches})`.execute(db);
  await sql`delete from ${table} where ${sql.ref(counts.count)} <= 0`.execute(db);
}
