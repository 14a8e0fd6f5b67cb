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
   * PostgreSQL can look up through an index and join on.
   */
  readonly key: ReadonlyArray<{ readonly column: string; readonly nullable?: boolean }>;
  readonly count: string;
}

/**
 * Adds signed counts to a counts table: `deltas` is a table or a
 * parenthesised select of rows of the key's columns and a signed `n`, e.g.
 * each changed item's key before the change with -1 and after it with +1,
 * summed here by key. Keys already counted move, missing keys with a
 * positive sum are added, and keys whose count reaches 0 go, so the table
 * ends as a recount from scratch would leave it. A small change thus costs a
 * group over the items it touched instead of one over all of them.
 */
export async function addSignedCounts(db: Kysely<any>, counts: CountsTable, deltas: RawBuilder<unknown>): Promise<void> {
  const table = sql.table(counts.table);
  const stored = (column: string) => sql.ref(`${counts.table}.${column}`);
  const columns = sql.join(counts.key.map(({ column }) => sql.ref(column)));
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
