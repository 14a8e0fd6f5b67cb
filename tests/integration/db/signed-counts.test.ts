import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addSignedCounts, type CountsTable } from "../../../server/db/signed-counts";
import { createTestDatabase, type TestDatabase } from "../../helpers/feed-server";

/**
 * The helper on a table of its own (items counted by kind and family, the
 * family nullable as the statistics tables' vendor and malware family are):
 * after a change's signed counts are added, the table must equal a recount
 * of every item.
 */
let db: TestDatabase;

beforeEach(async () => {
  db = await createTestDatabase();
  await sql`create table items (id integer primary key, kind text not null, family text)`.execute(db.db);
  await sql`create table item_counts (kind text not null, family text, count integer not null)`.execute(db.db);
  // As addSignedCounts() requires: each changed key is looked up in the table.
  await sql`create index item_counts_key_idx on item_counts (kind, family)`.execute(db.db);
  await sql`create table changes (kind text not null, family text, n integer not null)`.execute(db.db);
});

afterEach(async () => {
  await db.dispose();
});

const ITEM_COUNTS: CountsTable = { table: "item_counts", key: [{ column: "kind" }, { column: "family", nullable: true }], count: "count" };

type Count = { kind: string; family: string | null; count: number };
const rows = async (query: ReturnType<typeof sql>): Promise<Count[]> =>
  (await sql<Count>`${query} order by kind, family nulls first`.execute(db.db)).rows.map((row) => ({ ...row, count: Number(row.count) }));
const stored = () => rows(sql`select kind, family, count from item_counts`);
const recount = () => rows(sql`select kind, family, count(*) as count from items group by kind, family`);

/** Records the items' keys as they are now, counted `sign` each. */
const recordKeys = (ids: number[], sign: 1 | -1) =>
  sql`insert into changes (kind, family, n) select kind, family, ${sql.lit(sign)} from items where id in (${sql.join(ids)})`.execute(db.db);

describe("signed counts added to a counts table", () => {
  it("ends as a recount would: groups grown, shrunk to nothing, unchanged and new, with null in the key", async () => {
    await sql`
      insert into items (id, kind, family) values
        (1, 'a', null), (2, 'a', null), (3, 'a', 'x'), (4, 'b', null), (5, 'b', 'y'), (6, 'c', 'x'), (7, 'c', 'x')`.execute(db.db);
    await sql`insert into item_counts (kind, family, count) select kind, family, count(*) from items group by kind, family`.execute(db.db);

    const touched = [3, 4, 5, 6, 7, 8];
    await recordKeys(touched, -1);
    // 4 joins a/null (b/null empties); 5 goes (b/y empties); 6 and 7 lose their family (c/x empties, c/null is
    // new); 3 is touched but keeps its key; 8 is new in a/x.
    await sql`update items set kind = 'a' where id = 4`.execute(db.db);
    await sql`delete from items where id = 5`.execute(db.db);
    await sql`update items set family = null where id in (6, 7)`.execute(db.db);
    await sql`insert into items (id, kind, family) values (8, 'a', 'x')`.execute(db.db);
    await recordKeys(touched, 1);

    await addSignedCounts(db.db, ITEM_COUNTS, sql.table("changes"));

    const after = await stored();
    expect(after).toEqual([
      { kind: "a", family: null, count: 3 },
      { kind: "a", family: "x", count: 2 },
      { kind: "c", family: null, count: 2 },
    ]);
    expect(after).toEqual(await recount());
  });

  it("takes its counts from a select as well as from a table, and adds to a key with null as to any other", async () => {
    await sql`insert into item_counts (kind, family, count) values ('a', null, 2), ('a', 'x', 1)`.execute(db.db);
    await addSignedCounts(db.db, ITEM_COUNTS, sql`(select 'a' as kind, cast(null as text) as family, cast(${5} as integer) as n)`);
    expect(await stored()).toEqual([
      { kind: "a", family: null, count: 7 },
      { kind: "a", family: "x", count: 1 },
    ]);
  });
});
