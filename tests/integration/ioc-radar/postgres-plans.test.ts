import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DatabaseHandle } from "../../../server/db/connection";
import type { Database } from "../../../server/db/schema";
import { indicatorPageQuery, queryIndicatorRows } from "../../../server/ioc/list";
import { createIocService, type IocService } from "../../../server/ioc/service";
import { iocListParamsSchema, type IocListParams } from "../../../shared/ioc-radar/list-params";
import { parseQuery } from "../../../shared/query/params";
import { postgresPlanNodes } from "../../helpers/postgres-plan";
import { openSnapshotDatabase } from "../../helpers/test-database";
import { SNAPSHOT_NOW } from "../setup/snapshot-database";

/**
 * PostgreSQL's side of two IOC list plans (integration-pg only; SQLite's
 * plans are held by query-plans.test.ts). Structural checks of the statement
 * and of EXPLAIN, not timings: on the full import the tag filter drove its
 * page from the tag's 147,378 rows (600 ms) and a gathered free-text page
 * walked 300,570 rows of the sort index (700 ms), both because the planner
 * guessed; `docs/performance.md` has the figures.
 */
const now = new Date(SNAPSHOT_NOW);
let handle: DatabaseHandle;
let db: Kysely<Database>;
let service: IocService;

beforeAll(() => {
  handle = openSnapshotDatabase();
  db = handle.db;
  service = createIocService(
    db,
    () => "postgres-plans",
    async () => [],
  );
});
afterAll(() => handle?.close());

function paramsOf(query: string): IocListParams {
  const { params, problems } = parseQuery(iocListParamsSchema, new URLSearchParams(query));
  expect(problems).toEqual([]);
  return params;
}

describe("IOC list on PostgreSQL", () => {
  it("sends a tag filter's tag id as a value, so the planner's statistics for it apply", async () => {
    for (const scan of ["gather", "walk"] as const) {
      const params = paramsOf("tag=phishing&seen=30d");
      const context = await service.filterContext(params);
      expect(context.tagId).toEqual(expect.any(Number));
      const query = indicatorPageQuery(db, params, now, context, scan).compile();
      expect(query.sql).not.toMatch(/from "tags"/);
      expect(query.parameters).toContain(context.tagId);
    }
  });

  it("matches no tagged row for a tag that does not exist, as the subquery did", async () => {
    const params = paramsOf("tag=no-such-tag-anywhere");
    const context = await service.filterContext(params);
    expect(context.tagId).toBeNull();
    const page = await service.list(params, now);
    expect(page.total).toBe(0);
    expect(page.rows).toEqual([]);
  });

  it("the tag filter finds the same rows with the id sent as a value as with the subquery", async () => {
    const params = paramsOf("tag=phishing&per_page=100");
    const context = await service.filterContext(params);
    const byValue = await queryIndicatorRows(db, params, now, context, "gather");
    const bySubquery = await queryIndicatorRows(db, params, now, { ...context, tagId: undefined }, "gather");
    expect(byValue.length).toBeGreaterThan(0);
    expect(byValue).toEqual(bySubquery);
  });

  it.each(["q=emotet", "q=phish&sort=first_seen", "tag=phishing&sort=confidence&dir=asc", "source=tweetfeed&sort=type"])(
    "a gathered page of '%s' is sorted after its matches are found, never read off a sort index",
    async (query) => {
      const params = paramsOf(query);
      const context = await service.filterContext(params);
      const nodes = await postgresPlanNodes(db, indicatorPageQuery(db, params, now, context, "gather").compile());
      expect(nodes, nodes.join("\n")).toContainEqual(expect.stringMatching(/Sort$/));
      expect(nodes.filter((node) => /indicators_(last_seen|first_seen|listed|confidence|sources|type)_idx/.test(node))).toEqual([]);
    },
  );

  it.each(["sort=sources", "sort=sources&dir=asc", "sort=listed_since", "sort=listed_since&dir=asc"])(
    "'%s' (a column never NULL) is read off its index in either direction",
    async (query) => {
      const params = paramsOf(query);
      const context = await service.filterContext(params);
      const nodes = await postgresPlanNodes(db, indicatorPageQuery(db, params, now, context, "walk").compile(), ["enable_sort"]);
      expect(nodes, nodes.join("\n")).toContainEqual(expect.stringMatching(/^Index Scan( Backward)? indicators_(sources|listed)_idx$/));
      expect(nodes.filter((node) => /Sort$/.test(node))).toEqual([]);
    },
  );

  it("a page whose filter index keeps the order is still read off that index", async () => {
    const params = paramsOf("type=ipv4");
    const context = await service.filterContext(params);
    const query = indicatorPageQuery(db, params, now, context, "gather").compile();
    expect(query.sql).not.toContain("|| ''");
  });
});
