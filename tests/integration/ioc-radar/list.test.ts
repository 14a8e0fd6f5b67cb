import request from "supertest";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { SNAPSHOT_NOW } from "../setup/snapshot-database";
import { createTestApp, type TestApp } from "../../helpers/test-app";
import { feodoEntries, malwareBazaarMd5s } from "./source-counts";
import { VALUE_SEARCH_MIN_LENGTH } from "../../../server/db/dialect/types";
import { queryIndicatorRows } from "../../../server/ioc/list";
import { createIocService } from "../../../server/ioc/service";
import { iocListParamsSchema } from "../../../shared/ioc-radar/list-params";
import { parseQuery } from "../../../shared/query/params";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ databasePath: inject("snapshotDatabase"), now: () => new Date(SNAPSHOT_NOW) });
});
afterAll(() => t?.close());

/** Page HTML without the empty comments React puts between adjacent text nodes. */
const textOf = (html: string) => html.replaceAll("<!-- -->", "");

type Row = {
  value: string;
  type: string;
  display: string;
  sources: string[];
  lastSeen: string | null;
  malwareFamily: string | null;
  tags: string[];
  threatType: string | null;
  score: number;
  benignLists: string[];
};

async function allRows(query: string): Promise<Row[]> {
  const rows: Row[] = [];
  for (let page = 1; ; page += 1) {
    const { body } = await request(t.app).get(`/api/v1/iocs?${query}&per_page=100&page=${page}`).expect(200);
    rows.push(...body.rows);
    if (page >= body.pageCount) return rows;
  }
}

describe("IOC list: counts match the source files", () => {
  it("Feodo Tracker: every IP of the blocklist, as ipv4", async () => {
    const expected = feodoEntries();
    expect(expected).toHaveLength(28);
    const rows = await allRows("source=feodotracker");
    expect(rows.map((row) => row.value).sort()).toEqual(expected.map((entry) => entry.ip).sort());
    expect(new Set(rows.map((row) => row.type))).toEqual(new Set(["ipv4"]));
    const { body } = await request(t.app).get("/api/v1/iocs?source=feodotracker&type=ipv4").expect(200);
    expect(body.total).toBe(28);
  });

  it("MalwareBazaar: the 507 md5 hashes of the list", async () => {
    expect(malwareBazaarMd5s()).toHaveLength(507);
    const { body } = await request(t.app).get("/api/v1/iocs?source=malwarebazaar&type=md5").expect(200);
    expect(body.total).toBe(507);
    const other = await request(t.app).get("/api/v1/iocs?source=malwarebazaar&type=sha256,ipv4,url").expect(200);
    expect(other.body.total).toBe(0);
  });

  it("the type statistics add up to the total, per source", async () => {
    for (const source of ["feodotracker", "malwarebazaar", "tweetfeed", "signature-base"]) {
      const [{ body: list }, { body: stats }] = await Promise.all([
        request(t.app).get(`/api/v1/iocs?source=${source}&per_page=1`).expect(200),
        request(t.app).get(`/api/v1/iocs/stats?source=${source}`).expect(200),
      ]);
      expect(list.total).toBeGreaterThan(0);
      expect(stats.types.reduce((sum: number, row: { count: number }) => sum + row.count, 0)).toBe(list.total);
    }
  });
});

