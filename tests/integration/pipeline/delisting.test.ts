import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markDelisted } from "../../../server/pipeline/importers/indicators-import";
import type { StagingArea } from "../../../server/pipeline/engine/staging";
import { createTestDatabase, type TestDatabase } from "../../helpers/feed-server";

/**
 * Delisting what a complete list no longer states (SQLite): the update reads
 * the sightings by their key for each delisted row, never the delisted rows
 * for each sighting. Planned the other way, maltrail's re-import with 222,896
 * sightings to delist ran for over 18 minutes on the full snapshot import.
 */
const STAMP = "2026-11-28T00:00:00.000Z";
let db: TestDatabase;
let staging: StagingArea;

beforeAll(async () => {
  db = await createTestDatabase();
  staging = db.store.openStaging("maltrail");
  await staging.create([
    {
      name: "delisted",
      columns: [
        ["indicator_id", "integer"],
        ["variant", "integer"],
      ],
    },
  ]);
  const { db: kysely } = db.store;
  await kysely
    .insertInto("indicators")
    .values([
      { id: 1, type: "domain", value: "a.example", listed_since: "2026-11-01T00:00:00.000Z" },
      { id: 2, type: "domain", value: "b.example", listed_since: "2026-11-01T00:00:00.000Z" },
    ])
    .execute();
  const sighting = (indicator_id: number, source: string, variant: number) => ({ indicator_id, source, variant, listed_since: "2026-11-01T00:00:00.000Z" });
  await kysely
    .insertInto("indicator_sightings")
    .values([sighting(1, "maltrail", 7), sighting(1, "maltrail", 8), sighting(2, "maltrail", 7), sighting(2, "tweetfeed", 7)])
    .execute();
  staging.row("delisted", [1, 7]);
  staging.row("delisted", [2, 7]);
  await staging.flush();
});

afterAll(async () => {
  await staging?.dispose();
  await db?.dispose();
});

describe("delisting", () => {
  it("reads the sightings by their key for each delisted row", async () => {
    const plan = await sql<{ detail: string }>`explain query plan ${markDelisted(sql.table("indicator_sightings"), "maltrail", STAMP)}`.execute(db.store.db);
    const details = plan.rows.map((row) => row.detail);
    expect(details[0]).toMatch(/^SEARCH indicator_sightings USING PRIMARY KEY \(indicator_id=\?/);
    expect(
      details.some((detail) => /CORRELATED|SCAN indicator_sightings/.test(detail)),
      details.join(" | "),
    ).toBe(false);
  });

  it("marks exactly the listed sightings of the source", async () => {
    await markDelisted(sql.table("indicator_sightings"), "maltrail", STAMP).execute(db.store.db);
    const rows = await db.store.db
      .selectFrom("indicator_sightings")
      .select(["indicator_id", "source", "variant", "delisted_at"])
      .orderBy("indicator_id")
      .orderBy("source")
      .orderBy("variant")
      .execute();
    expect(rows).toEqual([
      { indicator_id: 1, source: "maltrail", variant: 7, delisted_at: STAMP },
      { indicator_id: 1, source: "maltrail", variant: 8, delisted_at: null },
      { indicator_id: 2, source: "maltrail", variant: 7, delisted_at: STAMP },
      { indicator_id: 2, source: "tweetfeed", variant: 7, delisted_at: null },
    ]);
  });
});
