import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createIocService } from "../../../server/ioc/service";
import { normalizeIndicator } from "../../../shared/ioc/normalize";
import { createTestApp, type TestApp } from "../../helpers/test-app";

let t: TestApp;
let version = 1;
let service: ReturnType<typeof createIocService>;

beforeAll(async () => {
  t = await createTestApp();
  await t.database.db
    .insertInto("warninglists")
    .values({ name: "test-resolvers", title: null, description: null, version: "1", type: "string", matching_attributes: '["ip-dst"]', entry_count: 1 })
    .execute();
  await t.database.db.insertInto("warninglist_entries").values({ list_name: "test-resolvers", value: "192.0.2.53" }).execute();
  await t.database.db.insertInto("sources").values({ name: "misp-warninglists", last_success_at: "2026-11-01T00:00:00.000Z" }).execute();
  // A data version the test moves, as every import's publish does.
  service = createIocService(
    t.database.db,
    () => String(version),
    async () => [],
  );
});
afterAll(() => t?.close());

const listsOf = (matcher: Awaited<ReturnType<typeof service.matcher>>, value: string) => matcher.match(normalizeIndicator(value)!).map((match) => match.list);

describe("the warninglist matcher", () => {
  it("is kept when another feed's import moves the data version", async () => {
    const first = await service.matcher();
    expect(listsOf(first, "192.0.2.53")).toEqual(["test-resolvers"]);
    version += 1;
    await t.database.db.insertInto("sources").values({ name: "maltrail", last_success_at: "2026-11-02T00:00:00.000Z" }).execute();
    expect(await service.matcher()).toBe(first);
  });

  it("is built again, from the stored lists, once the warninglists were imported again", async () => {
    const before = await service.matcher();
    await t.database.db.insertInto("warninglist_entries").values({ list_name: "test-resolvers", value: "192.0.2.54" }).execute();
    await t.database.db.updateTable("sources").set({ last_success_at: "2026-11-03T00:00:00.000Z" }).where("name", "=", "misp-warninglists").execute();
    version += 1;
    const after = await service.matcher();
    expect(after).not.toBe(before);
    expect(listsOf(after, "192.0.2.54")).toEqual(["test-resolvers"]);
    expect(listsOf(before, "192.0.2.54")).toEqual([]);
  });
});
