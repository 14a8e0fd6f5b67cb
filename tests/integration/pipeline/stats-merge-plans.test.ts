import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addToIndicatorSourceStats, addToIndicatorStats } from "../../../server/ioc/stats-table";
import { createSqliteTestDatabase, type SqliteTestDatabase } from "../../helpers/feed-server";
import { watchStatementPlans } from "../../helpers/statement-plans";

/**
 * A merge adds its signed counts to the IOC statistics tables by finding
 * each changed key in them (SQLite). Without an index on the whole key
 * (migration 0022), each new key was tested against every row of
 * `indicator_stats`, or every row of its source in `indicator_source_stats`:
 * on the full snapshot import, 5,000 new keys took 9.5 s and 13.1 s. A
 * threat type or family that no sighting names is '', so every key column is
 * compared with `=`.
 */
const KEY = "type=? AND threat_type=? AND malware_family=? AND day=?";
let db: SqliteTestDatabase;
let plans: ReturnType<typeof watchStatementPlans>;

beforeAll(async () => {
  db = await createSqliteTestDatabase();
  const stored = [
    ["maltrail", "domain", "malware", "emotet", "2026-11-01", 3],
    ["maltrail", "domain", "", "", "", 2],
    ["tweetfeed", "url", "phishing", "", "2026-11-02", 1],
  ] as const;
  for (const [source, type, threatType, family, day, count] of stored) {
    await sql`insert into indicator_stats (type, threat_type, malware_family, day, count) values (${type}, ${threatType}, ${family}, ${day}, ${count})`.execute(
      db.db,
    );
    await sql`
      insert into indicator_source_stats (source, type, threat_type, malware_family, day, count)
      values (${source}, ${type}, ${threatType}, ${family}, ${day}, ${count})`.execute(db.db);
  }
  await sql`create temp table deltas (source text, type text, threat_type text, malware_family text, day text, n integer)`.execute(db.db);
  // One key moves, one empties, one is new.
  await sql`
    insert into deltas values
      ('maltrail', 'domain', 'malware', 'emotet', '2026-11-01', -1),
      ('maltrail', 'domain', '', '', '', -2),
      ('maltrail', 'domain', '', '', '2026-11-03', 2)`.execute(db.db);
  plans = watchStatementPlans();
  await addToIndicatorStats(db.db, sql`(select type, threat_type, malware_family, day, n from deltas)`);
  await addToIndicatorSourceStats(db.db, sql.table("deltas"));
  plans.stop();
});

afterAll(async () => {
  plans?.stop();
  await db?.dispose();
});

describe("the IOC statistics tables' merge", () => {
  it.each([
    ["indicator_stats", KEY],
    ["indicator_source_stats", `source=? AND ${KEY}`],
  ])("finds each new key in %s by its whole key", (table, key) => {
    const [insert] = plans.planOf(new RegExp(`^insert into "${table}"`));
    expect(insert?.plan, insert?.sql).toContain(`SEARCH ${table} USING COVERING INDEX ${table}_key_idx (${key})`);
  });

  it("adds, moves and drops the counts", async () => {
    const { rows } = await sql`select source, type, threat_type, malware_family, day, count from indicator_source_stats order by source, day`.execute(db.db);
    expect(rows).toEqual([
      { source: "maltrail", type: "domain", threat_type: "malware", malware_family: "emotet", day: "2026-11-01", count: 2 },
      { source: "maltrail", type: "domain", threat_type: "", malware_family: "", day: "2026-11-03", count: 2 },
      { source: "tweetfeed", type: "url", threat_type: "phishing", malware_family: "", day: "2026-11-02", count: 1 },
    ]);
  });
});
