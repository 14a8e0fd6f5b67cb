import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { beginStatsChange, endStatsChange, refreshCveStats } from "../../../server/cve/stats-table";
import { createTestDatabase, type TestDatabase } from "../../helpers/feed-server";

let db: TestDatabase;

beforeEach(async () => {
  db = await createTestDatabase();
});

afterEach(async () => {
  await db.dispose();
});

const statsRows = () => db.db.selectFrom("cve_stats").selectAll().orderBy(["state", "kev", "exploited", "severity", "vendor", "day", "count"]).execute();

describe("the CVE statistics table, updated for a few CVEs", () => {
  it("ends as a recount of every CVE would: groups grown, shrunk, started and emptied", async () => {
    const bare = { state: "PUBLISHED", descriptions: "[]" };
    const published = { ...bare, date_published: "2024-05-01T10:00:00Z", cvss_severity: "HIGH" };
    await db.db
      .insertInto("cves")
      .values([
        { id: "CVE-2024-0001", ...published },
        { id: "CVE-2024-0002", ...published },
        { id: "CVE-2024-0003", ...published, vendor: "Acme" },
        { id: "CVE-2024-0004", ...bare },
        { id: "CVE-2024-0005", ...bare, state: "REJECTED" },
      ])
      .execute();
    await refreshCveStats(db.db);
    const changed = sql`select id from cves where id in ('CVE-2024-0002', 'CVE-2024-0003', 'CVE-2024-0004', 'CVE-2024-0006')`;
    await db.db.transaction().execute(async (trx) => {
      await beginStatsChange(trx, changed);
      // Into KEV and exploited; the vendor's only CVE gets none (its group empties); an undated one joins a dated group; a new one.
      await trx.updateTable("cves").set({ kev: 1, exploit_count: 2 }).where("id", "=", "CVE-2024-0002").execute();
      await trx.updateTable("cves").set({ vendor: null }).where("id", "=", "CVE-2024-0003").execute();
      await trx.updateTable("cves").set(published).where("id", "=", "CVE-2024-0004").execute();
      await trx
        .insertInto("cves")
        .values({ id: "CVE-2024-0006", ...bare })
        .execute();
      await endStatsChange(trx, changed);
    });
    const updated = await statsRows();
    expect(updated.find((row) => row.vendor === "Acme")).toBeUndefined();
    expect(updated).toContainEqual({ state: "PUBLISHED", kev: 0, exploited: 0, severity: "HIGH", vendor: null, day: "2024-05-01", count: 3 });
    await refreshCveStats(db.db);
    expect(updated).toEqual(await statsRows());
  });
});
