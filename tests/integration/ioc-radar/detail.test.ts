import request from "supertest";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { hostOf, registrableDomain } from "../../../shared/ioc/host";
import { canonicalIndicatorPath } from "../../../shared/ioc/indicator-path";
import type { IndicatorType } from "../../../shared/ioc/types";
import { SNAPSHOT_NOW } from "../setup/snapshot-database";
import { createTestApp, type TestApp } from "../../helpers/test-app";
import { feodoEntries } from "./source-counts";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ databasePath: inject("snapshotDatabase"), now: () => new Date(SNAPSHOT_NOW) });
});
afterAll(() => t?.close());

/** Map.groupBy, which Node 20 lacks. */
function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

/** Page HTML without the empty comments React puts between adjacent text nodes. */
const textOf = (html: string) => html.replaceAll("<!-- -->", "");

type ListRow = { value: string; type: string; sources: string[] };

async function firstWith(query: string, predicate: (row: ListRow) => boolean): Promise<ListRow> {
  const { body } = await request(t.app).get(`/api/v1/iocs?${query}&per_page=100`).expect(200);
  const row = (body.rows as ListRow[]).find(predicate);
  if (!row) throw new Error(`no indicator for ${query}`);
  return row;
}

describe("IOC detail", () => {
  it("an IP in Feodo Tracker and TweetFeed shows both sightings and both contributions", async () => {
    const row = await firstWith("source=feodotracker", (r) => r.sources.includes("tweetfeed"));
    const { body } = await request(t.app).get(`/api/v1/iocs/${row.value}`).expect(200);
    expect(body.known).toBe(true);
    expect(body.sightings.map((s: { source: string }) => s.source).sort()).toEqual(["feodotracker", "tweetfeed"]);
    expect(body.score.contributions.map((c: { source: string }) => c.source).sort()).toEqual(["feodotracker", "tweetfeed"]);
    const feodo = feodoEntries().find((entry) => entry.ip === row.value)!;
    expect(body.sightings.find((s: { source: string }) => s.source === "feodotracker")).toMatchObject({
      malwareFamily: feodo.malware,
      // last_online is a day: on the day it was first seen, the first-seen time (server/feeds/ioc/feodo.ts).
      lastSeen: feodo.lastOnline === feodo.firstSeen.slice(0, 10) ? `${feodo.firstSeen.replace(" ", "T")}.000Z` : `${feodo.lastOnline}T00:00:00.000Z`,
    });
    const tweet = body.sightings.find((s: { source: string }) => s.source === "tweetfeed");
    expect(tweet.reporter).toBeTruthy();
    expect(tweet.reference).toMatch(/^https:\/\//);

    const page = await request(t.app).get(`/ioc-radar/${row.value}`).expect(200);
    const html = textOf(page.text);
    expect(html).toContain('data-source="feodotracker"');
    expect(html).toContain('data-source="tweetfeed"');
    expect(html).toContain(row.value.replaceAll(".", "[.]"));
    const link = new RegExp(`<a href="${tweet.reference.replace(/[.?/]/g, "\\$&")}"[^>]*>`).exec(html)?.[0] ?? "";
    expect(link).toContain('rel="noopener noreferrer"');
    expect(link).toContain("data-allow-external");
    expect(html).toContain("Decay since last seen");
    expect(html).toContain("Benign-list penalty");
    expect(html).toContain("Last 90 days:");
  });

  it("a URL asked for with or without its path's trailing slash leads to the one a feed stored, in detail, search and lookup", async () => {
    const stored = await t.database.db
      .selectFrom("indicators")
      .select("value")
      .where("type", "=", "url")
      .where("value", "like", "http%://%/%_/")
      .where("value", "not like", "%?%")
      .orderBy("id")
      .executeTakeFirstOrThrow();
    const asked = stored.value.slice(0, -1);
    const exact = await t.database.db.selectFrom("indicators").select("id").where("value", "=", asked).executeTakeFirst();
    expect(exact).toBeUndefined();
    const { body } = await request(t.app)
      .get(`/api/v1/iocs/${encodeURIComponent(asked)}`)
      .expect(200);
    expect(body.known).toBe(true);
    expect(body.value).toBe(stored.value);
    expect(body.requested).toEqual({ value: asked, port: null });
    const search = (
      await request(t.app)
        .get(`/api/v1/iocs?q=${encodeURIComponent(asked)}`)
        .expect(200)
    ).body;
    expect(search.rows.map((row: { value: string }) => row.value)).toContain(stored.value);
    const lookup = (await request(t.app).post("/api/v1/iocs/lookup").send({ text: asked }).expect(200)).body;
    expect(lookup.results[0]).toMatchObject({ verdict: "known" });
  });

  it("an indicator no feed dates says so, and shows when this instance first listed it, in the API, its page and the list", async () => {
    const undated = await t.database.db
      .selectFrom("indicators")
      .select(["value", "listed_since"])
      .where("type", "=", "md5")
      .where("last_seen", "is", null)
      .where("first_seen", "is", null)
      .orderBy("id")
      .executeTakeFirstOrThrow();
    const { body } = await request(t.app).get(`/api/v1/iocs/${undated.value}`).expect(200);
    expect(body.summary).toMatchObject({ firstSeen: null, lastSeen: null, listedSince: undated.listed_since });
    const html = textOf((await request(t.app).get(`/ioc-radar/${undated.value}`).expect(200)).text);
    expect(html).toContain("<dt>Listed here since</dt>");
    expect(html).toContain(`<dd>${undated.listed_since.slice(0, 10)}`);
    expect(html).toContain("— (no feed dates it)");
    const list = textOf((await request(t.app).get(`/ioc-radar?q=${undated.value}`).expect(200)).text);
    expect(list).toContain(`listed here since ${undated.listed_since.slice(0, 10)}`);
  });

  it("a sha256 or md5 seen by MalwareBazaar and TweetFeed shows both", async () => {
    const row = await firstWith("source=malwarebazaar&q=&sort=sources", (r) => r.sources.length > 1);
    const { body } = await request(t.app).get(`/api/v1/iocs/${row.value}`).expect(200);
    expect(body.sightings.length).toBeGreaterThanOrEqual(2);
    expect(new Set(body.sightings.map((s: { source: string }) => s.source))).toEqual(new Set(row.sources));
  });

  it("the score breakdown adds up and decays from the newest sighting", async () => {
    const ip = feodoEntries()[0]!.ip;
    const { body } = await request(t.app).get(`/api/v1/iocs/${ip}`).expect(200);
    const { score } = body;
    expect(score.evidence).toBeCloseTo(
      score.contributions.reduce((sum: number, c: { points: number }) => sum + c.points, 0),
      1,
    );
    expect(score.score).toBeCloseTo(score.evidence - score.decayPoints - score.benignPenaltyPoints, 1);
    expect(score.daysSinceLastSeen).toBeGreaterThan(200);
  });

  it("relates IPs of the same malware family and /24, each linked", async () => {
    const entries = feodoEntries();
    const pair = entries.find((a) => entries.some((b) => b !== a && b.ip.split(".").slice(0, 3).join(".") === a.ip.split(".").slice(0, 3).join(".")))!;
    const { body } = await request(t.app).get(`/api/v1/iocs/${pair.ip}`).expect(200);
    const relations = Object.fromEntries(body.related.map((g: { relation: string; indicators: unknown[] }) => [g.relation, g.indicators]));
    expect(relations.slash24.length).toBeGreaterThan(0);
    expect(relations.malware.length).toBeGreaterThan(0);
    const page = await request(t.app).get(`/ioc-radar/${pair.ip}`).expect(200);
    expect(page.text).toContain("Same /24 network");
    expect(page.text).toContain(`href="/ioc-radar/${relations.slash24[0].value}"`);
  });

  it("relates URLs and domains on the same host and under the same registered domain, as a scan of the table says", async () => {
    const rows = await t.database.db.selectFrom("indicators").select(["type", "value"]).where("type", "in", ["url", "domain"]).execute();
    const indicators = rows.map((row) => ({ type: row.type as IndicatorType, value: row.value }));
    const byHost = groupBy(indicators, (indicator) => hostOf(indicator) ?? "");
    const related = (body: { related: Array<{ relation: string; indicators: Array<{ value: string }> }> }, relation: string) =>
      body.related.find((group) => group.relation === relation)?.indicators.map((i) => i.value) ?? [];

    const [host, onHost] = [...byHost].find(([name, group]) => name && group.filter((i) => i.type === "url").length >= 3)!;
    const url = onHost.find((i) => i.type === "url")!;
    const expectedOnHost = onHost.filter((i) => i.value !== url.value).map((i) => i.value);
    const { body: urlBody } = await request(t.app)
      .get(`/api/v1/iocs/${encodeURIComponent(url.value)}`)
      .expect(200);
    const sameHost = related(urlBody, "host");
    expect(sameHost.length).toBe(Math.min(10, expectedOnHost.length));
    for (const value of sameHost) expect(expectedOnHost).toContain(value);
    expect(urlBody.related.find((group: { relation: string }) => group.relation === "host").key).toBe(host);

    const domains = indicators.filter((i) => i.type === "domain");
    const byRegistered = groupBy(domains, (domain) => registrableDomain(domain) ?? "");
    const [registered, siblings] = [...byRegistered].find(([name, group]) => name && group.some((d) => d.value !== name) && group.length >= 3)!;
    const sub = siblings.find((d) => d.value !== registered)!;
    // Everything under the same registrable domain: its names, and the URLs and addresses on them.
    const expectedSiblings = indicators.filter((i) => i.value !== sub.value && registrableDomain(i) === registered).map((i) => i.value);
    const { body: domainBody } = await request(t.app).get(`/api/v1/iocs/${sub.value}`).expect(200);
    const sameDomain = related(domainBody, "domain");
    expect(sameDomain.length).toBe(Math.min(10, expectedSiblings.length));
    for (const value of sameDomain) expect(expectedSiblings).toContain(value);
  });

  it("a domain tagged with CVEs links them to the CVE radar", async () => {
    // A domain the import linked to a CVE (signature-base names CVEs in its comments).
    const linked = await t.database.db
      .selectFrom("indicator_cves")
      .innerJoin("indicators", "indicators.id", "indicator_cves.indicator_id")
      .select(["indicators.value", "indicator_cves.cve_id"])
      .where("indicators.type", "=", "domain")
      .orderBy("indicators.value")
      .limit(1)
      .executeTakeFirstOrThrow();
    const { body } = await request(t.app).get(`/api/v1/iocs/${linked.value}`).expect(200);
    expect(body.cves).toContain(linked.cve_id);
    const page = await request(t.app).get(`/ioc-radar/${linked.value}`).expect(200);
    expect(page.text).toContain(`href="/cve-radar/${linked.cve_id}"`);
  });

  it("8.8.8.8 is not seen by any feed: 200, its type and the public DNS warninglist", async () => {
    const { body } = await request(t.app).get("/api/v1/iocs/8.8.8.8").expect(200);
    expect(body).toMatchObject({ type: "ipv4", known: false, sightings: [] });
    expect(body.score.verdict).toBe("benign-listed");
    expect(body.warninglists.map((w: { list: string }) => w.list)).toContain("public-dns-v4");
    const page = await request(t.app).get("/ioc-radar/8.8.8.8").expect(200);
    expect(page.text).toContain("Not seen in any feed we track.");
    expect(page.text).toContain("public-dns-v4");
    expect(page.text).toContain("8[.]8[.]8[.]8");
  });

  it("google.com is flagged benign by the top-domain lists", async () => {
    const { body } = await request(t.app).get("/api/v1/iocs/google.com").expect(200);
    const lists = body.warninglists.map((w: { list: string }) => w.list);
    expect(lists.some((name: string) => /top|tranco|majestic|cisco|google/i.test(name))).toBe(true);
    const page = await request(t.app).get("/ioc-radar/google.com").expect(200);
    expect(page.text).toContain("known-benign list");
  });

  it("a valid indicator no feed has seen gets the 'not seen' page, a junk one the 404 screen", async () => {
    const page = await request(t.app)
      .get(`/ioc-radar/${"ab".repeat(32)}`)
      .expect(200);
    expect(page.text).toContain("Not seen in any feed we track.");
    expect(page.text).toContain(">sha256<");
    for (const junk of ["not an indicator", "%3Cscript%3Ealert(1)%3C%2Fscript%3E", "999.1.1.1", "xyz"]) {
      const res = await request(t.app)
        .get(`/ioc-radar/${encodeURIComponent(decodeURIComponent(junk))}`)
        .expect(404);
      expect(res.text).toContain("Page Not Found");
      expect(res.text).not.toContain("<script>alert");
    }
    await request(t.app).get("/api/v1/iocs/not%20an%20indicator").expect(400);
  });
});

describe("defanged forms redirect to the canonical page", () => {
  it.each([["ip", () => feodoEntries()[0]!.ip, (v: string) => [v.replaceAll(".", "[.]"), v.replaceAll(".", "(.)"), v.replaceAll(".", "[dot]")]]])(
    "%s",
    async (_kind, value, variants) => {
      const ip = value();
      for (const variant of variants(ip)) {
        await request(t.app)
          .get(`/ioc-radar/${encodeURIComponent(variant)}`)
          .expect(301)
          .expect("Location", `/ioc-radar/${ip}`);
      }
    },
  );

  it("URLs and domains from TweetFeed, and an e-mail address", async () => {
    const url = (await firstWith("source=tweetfeed&type=url", (r) => /^https?:\/\/[a-z0-9.-]+\//.test(r.value))).value;
    const canonical = `/ioc-radar/${encodeURIComponent(url)}`;
    const defanged = [
      url.replace(/^http/, "hxxp").replace(/\./g, "[.]"),
      url.replace(/^http/, "hXXp").replace("://", "[:]//").replace(/\./, "(.)"),
      url.replace(/\./g, "[dot]"),
    ];
    for (const variant of defanged) {
      await request(t.app)
        .get(`/ioc-radar/${encodeURIComponent(variant)}`)
        .expect(301)
        .expect("Location", canonical);
    }
    await request(t.app).get(canonical).expect(200);

    const domain = (await firstWith("source=tweetfeed&type=domain", () => true)).value;
    for (const variant of [domain.toUpperCase(), domain.replaceAll(".", "[.]"), domain.replaceAll(".", "(.)"), domain.replaceAll(".", "[dot]")]) {
      await request(t.app)
        .get(`/ioc-radar/${encodeURIComponent(variant)}`)
        .expect(301)
        .expect("Location", `/ioc-radar/${domain}`);
    }
    const email = canonicalIndicatorPath("phish@example.com")!;
    for (const variant of ["phish[@]example[.]com", "phish(at)example(.)com", "phish[@]EXAMPLE[dot]com"]) {
      await request(t.app)
        .get(`/ioc-radar/${encodeURIComponent(variant)}`)
        .expect(301)
        .expect("Location", email);
    }
  });
});
