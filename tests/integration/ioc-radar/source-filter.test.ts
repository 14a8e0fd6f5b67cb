import { sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { explainQueryPlan, openRecordingDatabase } from "../../../bench/query-plan";
import type { Database } from "../../../server/db/schema";
import type { Extract } from "../../../server/ioc/extract-pool";
import { filterIndexKeepsOrder } from "../../../server/ioc/filters";
import { INDICATOR_COLUMNS, orderedIndicators, queryIndicatorRows } from "../../../server/ioc/list";
import { createIocService, type IocService } from "../../../server/ioc/service";
import { iocListParamsSchema, type IocListParams } from "../../../shared/ioc-radar/list-params";
import { parseQuery } from "../../../shared/query/params";
import { SNAPSHOT_NOW } from "../setup/snapshot-database";

/**
 * A source filter read along another filter's own index (one type, a threat
 * type, one family) may probe each row of that index for one of the
 * source's sightings instead of listing the source's indicators first
 * (server/ioc/filters.ts probesSource). Either way the page must be the same.
 */
const now = new Date(SNAPSHOT_NOW);
let recording: ReturnType<typeof openRecordingDatabase>;
let db: Kysely<Database>;
let service: IocService;

beforeAll(() => {
  recording = openRecordingDatabase(inject("snapshotDatabase"));
  db = recording.db;
  const extract: Extract = async () => {
    throw new Error("not used");
  };
  service = createIocService(db, () => "source-filter", extract);
});
afterAll(() => recording?.close());

function paramsOf(query: string): IocListParams {
  const { params, problems } = parseQuery(iocListParamsSchema, new URLSearchParams(query));
  expect(problems).toEqual([]);
  return params;
}

async function commonThreatType(source: string): Promise<string> {
  const { rows } = await sql<{ value: string }>`
    select i.threat_type as value from indicators i
    where i.threat_type is not null and exists (select 1 from indicator_sightings st where st.indicator_id = i.id and st.source = ${source})
    group by 1 order by count(*) desc limit 1`.execute(db);
  return rows[0]!.value;
}

describe("a source filter along another filter's own index", () => {
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