describe("IOC list: order, filters, paging", () => {
  it("lists newest last seen first by default, and pages never overlap", async () => {
    const first = (await request(t.app).get("/api/v1/iocs?source=feodotracker&per_page=10").expect(200)).body;
    const second = (await request(t.app).get("/api/v1/iocs?source=feodotracker&per_page=10&page=2").expect(200)).body;
    expect(first.sort).toBe("last_seen");
    const seen = [...first.rows, ...second.rows].map((row: Row) => row.lastSeen ?? "");
    expect(seen).toEqual([...seen].sort().reverse());
    const values = new Set(first.rows.map((row: Row) => row.value));
    expect(second.rows.some((row: Row) => values.has(row.value))).toBe(false);
  });

  it("filters by malware family, threat type, tag and free text (defanged too)", async () => {
    const pikabot = feodoEntries().filter((entry) => entry.malware === "Pikabot").length;
    const { body } = await request(t.app).get("/api/v1/iocs?source=feodotracker&malware=pikabot").expect(200);
    expect(body.total).toBe(pikabot);
    const botnet = (await request(t.app).get("/api/v1/iocs?threat_type=botnet_cc&per_page=100").expect(200)).body;
    expect(botnet.rows.every((row: Row) => row.threatType === "botnet_cc")).toBe(true);
    const tagged = (await request(t.app).get("/api/v1/iocs?tag=CobaltStrike&per_page=100").expect(200)).body;
    expect(tagged.total).toBeGreaterThan(0);
    expect(tagged.rows.every((row: Row) => row.tags.includes("CobaltStrike"))).toBe(true);
    const ip = feodoEntries()[1]!.ip;
    const found = (
      await request(t.app)
        .get(`/api/v1/iocs?q=${encodeURIComponent(ip.replaceAll(".", "[.]"))}`)
        .expect(200)
    ).body;
    expect(found.rows.map((row: Row) => row.value)).toEqual([ip]);
  });

  it("'seen within' counts back from the request's clock", async () => {
    const pinned = await createTestApp({ databasePath: inject("snapshotDatabase"), now: () => new Date("2024-04-04T12:00:00Z") });
    try {
      const rows = (await request(pinned.app).get("/api/v1/iocs?source=feodotracker&per_page=100").expect(200)).body.rows as Row[];
      for (const [window, days] of [
        ["7d", 7],
        ["30d", 30],
        ["90d", 90],
      ] as const) {
        const since = Date.parse("2024-04-04T12:00:00Z") - days * 86_400_000;
        const expected = rows.filter((row) => row.lastSeen !== null && Date.parse(row.lastSeen) >= since).length;
        const { body } = await request(pinned.app).get(`/api/v1/iocs?source=feodotracker&seen=${window}`).expect(200);
        expect(body.total, window).toBe(expected);
      }
      const { body } = await request(pinned.app).get("/api/v1/iocs?source=feodotracker&seen=7d").expect(200);
      expect(body.total).toBeLessThan(28);
    } finally {
      await pinned.close();
    }
  });

  it("answers 400 naming each bad parameter", async () => {
    const cases: Array<[string, string]> = [
      ["type=hash", "type"],
      ["seen=1y", "seen"],
      ["sort=score", "sort"],
      ["dir=up", "dir"],
      ["per_page=101", "per_page"],
      ["page=0", "page"],
      ["page=10001", "page"],
      ["source=%3Cscript%3E", "source"],
      ["colour=red", "colour"],
    ];
    for (const [query, param] of cases) {
      const { body } = await request(t.app).get(`/api/v1/iocs?${query}`).expect(400);
      expect(
        body.error.problems.map((p: { param: string }) => p.param),
        query,
      ).toEqual([param]);
      expect(body.error.message).toContain(param);
      await request(t.app).get(`/api/v1/iocs/stats?${query}`).expect(400);
    }
  });

  it("charts follow the filter", async () => {
    const { body } = await request(t.app).get("/api/v1/iocs/stats?source=feodotracker").expect(200);
    expect(body.types).toEqual([{ type: "ipv4", count: 28 }]);
    expect(body.topMalware[0]).toEqual({ malware: "Pikabot", count: feodoEntries().filter((e) => e.malware === "Pikabot").length });
    expect(Object.keys(body.perDay.byType)).toEqual(["ipv4"]);
    expect(body.perDay.days).toHaveLength(90);
    const plotted = body.perDay.byType.ipv4.reduce((sum: number, n: number) => sum + n, 0);
    expect(plotted).toBeGreaterThan(0);
    expect(plotted).toBeLessThanOrEqual(28);
  });
});

