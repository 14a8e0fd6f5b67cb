import { sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { explainQueryPlan, openRecordingDatabase, type PlanReading } from "../../../bench/query-plan";
import type { Scan } from "../../../server/db/scan";
import type { Database } from "../../../server/db/schema";
import type { Extract } from "../../../server/ioc/extract-pool";
import { queryIocDetail } from "../../../server/ioc/detail";
import { countIndicators, countWalkHits, INDICATOR_COLUMNS, indicatorPageQuery, orderedIndicators, queryIndicatorRows } from "../../../server/ioc/list";
import { filterIndexKeepsOrder } from "../../../server/ioc/filters";
import { createIocService, walkUniverseView, type IocService } from "../../../server/ioc/service";
import { aggregateIocStats } from "../../../server/ioc/stats";
import { parseIndicator } from "../../../shared/ioc/detect";
import { IOC_SORT_KEYS, iocListParamsSchema, type IocListParams } from "../../../shared/ioc-radar/list-params";
import { parseQuery } from "../../../shared/query/params";
import { SNAPSHOT_NOW } from "../setup/snapshot-database";

/**
 * The IOC radar's page queries read an index in the order they list, on the
 * snapshot database: EXPLAIN QUERY PLAN shows an index and no temporary
 * B-tree sorting the matches for the ORDER BY, so a page costs the same on a
 * million indicators as on a thousand. A structural check of the plan, not a
 * timing. `npm run bench` prints the same reading for a large database.
 */
const now = new Date(SNAPSHOT_NOW);
let recording: ReturnType<typeof openRecordingDatabase>;
let db: Kysely<Database>;
let service: IocService;

beforeAll(() => {
  recording = openRecordingDatabase(inject("snapshotDatabase"));
  db = recording.db;
  // Only lookups extract; no query here does.
  const extract: Extract = async () => {
    throw new Error("not used");
  };
  service = createIocService(db, () => "query-plans", extract);
});
afterAll(() => recording?.close());

async function mostCommon(column: "type" | "threat_type" | "malware_family" | "host" | "domain"): Promise<string> {
  const { rows } = await sql<{ value: string }>`
    select ${sql.ref(column)} as value from indicators where ${sql.ref(column)} is not null group by 1 order by count(*) desc limit 1`.execute(db);
  expect(rows[0]).toBeDefined();
  return rows[0]!.value;
}

function paramsOf(query: string): IocListParams {
  const { params, problems } = parseQuery(iocListParamsSchema, new URLSearchParams(query));
  expect(problems).toEqual([]);
  return params;
}

async function listPlan(query: string, scan: Scan): Promise<PlanReading> {
  const params = paramsOf(query);
  const context = await service.filterContext(params);
  return explainQueryPlan(db, orderedIndicators(db, params, now, context, scan).select(INDICATOR_COLUMNS).limit(25).compile());
}

/** Reads an index, sorts nothing for the ORDER BY, reads no indicator table whole. */
function expectIndexOrder(reading: PlanReading): void {
  const plan = reading.lines.join("\n");
  expect(reading.usesIndex, plan).toBe(true);
  expect(reading.sorts, plan).toEqual([]);
  expect(
    reading.fullScans.filter((table) => table.startsWith("indicator")),
    plan,
  ).toEqual([]);
}

describe("IOC list: the page query walks an index in the listed order", () => {
  const orders = ["", ...IOC_SORT_KEYS.flatMap((sort) => [`sort=${sort}`, `sort=${sort}&dir=asc`])];

  it.each(orders)("order '%s', unfiltered, either way of finding the page", async (query) => {
    for (const scan of ["gather", "walk"] as const) expectIndexOrder(await listPlan(query, scan));
  });

  /** Each filter, with a value common in the snapshot. */
  const filters: Record<string, () => Promise<string>> = {
    type: () => mostCommon("type"),
    threat_type: () => mostCommon("threat_type"),
    malware: () => mostCommon("malware_family"),
    tag: async () => "phishing",
    source: async () => "tweetfeed",
    host: () => mostCommon("host"),
    domain: () => mostCommon("domain"),
    seen: async () => "30d",
    q: async () => "login",
  };

  it.each(Object.keys(filters))(
    "filter '%s', in the default order, found as the list finds it: along the sort index, or along its own where that keeps the order",
    async (key) => {
      const query = new URLSearchParams({ [key]: await filters[key]!() }).toString();
      const { params } = parseQuery(iocListParamsSchema, new URLSearchParams(query));
      const context = await service.filterContext(params);
      expectIndexOrder(await listPlan(query, filterIndexKeepsOrder(params, context) ? "gather" : "walk"));
    },
  );

  it.each(["type=ipv4", "threat_type=botnet_cc", "malware=pikabot", "seen=30d"])(
    "filter '%s' gathers its matches from an index that keeps the default order",
    async (query) => expectIndexOrder(await listPlan(query, "gather")),
  );

  it.each(["tag=phishing&seen=30d", "tag=phishing&seen=30d&dir=asc"])("'%s' walks only the window's range of the last-seen index", async (query) => {
    const reading = await listPlan(query, "walk");
    expectIndexOrder(reading);
    expect(reading.lines.join("\n")).toMatch(/USING INDEX indicators_last_seen_idx\w* \(last_seen>\?\)/);
  });
});

/** Reads indexes only: no indicator table whole (a gathered page sorts its few matches, which is its point). */
function expectNoFullScan(reading: PlanReading): void {
  const plan = reading.lines.join("\n");
  expect(reading.usesIndex, plan).toBe(true);
  expect(
    reading.fullScans.filter((table) => table.startsWith("indicator")),
    plan,
  ).toEqual([]);
  // A walk of a sort index past every row is a full read too, when the page is gathered.
  expect(plan).not.toMatch(/^SCAN indicators USING INDEX/m);
}

describe("IOC list: gathered pages and counts read only their matches", () => {
  /** Free text that is part of a family's name (and of values): the family index and the trigram index, one OR. */
  async function familyText(): Promise<string> {
    return (await mostCommon("malware_family")).toLowerCase().slice(0, 5);
  }

  it("free text naming a family, gathered: both alternatives from their indexes", async () => {
    const q = await familyText();
    const reading = await listPlan(new URLSearchParams({ q }).toString(), "gather");
    expectNoFullScan(reading);
    expect(reading.lines.join("\n")).toMatch(/indicators_malware_idx/);
  });

  it("a 'seen within' window in another order, gathered: the window's range of the last-seen index, then sorted (SQLite walked the sort index whole)", async () => {
    for (const query of ["seen=30d&sort=first_seen", "seen=7d&sort=confidence&dir=asc"]) {
      const params = paramsOf(query);
      const context = await service.filterContext(params);
      const reading = await explainQueryPlan(db, indicatorPageQuery(db, params, now, context, "gather").compile());
      const plan = reading.lines.join("\n");
      expect(plan, query).toMatch(/SEARCH indicators USING INDEX indicators_last_seen_idx\S* \(last_seen>\?\)/);
      expect(plan, query).not.toMatch(/indicators_(first_seen|confidence)_idx/);
    }
  });

  it.each([
    ["free text naming a family", async () => ({ q: await familyText() })],
    ["a tag, which its family aliases also match", async () => ({ tag: "phishing" })],
    ["a tag within a window", async () => ({ tag: "phishing", seen: "30d" })],
    ["a source", async () => ({ source: "tweetfeed" })],
  ] as const)("count of %s", async (_name, view) => {
    const { params } = parseQuery(iocListParamsSchema, new URLSearchParams(await view()));
    const context = await service.filterContext(params);
    recording.take();
    await countIndicators(db, params, now, context);
    const [count] = recording.take();
    expect(count).toBeDefined();
    expectNoFullScan(await explainQueryPlan(db, count!));
  });

  it.each(["tag=phishing", "tag=phishing&seen=30d", "source=tweetfeed", "seen=30d", "q=login"])(
    "chart statistics of '%s' (not answered by the statistics table): one grouped pass over the matches, from their indexes",
    async (query) => {
      const { params } = parseQuery(iocListParamsSchema, new URLSearchParams(query));
      const context = await service.filterContext(params);
      recording.take();
      await aggregateIocStats(db, params, now, context);
      const queries = recording.take();
      expect(queries).toHaveLength(1);
      expectNoFullScan(await explainQueryPlan(db, queries[0]!));
    },
  );
});

describe("IOC list: the walk probe (server/db/scan.ts) reads only the front of a sort index", () => {
  it.each([
    "type=sha256&sort=first_seen&dir=asc&page=20",
    "type=sha256&sort=first_seen&dir=desc&page=20",
    "tag=phishing&seen=30d",
    "q=emotet",
    "source=feodotracker&sort=confidence",
    "type=md5&sort=value",
  ])("%s", async (query) => {
    const { params } = parseQuery(iocListParamsSchema, new URLSearchParams(query));
    const context = await service.filterContext(params);
    recording.take();
    const pageEnd = (params.page ?? 1) * 25;
    await countWalkHits(db, params, walkUniverseView(params), now, context, 16 * pageEnd, pageEnd);
    const [probe, ...rest] = recording.take();
    expect(rest).toEqual([]);
    expectIndexOrder(await explainQueryPlan(db, probe!));
  });

  it("sha256 by first seen, oldest first, page 20: the list walks the first-seen index, sorting nothing", async () => {
    const { params } = parseQuery(iocListParamsSchema, new URLSearchParams("type=sha256&sort=first_seen&dir=asc&page=20"));
    const fresh = createIocService(
      db,
      () => "probe",
      async () => [],
    );
    recording.take();
    await fresh.list(params, now);
    const page = recording.take().filter((statement) => /order by "?indicators"?\."?first_seen/i.test(statement.sql) && !/count\(/i.test(statement.sql));
    expect(page).not.toEqual([]);
    for (const statement of page) expectIndexOrder(await explainQueryPlan(db, statement));
  });
});

describe("IOC detail: related indicators by host and by domain", () => {
  /** The plans of the detail page's queries on a relation key, for the value given. */
  async function relationPlans(value: string): Promise<Array<{ sql: string; reading: PlanReading }>> {
    const read = parseIndicator(value);
    expect(read).not.toBeNull();
    recording.take();
    await queryIocDetail(db, read!, await service.matcher(), new Map(), now);
    const related = recording.take().filter((query) => /"(host|domain)" = \?/.test(query.sql));
    return Promise.all(related.map(async (query) => ({ sql: query.sql, reading: await explainQueryPlan(db, query) })));
  }

  it("a URL on a subdomain: the same host and the same registrable domain", async () => {
    const url = await db
      .selectFrom("indicators")
      .select("value")
      .where("type", "=", "url")
      .where("domain", "is not", null)
      .where(sql<boolean>`host != domain`)
      .orderBy("id")
      .limit(1)
      .executeTakeFirstOrThrow();
    const plans = await relationPlans(url.value);
    expect(plans.map((plan) => plan.sql.match(/"(host|domain)" = \?/)![1]).sort()).toEqual(["domain", "domain", "host", "host"]);
    for (const { sql: text, reading } of plans) {
      expect(reading.usesIndex, text).toBe(true);
      expect(reading.sorts, `${text}\n${reading.lines.join("\n")}`).toEqual([]);
      expect(reading.fullScans, `${text}\n${reading.lines.join("\n")}`).toEqual([]);
    }
  });

  it("a registrable domain: the URLs on it as host and the names under it", async () => {
    const { value } = await db
      .selectFrom("indicators as d")
      .select("d.value")
      .where("d.type", "=", "domain")
      .where(({ exists, selectFrom }) =>
        exists(selectFrom("indicators as u").select("u.id").whereRef("u.domain", "=", "d.value").where("u.type", "=", "domain")),
      )
      .orderBy("d.id")
      .limit(1)
      .executeTakeFirstOrThrow();
    const plans = await relationPlans(value);
    expect(plans.length).toBeGreaterThanOrEqual(4);
    for (const { sql: text, reading } of plans) {
      expect(reading.usesIndex, text).toBe(true);
      expect(reading.sorts, `${text}\n${reading.lines.join("\n")}`).toEqual([]);
      expect(reading.fullScans, `${text}\n${reading.lines.join("\n")}`).toEqual([]);
    }
  });
});

describe("IOC detail: the addresses of the same /24", () => {
  async function firstAddress(): Promise<string> {
    const row = await db.selectFrom("indicators").select("value").where("type", "=", "ipv4").orderBy("id").limit(1).executeTakeFirstOrThrow();
    return row.value;
  }
  it.each(["a listed address", "an address no feed lists"])("%s: one range of the value index, not every address through the type index", async (name) => {
    const read = parseIndicator(name === "a listed address" ? await firstAddress() : "8.8.8.8");
    expect(read).not.toBeNull();
    recording.take();
    await queryIocDetail(db, read!, await service.matcher(), new Map(), now);
    const neighbours = recording.take().filter((query) => /"value" >= \?/.test(query.sql));
    expect(neighbours).toHaveLength(1);
    const reading = await explainQueryPlan(db, neighbours[0]!);
    expect(reading.lines.join("\n")).toMatch(/USING INDEX indicators_value_idx\w* \(value>\? AND value<\?\)/);
    expect(reading.fullScans).toEqual([]);
  });
});

async function commonThreatType(source: string): Promise<string> {
  const { rows } = await sql<{ value: string }>`
    select i.threat_type as value from indicators i
    where i.threat_type is not null and exists (select 1 from indicator_sightings st where st.indicator_id = i.id and st.source = ${source})
    group by 1 order by count(*) desc limit 1`.execute(db);
  return rows[0]!.value;
}

describe("IOC list: a source filter along another filter's own index (probesSource)", () => {
  it("lists the same page whether it probes each row or lists the source's indicators first", async () => {
    const views = [
      "source=tweetfeed&type=url",
      "source=tweetfeed&type=url&page=3",
      "source=tweetfeed&type=ipv4",
      `source=tweetfeed&threat_type=${await commonThreatType("tweetfeed")}`,
      "source=signature-base&type=domain",
      "source=feodotracker&type=ipv4",
    ];
    let rowsCompared = 0;
    for (const query of views) {
      const params = paramsOf(query);
      const context = await service.filterContext(params);
      expect(filterIndexKeepsOrder(params, context), query).toBe(true);
      const probed = await queryIndicatorRows(db, params, now, { ...context, probeSource: true }, "gather");
      const listed = await queryIndicatorRows(db, params, now, { ...context, probeSource: false }, "gather");
      expect(probed, query).toEqual(listed);
      expect(
        (await service.list(params, now)).rows.map((row) => row.id),
        query,
      ).toEqual(listed.map((row) => row.id));
      rowsCompared += listed.length;
    }
    expect(rowsCompared).toBeGreaterThan(100);
  });

  it("probing reads the filter's index in order and looks each row's sighting up by key", async () => {
    const params = paramsOf("source=tweetfeed&type=url");
    const context = { ...(await service.filterContext(params)), probeSource: true };
    const reading = await explainQueryPlan(db, orderedIndicators(db, params, now, context, "gather").select(INDICATOR_COLUMNS).limit(25).compile());
    const plan = reading.lines.join("\n");
    expect(reading.sorts, plan).toEqual([]);
    expect(plan).toMatch(/^SEARCH indicators USING INDEX indicators_type_idx/);
    expect(plan).toMatch(/SEARCH indicator_sightings EXISTS USING COVERING INDEX indicator_sightings_source_idx/);
    expect(plan).not.toMatch(/LIST SUBQUERY/);
  });
});