describe("IOC list page", () => {
  it("renders rows defanged with the real value on the copy button, the charts and each feed's freshness", async () => {
    const res = await request(t.app).get("/ioc-radar?source=feodotracker&per_page=100").expect(200);
    const html = textOf(res.text);
    expect(html).toContain("<title>IOC radar · Threat Radar</title>");
    const ip = feodoEntries()[1]!.ip;
    expect(html).toContain(ip.replaceAll(".", "[.]"));
    expect(html).toContain(`data-copy-value="${ip}"`);
    expect(html).not.toMatch(new RegExp(`<code[^>]*>${ip.replaceAll(".", "\\.")}<`));
    expect(html).toContain("Indicators per day (last seen) by type");
    expect(html).toContain("Top malware families");
    expect(html).toContain("Type distribution");
    // On the snapshot's clock (2025-01-24) Feodo Tracker's newest record (2024-04-04) is long past its 48 h: stale, and said so.
    expect(html).toMatch(
      /feodotracker<\/strong> <span class="pill pill--warn">stale<\/span>: last successful import \d{4}-\d{2}-\d{2}, newest record <time class="nowrap" dateTime="2024-04-0\d">2024-04-0\d<\/time>/,
    );
    expect(html).toMatch(/role="alert">Stale or failing: [^<]*feodotracker \(stale\)/);
    // MalwareBazaar's hash lines carry no date: the list is as old as its header's "Last updated: 2023-11-23".
    expect(html).toMatch(
      /malwarebazaar<\/strong> <span class="pill pill--warn">stale<\/span>: last successful import [\d-]+, undated records, list of <time class="nowrap" dateTime="2023-11-23">/,
    );
    expect(html).toContain("/api/v1/iocs/export.stix.json?source=feodotracker");
    expect(html).toContain("/api/v1/iocs/blocklist.txt?type=ipv4&amp;source=feodotracker");
  });

  it("says nothing is stale when every feed's newest record is recent", async () => {
    const statuses = await t.database.db.selectFrom("sources").select(["name", "newest_record_at", "last_success_at"]).execute();
    const newest = statuses
      .map((row) => row.newest_record_at ?? row.last_success_at ?? "")
      .sort()
      .at(-1)!;
    const fresh = await createTestApp({ databasePath: inject("snapshotDatabase"), now: () => new Date(Date.parse(newest) + 3_600_000) });
    try {
      const html = textOf((await request(fresh.app).get("/ioc-radar?source=tweetfeed").expect(200)).text);
      expect(html).toMatch(/tweetfeed<\/strong> <span class="pill pill--ok">fresh<\/span>/);
    } finally {
      await fresh.close();
    }
  });

  it("flags benign-listed rows", async () => {
    const rows = await allRows("source=feodotracker");
    const flagged = rows.filter((row) => row.benignLists.length > 0);
    expect(flagged.length).toBeGreaterThan(0);
    const res = await request(t.app).get("/ioc-radar?source=feodotracker&per_page=100").expect(200);
    expect(textOf(res.text)).toContain(`⚠ ${flagged[0]!.benignLists.join(", ")}`);
  });

  it("a bad filter on the page is reported and the others still apply, with status 400", async () => {
    const res = await request(t.app).get("/ioc-radar?source=feodotracker&seen=forever").expect(400);
    expect(textOf(res.text)).toContain("Some filter values were ignored");
    expect(textOf(res.text)).toContain("<code>seen</code>");
    expect(textOf(res.text)).toMatch(/<strong>28<\/strong> indicators match/);
  });
});

describe("IOC list: the two ways of finding a page, and free text", () => {
  const now = new Date(SNAPSHOT_NOW);
  const views = [
    "",
    "type=ipv4&sort=confidence",
    "type=url,domain&sort=first_seen&dir=asc",
    "source=tweetfeed&sort=sources",
    "tag=phishing&sort=value&dir=asc&page=2",
    "malware=pikabot&sort=type",
    "threat_type=botnet_cc&seen=90d",
    "source=malwarebazaar&type=md5&sort=last_seen&dir=asc",
    "q=phish",
    "q=pikabot&sort=first_seen",
  ];

  it.each(views)("walking the sort index and gathering the matches give the same rows for '%s'", async (query) => {
    const { params } = parseQuery(iocListParamsSchema, new URLSearchParams(query));
    const context = await createIocService(
      t.database.db,
      () => "test",
      async () => [],
    ).filterContext(params);
    const gathered = (await queryIndicatorRows(t.database.db, params, now, context, "gather")).map((row) => row.value);
    const walked = (await queryIndicatorRows(t.database.db, params, now, context, "walk")).map((row) => row.value);
    expect(gathered.length).toBeGreaterThan(0);
    expect(walked).toEqual(gathered);
  });

  it.each(["pikabot", "PIKABOT", ".duckdns.", "login.php", "cc"])("free text '%s' matches what a scan of value, family and threat type finds", async (text) => {
    const needle = text.toLowerCase();
    const rows = await t.database.db.selectFrom("indicators").select(["value", "malware_family", "threat_type"]).execute();
    // Parts of values are searched from three characters on (a trigram index); shorter text must be a whole value.
    const inValue = (value: string) => (text.length >= VALUE_SEARCH_MIN_LENGTH ? value.toLowerCase().includes(needle) : value === text);
    const expected = rows.filter(
      (row) => inValue(row.value) || [row.malware_family ?? "", row.threat_type ?? ""].some((field) => field.toLowerCase().includes(needle)),
    );
    expect(expected.length).toBeGreaterThan(0);
    const { body } = await request(t.app)
      .get(`/api/v1/iocs?q=${encodeURIComponent(text)}&per_page=100`)
      .expect(200);
    expect(body.total).toBe(expected.length);
    const values = new Set(expected.map((row) => row.value));
    for (const row of body.rows as Row[]) expect(values.has(row.value)).toBe(true);
  });
});
